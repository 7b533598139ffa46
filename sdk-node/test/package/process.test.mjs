// Extensions as real child processes over stdin/stdout: the conformance
// extension's registration lines, exit on EOF and on shutdown with no
// handle left open, stdout protection, CommonJS, a failed handshake.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";

import { conformanceDir, fixtures, noUnhandled, readmeLines } from "./helpers.mjs";

after(noUnhandled());

const ACK = { type: "hello_ack", protocol_version: 1, capabilities: ["call_tool"], cwd: "/proj", data_dir: "/data" };

/** Spawns `node <script>` in `cwd` with piped stdio (and `env` added). */
function child(script, cwd, env = {}) {
  const proc = spawn(process.execPath, [script], {
    cwd,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const lines = [];
  const waiters = [];
  createInterface({ input: proc.stdout }).on("line", (line) => {
    const w = waiters.shift();
    if (w) {
      w(line);
    } else {
      lines.push(line);
    }
  });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  // The exit, reported once stdout and stderr were read to their end ("exit"
  // may come before their last data); `at` is when it exited.
  let exitedAt = 0;
  proc.on("exit", () => (exitedAt = Date.now()));
  const exited = new Promise((resolve) =>
    proc.on("close", (code, signal) => resolve({ code, signal, at: exitedAt || Date.now() })),
  );
  return {
    proc,
    send: (frame) => proc.stdin.write(`${typeof frame === "string" ? frame : JSON.stringify(frame)}\n`),
    line: () =>
      lines.length > 0
        ? Promise.resolve(lines.shift())
        : new Promise((resolve, reject) => {
            waiters.push(resolve);
            exited.then(() => reject(new Error(`exited; stderr: ${stderr}`)));
          }),
    /** Lines until one satisfies `pick` (returned); the others are dropped. */
    async until(pick) {
      for (;;) {
        const l = await this.line();
        if (pick(JSON.parse(l))) return l;
      }
    },
    rest: async () => {
      await exited;
      return lines.splice(0);
    },
    exited,
    stderr: () => stderr,
  };
}

async function handshake(c) {
  const got = [await c.line()];
  c.send(ACK);
  while (got.at(-1) !== '{"type":"ready"}') {
    got.push(await c.line());
  }
  return got;
}

test("the conformance extension registers the Rust README's lines over stdio", async () => {
  const c = child("index.mjs", conformanceDir);
  assert.deepEqual(await handshake(c), readmeLines());
  c.proc.stdin.end();
  assert.equal((await c.exited).code, 0);
  assert.match(c.stderr(), /^\[conformance\] conformance started$/m);
});

test("EOF cancels a running tool and exits 0 within a second, with no handle left open", async () => {
  const c = child("index.mjs", conformanceDir);
  await handshake(c);
  c.send({ type: "tool_call", id: "t1", name: "sleep", args: { ms: 60000 } });
  c.send({ type: "command_invoked", id: "c1", name: "echo", args: "hi" });
  await c.until((f) => f.type === "command_response");
  const t0 = Date.now();
  c.proc.stdin.end();
  const { code, at } = await c.exited;
  assert.equal(code, 0);
  assert.ok(at - t0 < 1000, `exited after ${at - t0} ms`);
  assert.deepEqual(await c.rest(), ['{"type":"notify","level":"warn","message":"cancelled 60000"}']);
  // It ended by itself, not through the engine's watchdog.
  assert.doesNotMatch(c.stderr(), /watchdog/);
});

test("shutdown cancels running tools, answers shutdown_ack and exits 0 within a second", async () => {
  const c = child("index.mjs", conformanceDir);
  await handshake(c);
  c.send({ type: "tool_call", id: "t1", name: "ask", args: {} });
  c.send({ type: "tool_call", id: "t2", name: "sleep", args: { ms: 60000 } });
  c.send({ type: "tool_call", id: "t3", name: "echo", args: { text: "x" } });
  await c.until((f) => f.type === "tool_result");
  const t0 = Date.now();
  c.send({ type: "shutdown" });
  const { code, at } = await c.exited;
  assert.equal(code, 0);
  assert.ok(at - t0 < 1000, `exited after ${at - t0} ms`);
  const rest = await c.rest();
  assert.equal(rest.at(-1), '{"type":"shutdown_ack"}');
  assert.deepEqual(rest.slice(0, -1).sort(), [
    '{"type":"notify","level":"warn","message":"ask cancelled"}',
    '{"type":"notify","level":"warn","message":"cancelled 60000"}',
  ]);
  assert.doesNotMatch(c.stderr(), /watchdog/);
});

test("stdout belongs to the wire: console.log lands on stderr", async () => {
  const c = child(join(fixtures, "printer.mjs"), conformanceDir);
  await handshake(c);
  c.send({ type: "command_invoked", id: "p", name: "print", args: "x" });
  assert.equal(await c.line(), '{"type":"command_response","id":"p","action":"display","display":"x"}');
  c.proc.stdin.end();
  assert.equal((await c.exited).code, 0);
  assert.deepEqual(await c.rest(), []);
  assert.match(c.stderr(), /console\.log x\nstdout\.write x/);
});

test("zot-ext/protect-stdout: output printed while loading lands on stderr, hello stays first", async () => {
  const c = child(join(fixtures, "early-printer.mjs"), conformanceDir);
  const lines = await handshake(c);
  assert.match(lines[0], /^\{"type":"hello","name":"early"/);
  c.proc.stdin.end();
  assert.equal((await c.exited).code, 0);
  assert.deepEqual(await c.rest(), []);
  assert.match(c.stderr(), /printed while loading/);
});

test("a CommonJS extension; a handler's leftover timer cannot keep it alive past the watchdog", async () => {
  const c = child(join(fixtures, "timer.cjs"), conformanceDir);
  await handshake(c);
  c.send({ type: "tool_call", id: "t", name: "forever", args: {} });
  assert.match(await c.line(), /"started"/);
  const t0 = Date.now();
  c.send({ type: "shutdown" });
  const { code, at } = await c.exited;
  assert.equal(code, 0);
  assert.ok(at - t0 < 2000, `exited after ${at - t0} ms (the host's grace is 2 s)`);
  assert.deepEqual(await c.rest(), ['{"type":"shutdown_ack"}']);
  assert.match(c.stderr(), /run resolved/);
});

test("a first line that is not hello_ack fails the handshake: run() rejects", async () => {
  const c = child("index.mjs", conformanceDir);
  assert.match(await c.line(), /^\{"type":"hello"/);
  c.send({ type: "shutdown" });
  const { code } = await c.exited;
  assert.equal(code, 1);
  assert.match(c.stderr(), /handshake failed/);
});

test("calls nested 1,000 and 100,000 deep are refused by the engine; the call in the same write is answered", async () => {
  const MAX_FRAME_DEPTH = 128; // zot_protocol::limits
  const deep = (id, levels) =>
    `{"type":"tool_call","id":"${id}","name":"echo","args":{"text":"x","deep":${"[".repeat(levels)}${"]".repeat(levels)}}}`;
  const c = child("index.mjs", conformanceDir);
  await handshake(c);
  c.send(
    [
      deep("deep-1k", 1000),
      deep("deep-100k", 100000),
      '{"type":"tool_call","id":"ok","name":"echo","args":{"text":"hi"}}',
    ].join("\n"),
  );
  const got = {};
  while (Object.keys(got).length < 3) {
    const f = JSON.parse(await c.until((f) => f.type === "tool_result"));
    got[f.id] = f;
  }
  assert.deepEqual(got.ok, { type: "tool_result", id: "ok", content: [{ type: "text", text: "hi" }] });
  for (const id of ["deep-1k", "deep-100k"]) {
    assert.equal(got[id].is_error, true, JSON.stringify(got[id]));
    assert.match(
      got[id].content[0].text,
      new RegExp(`^tool_call refused: .*nested deeper than ${MAX_FRAME_DEPTH} levels`),
    );
  }
  c.send({ type: "shutdown" });
  assert.equal((await c.exited).code, 0);
  assert.deepEqual(await c.rest(), ['{"type":"shutdown_ack"}']);
});

/** Echo calls, each after the last one's result, until the process exits (50 at most). */
async function echoUntilExit(c) {
  for (let i = 0; i < 50; i++) {
    c.send({ type: "tool_call", id: `e${i}`, name: "echo", args: { text: "x" } });
    try {
      await c.until((f) => f.type === "tool_result" && f.id === `e${i}`);
    } catch {
      return; // exited
    }
  }
}

// Issue 13: a panic in the engine ends the process with one line and status
// 70. The test-only fault hook makes the engine's reader (the one read path)
// panic on the first frame after the handshake.
for (const [fault, what] of [["reader-panic", "reader panicked: injected fault: the reader panics"]]) {
  test(`a panic in the engine (${fault}) is one line on stderr and exit status 70, not a hang`, {
    timeout: 20000,
  }, async () => {
    const c = child("index.mjs", conformanceDir, { ZOT_EXT_TEST_FAULT: fault });
    await handshake(c);
    await echoUntilExit(c);
    const { code } = await c.exited;
    assert.equal(code, 70, c.stderr());
    assert.deepEqual(await c.rest(), []);
    assert.deepEqual(
      c
        .stderr()
        .split("\n")
        .filter((l) => l.startsWith("[conformance] internal error")),
      [
        `[conformance] internal error: the engine's ${what} after the handshake (ZOT_EXT_TEST_FAULT); exiting with status 70`,
      ],
    );
  });
}
