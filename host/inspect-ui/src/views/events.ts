// Fire any lifecycle event or any of the four interception requests with a
// payload of your own (prefilled with a valid example from the protocol's
// JSON Schema), and see the verdict and each interceptor's answer.

import { get, getText } from "../api";
import { fill, h, pretty } from "../dom";
import { example, resolve, type Schema } from "../schema";
import { type Frame, store } from "../store";

let protocol: Schema | null = null;

/** The payload schema of `event` / `event_intercept` frames for one event name. */
function variant(frameType: string, event: string): Schema | undefined {
  const frames = (protocol?.oneOf ?? []) as Schema[];
  const frame = frames.find((f) => resolve(f.properties?.type, protocol ?? {}).enum?.[0] === frameType);
  return (frame?.oneOf ?? []).find((v) => resolve(v.properties?.event, protocol ?? {}).enum?.[0] === event);
}

function payload(frameType: string, event: string): Record<string, unknown> {
  const s = variant(frameType, event);
  const st = store.state;
  const tool = st?.tools[0]?.name ?? "echo";
  const hints: Record<string, unknown> = {
    tool_name: tool,
    tool_id: "toolu_inspect",
    tool_args: {},
    step: 1,
    text: "Hello from the inspector",
    system_prompt: "You are zot.",
    provider: st?.session.provider ?? "scripted",
    model: st?.session.model ?? "scripted-model",
    session_id: st?.session.id ?? "session-1",
    cwd: st?.session.cwd ?? "",
    agent_run_id: "run-inspect",
    compaction_id: "compact-inspect",
    origin_extension: "",
  };
  const v = (s ? example(s, protocol ?? {}, "", hints) : { event }) as Record<string, unknown>;
  // The host stamps these: the frame type, the request id and, on
  // notifications, the session id, cwd and sequence number.
  const stamped = frameType === "event" ? ["type", "id", "session_id", "cwd", "sequence"] : ["type", "id"];
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) if (!stamped.includes(k)) out[k] = val;
  out.event = event;
  return out;
}

function firePane(kind: "emit" | "intercept"): { el: HTMLElement; refresh(): void } {
  const frameType = kind === "emit" ? "event" : "event_intercept";
  const select = h("select", { "data-test": `${kind}-name` });
  const editor = h("textarea.json", { rows: 10, spellcheck: "false", "data-test": `${kind}-payload` });
  const out = h("div.fire-out", { "data-test": `${kind}-out` });
  const fire = async (): Promise<void> => {
    let body: unknown;
    try {
      body = JSON.parse(editor.value);
    } catch (e) {
      store.say(`payload is not valid JSON: ${String(e)}`);
      return;
    }
    fill(out, h("div.running", null, "firing…"));
    const name = String((body as { event?: unknown }).event ?? "");
    try {
      const r = await store.step({ [kind]: body });
      const v = r.output?.verdict;
      const subscribers = (store.state?.extensions ?? [])
        .filter((e) => (kind === "emit" ? e.events : e.intercepts).includes(name))
        .map((e) => e.name);
      const table = h("table.frames");
      const summary = v
        ? h(
            "div.verdict",
            { "data-test": "verdict" },
            h("span.badge", { class: v.verdict === "block" ? "bad" : "ok" }, v.verdict),
            v.reason ? h("span", null, ` ${v.reason}`) : null,
            v.result !== null && v.result !== undefined ? h("pre.json", null, pretty(v.result)) : null,
          )
        : h(
            "div.fired",
            { "data-test": "fired" },
            `${name} sent to ${subscribers.length} subscriber(s)${subscribers.length ? `: ${subscribers.join(", ")}` : ""}`,
          );
      fill(
        out,
        summary,
        subscribers.length
          ? table
          : h(
              "div.muted",
              null,
              kind === "emit" ? "No extension subscribes to it." : "No extension intercepts it: the host allows.",
            ),
      );
      // The frames it caused, as they are written and answered (a
      // notification is written after the step returns).
      const wanted = (f: Frame): boolean =>
        f.n >= r.frames[0] &&
        (kind === "emit"
          ? f.type === "event" && f.event === name
          : (f.type === "event_intercept" && f.event === name) ||
            (f.type === "event_intercept_response" && f.n < r.frames[1]));
      const limit = kind === "emit" ? subscribers.length : subscribers.length * 2;
      const shown = new Set<number>();
      // One paint at a time, each reading the store afresh: a frame that
      // arrives while an earlier paint awaits its fetch is painted by the
      // next one in the chain, never missed.
      const paintNew = async (): Promise<void> => {
        for (;;) {
          const f = store.frames
            .filter(wanted)
            .slice(0, limit)
            .find((x) => !shown.has(x.n));
          if (!f) return;
          shown.add(f.n);
          const frame = JSON.parse(await getText(`/api/frame/${f.n}`)) as Record<string, unknown>;
          table.append(
            h(
              "tr",
              null,
              h("td", null, f.ext),
              h("td", null, f.dir === "host->ext" ? "→ sent" : "← answered"),
              h("td.mono", null, f.type),
              h("td.mono", null, f.latency !== undefined ? `${f.latency.toFixed(1)} ms` : ""),
              h("td", null, h("pre.json.small", null, pretty(frame))),
            ),
          );
        }
      };
      let chain = Promise.resolve();
      const paint = (): Promise<void> => (chain = chain.then(paintNew));
      const stop = store.on("frames", () => {
        void paint().then(() => {
          if (shown.size >= limit) stop();
        });
      });
      await paint();
      if (shown.size >= limit) stop();
    } catch (e) {
      fill(out, h("div.error", null, String(e instanceof Error ? e.message : e)));
    }
  };
  select.addEventListener("change", () => (editor.value = JSON.stringify(payload(frameType, select.value), null, 2)));
  const el = h(
    "section.card",
    null,
    h("h2", null, kind === "emit" ? "Lifecycle event" : "Interception"),
    h(
      "p.muted",
      null,
      kind === "emit"
        ? "Sent to every subscriber, stamped with the session id, cwd and the next sequence number."
        : "Sent through the chain of interceptors in load order, as the host does: first block wins, rewrites chain.",
    ),
    h(
      "div.row",
      null,
      select,
      h(
        "button",
        { onclick: () => (editor.value = JSON.stringify(payload(frameType, select.value), null, 2)) },
        "Example",
      ),
      h("button.primary", { "data-test": `${kind}-fire`, onclick: () => void fire() }, "Fire"),
    ),
    editor,
    out,
  );
  return {
    el,
    refresh() {
      const names = kind === "emit" ? store.state?.events : store.state?.intercepts;
      if (!names || select.options.length) return;
      fill(
        select,
        names.map((n) => h("option", { value: n }, n)),
      );
      editor.value = JSON.stringify(payload(frameType, select.value), null, 2);
    },
  };
}

export function eventsView(): HTMLElement {
  const emit = firePane("emit");
  const intercept = firePane("intercept");
  const root = h("div.view.events", null, emit.el, intercept.el);
  const refresh = (): void => {
    if (!protocol) return;
    emit.refresh();
    intercept.refresh();
  };
  void get<Schema>("/api/schema").then((s) => {
    protocol = s;
    refresh();
  });
  store.on("state", refresh);
  return root;
}
