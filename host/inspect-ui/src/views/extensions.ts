// Each extension: handshake, capabilities, registrations, subscriptions,
// readiness, diagnostics and its stderr log, live.

import { fill, h, pretty } from "../dom";
import { type Ext, store } from "../store";

function chips(items: string[], empty = "none"): HTMLElement {
  return h("div.chips", null, items.length ? items.map((i) => h("span.chip", null, i)) : h("span.muted", null, empty));
}

function regTable(rows: Ext["tools"]): HTMLElement {
  if (!rows.length) return h("div.muted", null, "none");
  return h(
    "table.reg",
    null,
    rows.map((r) =>
      h(
        "tr",
        { class: r.active ? null : "inactive" },
        h("td.mono", null, r.name),
        h("td", null, r.active ? "active" : `inactive: ${r.note ?? ""}`),
      ),
    ),
  );
}

export function extensionsView(): HTMLElement {
  const root = h("div.view.extensions");
  const logs = new Map<string, HTMLPreElement>();
  let shown = "";

  const render = (): void => {
    const st = store.state;
    if (!st) return;
    // Redraw only when something shown here changed (open details stay open).
    const key = JSON.stringify([st.extensions, st.tools, st.load_errors, st.passive]);
    if (key === shown) return;
    shown = key;
    logs.clear();
    const cards = st.extensions.map((e) => {
      const log = h("pre.log", { "data-log": e.name });
      logs.set(e.name, log);
      const tools = st.tools.filter((t) => t.ext === e.name);
      return h(
        "section.card.ext",
        { "data-ext": e.name },
        h(
          "header",
          null,
          h("h2", null, e.name, h("span.version", null, e.version)),
          h("span.badge", { class: e.connected ? "ok" : "bad" }, e.connected ? e.ready : `disconnected`),
          e.language ? h("span.badge", null, e.language) : null,
          h("span.badge", null, e.source),
          h(
            "button",
            {
              onclick: () => void store.step({ restart: e.name }),
              title: `Stop ${e.name} and start it again; the other extensions keep running`,
              "data-test": "restart",
            },
            "Restart",
          ),
          h(
            "button",
            {
              onclick: () => void store.step({ reload: true }),
              title: "Stop every extension and load them again (/reload-ext)",
            },
            "Reload all",
          ),
        ),
        e.disconnect_reason ? h("div.error", null, `disconnected: ${e.disconnect_reason}`) : null,
        h(
          "div.kv",
          null,
          h("span", null, "dir"),
          h("span.mono", null, e.dir),
          h("span", null, "log"),
          h("span.mono", null, e.log),
        ),
        h("h3", null, "Capabilities"),
        chips(e.capabilities),
        h("h3", null, "Handshake"),
        h("details", null, h("summary", null, "hello"), h("pre.json", null, pretty(e.hello))),
        h("details", null, h("summary", null, "hello_ack"), h("pre.json", null, pretty(e.hello_ack))),
        h("h3", null, "Commands"),
        regTable(e.commands),
        h("h3", null, "Tools"),
        regTable(e.tools),
        tools.map((t) =>
          h(
            "details",
            null,
            h(
              "summary",
              null,
              `${t.name} schema`,
              h(
                "span.muted",
                null,
                ` ${t.exposure}${t.interactive ? ", interactive" : ""}${t.deferred ? ", deferred" : ""}`,
              ),
            ),
            h("pre.json", null, pretty(t.schema)),
            t.output_schema ? h("pre.json", null, `output_schema: ${pretty(t.output_schema)}`) : null,
          ),
        ),
        h("h3", null, "Subscriptions"),
        chips(e.events),
        h("h3", null, "Interceptors"),
        chips(e.intercepts),
        e.diagnostics.length
          ? [
              h("h3", null, "Diagnostics"),
              h(
                "ul.diag",
                null,
                e.diagnostics.map((d) => h("li", null, d)),
              ),
            ]
          : null,
        h("h3", null, "stderr (live)"),
        log,
      );
    });
    const errors = st.load_errors.map((e) =>
      h(
        "section.card.ext.failed",
        null,
        h("header", null, h("h2", null, e.ext), h("span.badge.bad", null, "load error")),
        h("pre.error", null, e.message),
      ),
    );
    const passive = st.passive.length
      ? h("section.card", null, h("h3", null, "Theme / skills only (not started)"), chips(st.passive))
      : null;
    fill(
      root,
      cards.length || errors.length
        ? null
        : h("p.muted", null, "No extension is loaded. Start zot-host inspect with --ext DIR."),
      cards,
      errors,
      passive,
    );
    paintLogs();
  };

  const paintLogs = (): void => {
    for (const [name, el] of logs) {
      const lines = store.logs.get(name) ?? [];
      const stick = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
      el.textContent = lines.join("\n");
      if (stick) el.scrollTop = el.scrollHeight;
    }
  };

  store.on("state", render);
  store.on("log", paintLogs);
  return root;
}
