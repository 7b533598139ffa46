// Protecting stdout before the session starts.

import { native } from "./native";

/**
 * Protects stdout now, before `run()`: the host's pipe is set aside for the
 * engine and from here on descriptor 1 points at stderr, so anything printed
 * while the extension loads (`console.log`, a library's banner) lands in the
 * log instead of before `hello`, which the host would refuse. `run()` does
 * the same anyway. Imports are evaluated before a module's own code, so to
 * cover them too import `zot-ext/protect-stdout` first instead.
 */
export function protectStdout(): void {
  native().protectStdout();
}
