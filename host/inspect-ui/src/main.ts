// zot-host inspect: the page. One live session; every button runs a script
// step through the host, and Export gives the script that replays it.

import { getText } from "./api";
import { download, fill, h } from "./dom";
import { describe } from "./observe";
import { store } from "./store";
import { commandsView } from "./views/commands";
import { eventsView } from "./views/events";
import { extensionsView } from "./views/extensions";
import { panelView } from "./views/panel";
import { toolsView } from "./views/tools";
import { transcriptView } from "./views/transcript";
import { wireView } from "./views/wire";

const TABS: [string, string, () => HTMLElement][] = [
  ["extensions", "Extensions", extensionsView],
  ["tools", "Tools", toolsView],
  ["commands", "Commands", commandsView],
  ["panel", "Panel", panelView],
  ["events", "Events", eventsView],
  ["wire", "Wire", wireView],
  ["transcript", "Transcript", transcriptView],
];

function notesBox(): HTMLElement {
  const box = h("div.notes", { "data-test": "notes" });
  store.on("obs", () => {
    // The notes area as a user sees it: notes and displays, cleared per extension.
    const notes: { ext: string; text: string; level: string }[] = [];
    for (const { o } of store.obs) {
      if (o.kind === "note" || o.kind === "display")
        notes.push({ ext: String(o.ext), text: String(o.text), level: String(o.level ?? "display") });
      if (o.kind === "notes_cleared")
        for (let i = notes.length - 1; i >= 0; i--) if (notes[i]?.ext === o.ext) notes.splice(i, 1);
      if (o.kind === "session" || o.kind === "reload") notes.length = 0;
    }
    fill(
      box,
      h("h4", null, "Notes"),
      notes.length
        ? notes
            .slice(-30)
            .map((n) => h("div.note", { class: `lv-${n.level}` }, h("span.muted", null, `[${n.ext}] `), n.text))
        : h("div.muted", null, "none"),
    );
  });
  return box;
}

function header(): HTMLElement {
  const session = h("span.session.muted");
  const running = h("span.running-step", { "data-test": "running" });
  const cancel = h(
    "button.danger",
    { hidden: true, "data-test": "cancel", onclick: () => void store.cancel() },
    "Cancel",
  );
  const status = h("div.status-line", { "data-test": "status-line" });
  const notice = h("div.notice", { "data-test": "notice" });
  const exportBtn = h(
    "button",
    {
      "data-test": "export",
      title: "The session as a script that zot-host run replays with the same transcript",
      onclick: async () => download("session.json", await getText("/api/export")),
    },
    "Export script",
  );
  store.on("state", () => {
    const st = store.state;
    if (!st) return;
    session.textContent = `${st.session.id} · ${st.session.mode} · ${st.session.cwd} · ${st.steps} steps${st.closed ? " · ended" : ""}`;
    const r = st.running;
    running.textContent = r ? `running: ${JSON.stringify(r).slice(0, 120)}` : "";
    cancel.hidden = !(r && "call" in r);
  });
  store.on("obs", () => {
    const last = [...store.obs].reverse().find((o) => o.o.kind === "status" || o.o.kind === "warning");
    status.textContent = last ? describe(last.o) : "";
    status.className = `status-line lv-${String(last?.o.level ?? "warn")}`;
  });
  store.on("notice", () => {
    notice.textContent = store.notice;
    notice.hidden = !store.notice;
  });
  notice.addEventListener("click", () => store.say(""));
  return h(
    "header.top",
    null,
    h("h1", null, "zot-host inspect"),
    session,
    h("span.spacer"),
    running,
    cancel,
    h(
      "button",
      {
        onclick: () => void store.step({ reload: true }),
        title: "Stop every extension and load them again (/reload-ext)",
      },
      "Reload extensions",
    ),
    exportBtn,
    h("div.lines", null, status, notice),
  );
}

function main(): void {
  const app = document.getElementById("app");
  if (!app) return;
  const nav = h("nav.tabs-nav");
  const views = h("main.views");
  const panes = new Map<string, HTMLElement>();
  const select = (id: string): void => {
    for (const [k, el] of panes) el.hidden = k !== id;
    for (const b of nav.querySelectorAll("button")) b.classList.toggle("on", b.dataset.tab === id);
    history.replaceState(null, "", `${location.pathname}${location.search}#${id}`);
  };
  for (const [id, title, make] of TABS) {
    const el = make();
    el.hidden = true;
    panes.set(id, el);
    views.append(el);
    nav.append(h("button", { "data-tab": id, onclick: () => select(id) }, title));
  }
  fill(app, header(), h("div.body", null, h("aside.side", null, nav, notesBox()), views));
  const first = location.hash.slice(1);
  select(panes.has(first) ? first : "extensions");
  store
    .start()
    .catch((e: unknown) => store.say(`cannot reach zot-host inspect: ${e instanceof Error ? e.message : String(e)}`));
}

main();
