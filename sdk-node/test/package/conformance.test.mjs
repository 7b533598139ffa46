// The Node conformance extension (tests/conformance/node) against its
// contract (docs/testing/conformance.md), in-process: the same checks as
// the Rust copy's tests/conformance/rust/tests/contract.rs, plus the
// registration lines of tests/conformance/rust/README.md, byte for byte.

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import { pathToFileURL } from "node:url";

import { TestHost } from "zot-ext/testing";

import { conformanceDir, noUnhandled, readmeLines, text } from "./helpers.mjs";

after(noUnhandled());

const { extension } = await import(pathToFileURL(join(conformanceDir, "extension.mjs")).href);

async function start() {
  return TestHost.start(extension(), { ack: { cwd: "/proj", data_dir: "/data" } });
}

async function session(body) {
  const host = await start();
  try {
    await body(host);
  } finally {
    await host.shutdown().catch(() => {});
    await host.finished;
  }
}

test("the registration lines equal the Rust README's", async () => {
  await session(async (host) => {
    const want = readmeLines();
    assert.ok(want.length > 20, "README block found");
    assert.deepEqual(await host.transcript(), want);
  });
});

test("commands", async () => {
  await session(async (host) => {
    assert.equal((await host.command("echo", "a  b")).display, "a  b");
    assert.equal((await host.command("Greet", "Ada")).prompt, "Hello, Ada");
    assert.equal((await host.command("insert", "text")).insert, "text");
    assert.equal((await host.command("cwd")).display, "/proj");
    assert.equal((await host.command("datadir")).display, "/data");
    const oops = await host.command("oops", "x");
    assert.deepEqual([oops.action, oops.error], ["noop", "command failed: x"]);
    await host.command("commit", "msg");
    assert.equal(
      (await host.transcript()).at(-1),
      '{"type":"command_response","id":"cmd-7","action":"tool_prompt","prompt":"and push","tool_name":"echo","tool_args":{"text":"msg"}}',
    );
    await host.command("note", "hello");
    await host.command("clear");
    await host.command("submit", "go on");
    assert.deepEqual((await host.transcript()).slice(-6), [
      '{"type":"notify","level":"info","message":"hello"}',
      '{"type":"command_response","id":"cmd-8","action":"noop"}',
      '{"type":"clear_notes"}',
      '{"type":"command_response","id":"cmd-9","action":"noop"}',
      '{"type":"submit","text":"go on"}',
      '{"type":"command_response","id":"cmd-10","action":"noop"}',
    ]);
  });
});

test("panel counter", async () => {
  const host = await start();
  await host.command("panel");
  assert.ok(
    (await host.transcript())
      .at(-1)
      .endsWith(
        '"action":"open_panel","open_panel":{"id":"conf-panel","title":"Counter","lines":["0"],"footer":"up/down - q quits"}}',
      ),
  );
  for (const k of ["up", "up", "down", "left"]) {
    await host.panelKey("conf-panel", k);
  }
  await host.panelKey("conf-panel", "rune", "q");
  const lines = [];
  for (let i = 0; i < 4; i++) {
    lines.push(await host.nextFrameJson());
  }
  assert.deepEqual(lines, [
    '{"type":"panel_render","panel_id":"conf-panel","lines":["1"]}',
    '{"type":"panel_render","panel_id":"conf-panel","lines":["2"]}',
    '{"type":"panel_render","panel_id":"conf-panel","lines":["1"]}',
    '{"type":"panel_close","panel_id":"conf-panel"}',
  ]);
  // Reopen, then the host closes it: later keys are ignored.
  await host.command("panel");
  await host.panelClose("conf-panel");
  await host.panelKey("conf-panel", "up");
  assert.deepEqual(await host.shutdown(), [{ type: "shutdown_ack" }]);
  await host.finished;
});

test("tools", async () => {
  await session(async (host) => {
    assert.equal(text(await host.tool("echo", { text: "hi" })), "hi");
    // The engine checks the arguments against the schema first.
    for (const [bad, why] of [
      [{}, "missing field `text`"],
      [{ text: 5 }, 'field `text`: 5 is not of type "string"'],
    ]) {
      const r = await host.tool("echo", bad);
      assert.deepEqual([r.is_error, text(r)], [true, `invalid arguments: ${why}`]);
    }
    const add = await host.tool("add", { a: 2, b: 40 });
    assert.equal(text(add), "sum=42");
    assert.deepEqual(add.structured_content, { sum: 42 });
    const fail = await host.tool("fail");
    assert.ok(fail.is_error && text(fail).includes("boom"));
    assert.equal(text(await host.tool("lazy")), "lazy ok");
    const loader = await host.tool("loader");
    assert.deepEqual([text(loader), loader.activate_tools], ["loaded", ["lazy"]]);
    const id = await host.startTool("image");
    await host.toolResult(id);
    assert.equal(
      (await host.transcript()).at(-1),
      `{"type":"tool_result","id":"${id}","content":[{"type":"text","text":"image"},{"type":"image","mime_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}]}`,
    );
    assert.equal(text(await host.tool("big", { bytes: 1000 })), "x".repeat(1000));
  });
});

