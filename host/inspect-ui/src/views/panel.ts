// The open panel, drawn as the terminal would, and driven by the keyboard:
// arrows, Enter, Tab, Page Up/Down, Home/End, Backspace, Delete, typed
// characters (rune), Esc and Ctrl+C (which close it).

import { fill, h } from "../dom";
import { store } from "../store";

const KEYS: Record<string, string> = {
  ArrowUp: "up",
  ArrowDown: "down",
  ArrowLeft: "left",
  ArrowRight: "right",
  Enter: "enter",
  Escape: "esc",
  Tab: "tab",
  PageUp: "pageup",
  PageDown: "pagedown",
  Home: "home",
  End: "end",
  Backspace: "backspace",
  Delete: "delete",
};

/** The protocol key for a keyboard event, or null when it is not one. */
export function keyOf(e: KeyboardEvent): { key: string; text: string } | null {
  if (e.ctrlKey && e.key.toLowerCase() === "c") return { key: "ctrl+c", text: "" };
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const named = KEYS[e.key];
  if (named) return { key: named, text: "" };
  if ([...e.key].length === 1) return { key: "rune", text: e.key };
  return null;
}

export function panelView(): HTMLElement {
  const screen = h("div.panel-screen", {
    tabindex: 0,
    "data-test": "panel",
    title: "Click here, then type: keys go to the panel",
  });
  const keys = h(
    "div.key-buttons",
    null,
    (["up", "down", "left", "right", "enter", "tab", "esc"] as const).map((k) =>
      h("button", { onclick: () => void store.key(k), "data-key": k }, k),
    ),
  );
  const root = h(
    "div.view.panel-view",
    null,
    h(
      "p.muted",
      null,
      "Panels opened by a command or a running tool appear here. Focus the panel and type: the keys go to its extension (Esc and Ctrl+C close it).",
    ),
    screen,
    keys,
  );

  screen.addEventListener("keydown", (e) => {
    const k = keyOf(e);
    if (!k || !store.state?.panel) return;
    e.preventDefault();
    void store.key(k.key, k.text);
  });

  const render = (): void => {
    const p = store.state?.panel;
    if (!p) {
      screen.classList.add("empty");
      fill(screen, h("div.muted", null, "No panel is open. Run a command that opens one (e.g. /panel)."));
      return;
    }
    screen.classList.remove("empty");
    const len = (t: string): number => [...t].length;
    const width = Math.max(20, len(p.title) + 2, len(p.footer), ...p.lines.map(len));
    const pad = (t: string): string => t + " ".repeat(Math.max(0, width - len(t)));
    fill(
      screen,
      h("div.panel-title", null, `┌─ ${p.title} ${"─".repeat(width - len(p.title) - 1)}┐`),
      p.lines.map((l) => h("div.panel-line", null, `│ ${pad(l)} │`)),
      p.footer ? h("div.panel-footer", null, `│ ${pad(p.footer)} │`) : null,
      h("div.panel-title", null, `└${"─".repeat(width + 2)}┘`),
      h("div.panel-owner.muted", null, `${p.ext}:${p.id}`),
    );
  };
  store.on("state", render);
  return root;
}
