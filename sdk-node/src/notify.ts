// `notify(message, level = "info")`: the one order of every SDK (the
// message first, the optional level last, as a default parameter must be;
// MCP's and Python's logging calls read the same way). 0.1 took
// `(level, message)` here and in Rust: that order is still understood for
// one release, with a one-time DeprecationWarning.

import type { NotifyLevel } from "./generated/protocol";

const LEVELS: ReadonlySet<string> = new Set<NotifyLevel>(["info", "success", "warn", "error"]);

let warned = false;

/**
 * `[message, level]` from either order. It is the 0.1 order only when the
 * first argument is one of the four levels and the second is not (so
 * `notify("warn", "error")` is the message "warn" at level `error`). Other
 * levels are passed on: the protocol says hosts must accept them.
 */
export function noteArgs(first: unknown, second: unknown): [string, NotifyLevel] {
  const known = (v: unknown): boolean => typeof v === "string" && LEVELS.has(v);
  if (known(first) && second !== undefined && !known(second)) {
    if (!warned) {
      warned = true;
      process.emitWarning("notify(level, message) is deprecated: call notify(message, level)", {
        type: "DeprecationWarning",
        code: "ZOT_EXT_NOTIFY_ORDER",
      });
    }
    return [String(second), first as NotifyLevel];
  }
  return [String(first), second === undefined ? "info" : (String(second) as NotifyLevel)];
}
