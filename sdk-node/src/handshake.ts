// The session's start: every registration made before `run` goes to the
// engine as the engine starts, and the host's `hello_ack` runs the on-hello
// hooks before the engine announces everything (`helloDone`).

import { message } from "./errors";
import type { NativeEngine } from "./native";
import type { Registrations } from "./routes";
import type { HostInfo } from "./types";

/**
 * Hands every registration made so far to the engine, so that it knows the
 * handlers while it reads the first frames. Later registrations go to the
 * engine at once: it holds them until `helloDone`, or writes them right
 * away after that. The engine logs what it refuses (the same line in every
 * SDK).
 */
export function registerAll(engine: NativeEngine, reg: Registrations): void {
  engine.registerAll(
    JSON.stringify({
      commands: [...reg.commands].map(([name, c]) => ({ name, description: c.description })),
      tools: [...reg.tools.values()].map((t) => ({ spec: t.spec, derived: t.derived })),
      events: [...reg.events.keys()],
      intercepts: [...reg.intercepts.keys()],
    }),
  );
}

/** Runs the on-hello hooks in order (a failing one is logged), then ends the handshake. */
export async function runHelloHooks(engine: NativeEngine, reg: Registrations, host: HostInfo): Promise<void> {
  for (const hook of reg.helloHooks) {
    try {
      await hook(host);
    } catch (e) {
      reg.log(`on-hello hook failed: ${message(e)}`);
    }
  }
  try {
    engine.helloDone();
  } catch (e) {
    reg.log(`handshake not completed: ${message(e)}`);
  }
}
