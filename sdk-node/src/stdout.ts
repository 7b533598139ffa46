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
  stdoutStreamToStderr();
}

/**
 * On Windows the engine can repoint only the process's standard handles:
 * Node writes `process.stdout` (and so `console.log`) through descriptor 1
 * of its own C runtime, which still holds the host's pipe. There
 * `process.stdout` becomes the stderr stream, for the global console too
 * (it reads `process.stdout` on its first write and keeps what it got).
 * Elsewhere descriptor 1 itself points at stderr already.
 */
export function stdoutStreamToStderr(): void {
  if (process.platform !== "win32") {
    return;
  }
  Object.defineProperty(process, "stdout", {
    configurable: true,
    enumerable: true,
    get: () => process.stderr,
  });
  (console as unknown as { _stdout: NodeJS.WritableStream })._stdout = process.stderr;
}
