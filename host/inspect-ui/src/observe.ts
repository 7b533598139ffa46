// One observation as a line a person reads (the page's version of the
// host's readable transcript).

import { h } from "./dom";
import type { Obs } from "./store";

const s = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

export function describe(o: Obs): string {
  switch (o.kind) {
    case "loaded":
      return `loaded ${s(o.ext)} ${s(o.version)} (${s(o.source)})`;
    case "load_error":
      return `cannot load ${s(o.ext)}: ${s(o.message)}`;
    case "diagnostic":
      return `[${s(o.ext)}] ${s(o.message)}`;
    case "disconnected":
      return `${s(o.ext)} disconnected: ${s(o.reason)}`;
    case "exited":
      return `${s(o.ext)} exited: ${s(o.status)}`;
    case "session":
      return `session ${s(o.id)} in ${s(o.cwd)}`;
    case "user":
      return `you › ${s(o.text)}${o.from && o.from !== "user" ? ` (from ${s(o.from)})` : ""}`;
    case "command":
      return `you › ${s(o.text)}`;
    case "assistant":
      return `zot › ${s(o.text)}`;
    case "tool_call":
      return `⚙ ${s(o.name)} ${JSON.stringify(o.args)}${o.origin_extension ? ` via ${s(o.origin_extension)}` : ""}`;
    case "tool_result":
      return `↳ ${s(o.name)} [${s(o.status)}] ${s(o.text)}`;
    case "confirmation":
      return `? allow ${s(o.name)}: ${s(o.preview)} → ${s(o.answer)}`;
    case "note":
      return `[${s(o.ext)}] ${s(o.level)}: ${s(o.text)}`;
    case "notes_cleared":
      return `[${s(o.ext)}] notes cleared`;
    case "display":
      return `[${s(o.ext)}] ${s(o.text)}`;
    case "status":
      return `▌ ${s(o.text)}`;
    case "editor":
      return `editor: ${s(o.text)}`;
    case "panel":
      return `panel ${s(o.ext)}:${s(o.id)} ${s(o.event)}: ${s(o.title)} | ${(o.lines as string[]).join(" / ")}`;
    case "panel_closed":
      return `panel ${s(o.ext)}:${s(o.id)} closed by ${s(o.by)}`;
    case "event":
      return `event ${s(o.event)} fired`;
    case "verdict":
      return `intercept ${s(o.event)}: ${s(o.verdict)}${o.reason ? ` (${s(o.reason)})` : ""}${o.result !== undefined ? ` → ${JSON.stringify(o.result)}` : ""}`;
    case "reload":
      return `reloaded: ${s(o.stopped)} stopped, ${s(o.loaded)} loaded, ${s(o.ready)} ready, ${s(o.errors)} errors`;
    case "warning":
      return `⚠ ${s(o.text)}`;
    default: {
      const { kind, ...rest } = o;
      return `${kind} ${JSON.stringify(rest)}`;
    }
  }
}

export function level(o: Obs): string {
  if (o.kind === "status" || o.kind === "note") return String(o.level ?? "info");
  if (o.kind === "tool_result" && o.is_error) return "error";
  if (o.kind === "load_error" || o.kind === "disconnected" || o.kind === "expect_failed") return "error";
  if (o.kind === "warning" || (o.kind === "verdict" && o.verdict === "block")) return "warn";
  return "";
}

export function obsRow(o: Obs): HTMLElement {
  return h(
    `div.obs.k-${o.kind}`,
    { "data-kind": o.kind, class: level(o) ? `lv-${level(o)}` : null },
    h("span.kind", null, o.kind),
    h("span.text", null, describe(o)),
  );
}