test("sleep completes or is cancelled; ask waits until cancelled", async () => {
  const host = await start();
  assert.equal(text(await host.tool("sleep", { ms: 25 })), "slept 25");
  const id = await host.startTool("sleep", { ms: 60000 });
  const ask = await host.startTool("ask");
  await host.cancelTool(id);
  assert.deepEqual(await host.nextFrame(), { type: "notify", level: "warn", message: "cancelled 60000" });
  await host.cancelTool(ask);
  assert.deepEqual(await host.nextFrame(), { type: "notify", level: "warn", message: "ask cancelled" });
  // Shutdown cancels a running sleep too, before the ack.
  await host.startTool("sleep", { ms: 60000 });
  const lines = (await host.shutdown()).map((f) => JSON.stringify(f));
  assert.deepEqual(lines, ['{"type":"notify","level":"warn","message":"cancelled 60000"}', '{"type":"shutdown_ack"}']);
  await host.finished;
});

test("compose and callecho use call_tool", async () => {
  await session(async (host) => {
    let id = await host.startTool("compose", { text: "hi" });
    let call = await host.expectCallTool();
    assert.deepEqual([call.name, call.parent_id, call.args], ["echo", id, { text: "inner:hi" }]);
    await host.answerCall(call, "inner:hi");
    assert.equal(text(await host.toolResult(id)), "composed:inner:hi");

    id = await host.startTool("compose", { text: "x" });
    call = await host.expectCallTool();
    await host.answerCall(call, "echo failed", true);
    const r = await host.toolResult(id);
    assert.deepEqual([r.is_error, text(r)], [true, "echo failed"]);

    await host.sendJson('{"type":"command_invoked","id":"c","name":"callecho","args":"yo"}');
    call = await host.expectCallTool();
    assert.equal(call.parent_id, undefined);
    assert.deepEqual(call.args, { text: "yo" });
    await host.answerCall(call, "yo");
    assert.equal((await host.commandResponse("c")).display, "called:yo");

    await host.sendJson('{"type":"command_invoked","id":"d","name":"callecho","args":"no"}');
    await host.answerCall(await host.expectCallTool(), "refused", true);
    assert.equal((await host.commandResponse("d")).display, "call failed:refused");
  });
});

test("interceptors", async () => {
  const cases = [
    [
      '{"type":"event_intercept","id":"1","event":"tool_call","tool_name":"bash","tool_args":{"command":"sudo rm -rf /"}}',
      '{"type":"event_intercept_response","id":"1","block":true,"reason":"refused: rm -rf"}',
    ],
    [
      '{"type":"event_intercept","id":"2","event":"tool_call","tool_name":"bash","tool_args":{"command":"ls"}}',
      '{"type":"event_intercept_response","id":"2","modified_args":{"command":"echo GUARDED: ls"}}',
    ],
    [
      '{"type":"event_intercept","id":"3","event":"tool_call","tool_name":"read","tool_args":{"command":"ls"}}',
      '{"type":"event_intercept_response","id":"3"}',
    ],
    [
      '{"type":"event_intercept","id":"4","event":"turn_start","step":99}',
      '{"type":"event_intercept_response","id":"4","block":true,"reason":"step limit"}',
    ],
    [
      '{"type":"event_intercept","id":"5","event":"turn_start","step":98}',
      '{"type":"event_intercept_response","id":"5"}',
    ],
    [
      '{"type":"event_intercept","id":"6","event":"assistant_message","text":"BLOCKME"}',
      '{"type":"event_intercept_response","id":"6","block":true,"reason":"blocked"}',
    ],
    [
      '{"type":"event_intercept","id":"7","event":"assistant_message","text":"a SECRET and SECRET"}',
      '{"type":"event_intercept_response","id":"7","replace_text":"a [redacted] and [redacted]"}',
    ],
    [
      '{"type":"event_intercept","id":"8","event":"assistant_message","text":"fine"}',
      '{"type":"event_intercept_response","id":"8"}',
    ],
    [
      '{"type":"event_intercept","id":"9","event":"before_agent_start","system_prompt":"KEEP this"}',
      '{"type":"event_intercept_response","id":"9"}',
    ],
    [
      '{"type":"event_intercept","id":"10","event":"before_agent_start","system_prompt":"REMOVE this"}',
      '{"type":"event_intercept_response","system_prompt":"","id":"10"}',
    ],
    [
      '{"type":"event_intercept","id":"11","event":"before_agent_start","system_prompt":"Base"}',
      '{"type":"event_intercept_response","system_prompt":"Base\\n[conformance]","id":"11"}',
    ],
  ];
  await session(async (host) => {
    for (const [req, want] of cases) {
      await host.intercept(JSON.parse(req));
      assert.equal((await host.transcript()).at(-1), want);
    }
  });
});

test("events are recorded in arrival order", async () => {
  await session(async (host) => {
    for (const ev of [
      '{"type":"event","event":"session_start","session_id":"s","cwd":"/","sequence":1}',
      '{"type":"event","event":"turn_start","step":1,"sequence":2}',
      '{"type":"event","event":"some_future_event","sequence":3}',
      '{"type":"event","event":"tool_result","status":"completed","tool_id":"t","tool_name":"x","executed":false,"result":{"content":[],"is_error":false},"sequence":4}',
      '{"type":"event","event":"session_end","reason":"shutdown","sequence":5}',
    ]) {
      await host.sendJson(ev);
    }
    assert.equal(
      (await host.command("events")).display,
      '{"count":4,"last":["session_start","turn_start","tool_result","session_end"]}',
    );
  });
});

test("EOF ends the extension, cancelling running handlers", async () => {
  const host = await start();
  await host.startTool("ask");
  assert.deepEqual(await host.closeStdin(), [{ type: "notify", level: "warn", message: "ask cancelled" }]);
  await host.finished;
});
