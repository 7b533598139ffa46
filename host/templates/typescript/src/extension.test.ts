import assert from "node:assert/strict";
import { test } from "node:test";
import { TestHost } from "zot-ext/testing";
import { extension, type State } from "./extension.js";

test("command, tool and event", async () => {
  const state: State = { turns: 0 };
  const host = await TestHost.start(extension(state));
  assert.equal(host.registration.commands[0]?.name, "{{command}}");
  assert.deepEqual(host.registration.events, ["turn_start"]);

  assert.equal((await host.command("{{command}}", "Ada")).display, "Hello, Ada! (0 turns so far)");

  const r = await host.tool("{{tool}}", { name: "Ada", excited: true });
  assert.deepEqual(r.content, [{ type: "text", text: "Hello, Ada!" }]);

  await host.event({ event: "turn_start", step: 1 });
  // Shutting down lets the handler finish first.
  await host.shutdown();
  assert.equal(state.turns, 1);
});
