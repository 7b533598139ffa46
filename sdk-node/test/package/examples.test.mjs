// The Node examples (examples/node): in-process through `zot-ext/testing`,
// and started from their extension.json as a host would (clock has no SDK;
// scratchpad is TypeScript run from source).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";

import { TestHost } from "zot-ext/testing";

import { examplesDir, noUnhandled, text } from "./helpers.mjs";

after(noUnhandled());

const load = async (name) => (await import(pathToFileURL(join(examplesDir, name, "index.mjs")).href)).extension;

async function session(ext, body, options) {
  const host = await TestHost.start(ext, options);
  try {
    await body(host);
  } finally {
    await host.shutdown().catch(() => {});
    await host.finished;
  }
}

/**
 * Runs an example as the host does (HOST-14: its directory as working
 * directory, `exec` + `args`), feeds it `frames` one at a time, waiting for
 * `replies(frame)` lines after each, then closes stdin. Returns every line.
 */
async function scripted(name, steps) {
  const dir = join(examplesDir, name);
  const manifest = JSON.parse(readFileSync(join(dir, "extension.json"), "utf8"));
  const exec = manifest.exec === "node" ? process.execPath : manifest.exec;
  const proc = spawn(exec, manifest.args ?? [], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  // Once it exited and its output was read to the end ("exit" may come first).
  let closed = false;
  const exited = new Promise((resolve) =>
    proc.on("close", (code) => {
      closed = true;
      resolve(code);
    }),
  );
  const out = [];
  const waiters = [];
  createInterface({ input: proc.stdout }).on("line", (l) => {
    out.push(l);
    for (const w of waiters.splice(0)) w();
  });
  const until = async (n) => {
    while (out.length < n) {
      await Promise.race([new Promise((r) => waiters.push(r)), exited]);
      if (closed && out.length < n) throw new Error(`${name} exited early: ${stderr}`);
    }
  };
  let expected = 0;
  for (const [frame, lines] of steps) {
    proc.stdin.write(`${JSON.stringify(frame)}\n`);
    expected += lines;
    await until(expected);
  }
  proc.stdin.end();
  assert.equal(await exited, 0, stderr);
  return out;
}

describe("clock (no SDK)", () => {
  test("registers its commands, answers them, exits on EOF", async () => {
    const out = await scripted("clock", [
      [{ type: "hello_ack", protocol_version: 1 }, 5],
      [{ type: "command_invoked", id: "1", name: "date", args: "" }, 1],
      [{ type: "command_invoked", id: "2", name: "nope", args: "" }, 1],
    ]);
    assert.equal(out[0], '{"type":"hello","name":"clock","version":"0.1.0","capabilities":["commands"]}');
    assert.deepEqual(
      out.slice(1, 5).map((l) => JSON.parse(l).name ?? JSON.parse(l).type),
      ["time", "date", "utc", "ready"],
    );
    assert.equal(JSON.parse(out[5]).display, new Date().toISOString().slice(0, 10));
    assert.equal(JSON.parse(out[6]).error, "no handler for /nope");
  });

  test("answers shutdown", async () => {
    const out = await scripted("clock", [
      [{ type: "hello_ack", protocol_version: 1 }, 5],
      [{ type: "shutdown" }, 1],
    ]);
    assert.equal(out.at(-1), '{"type":"shutdown_ack"}');
  });
});

describe("scratchpad (TypeScript from source)", () => {
  test("commands and the tool share the scratchpad, saved in data_dir", async () => {
    const data = mkdtempSync(join(tmpdir(), "scratchpad-"));
    try {
      const out = await scripted("scratchpad", [
        [{ type: "hello_ack", protocol_version: 1, data_dir: data }, 6],
        [{ type: "command_invoked", id: "1", name: "jot", args: "buy milk" }, 1],
        [{ type: "tool_call", id: "t", name: "scratchpad", args: { action: "append", text: "call Ada" } }, 1],
        [{ type: "tool_call", id: "u", name: "scratchpad", args: { action: "shout" } }, 1],
        [{ type: "command_invoked", id: "2", name: "pad", args: "" }, 1],
        [{ type: "shutdown" }, 1],
      ]);
      assert.deepEqual(JSON.parse(out[4]).schema.required, ["action"]);
      assert.equal(out[6], '{"type":"command_response","id":"1","action":"display","display":"noted (1)"}');
      assert.equal(text(JSON.parse(out[7])), "appended line 2");
      assert.equal(JSON.parse(out[8]).is_error, true);
      assert.equal(JSON.parse(out[9]).display, "1. buy milk\n2. call Ada");
      assert.equal(readFileSync(join(data, "scratchpad.txt"), "utf8"), "buy milk\ncall Ada\n");
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});

describe("weather", () => {
  test("forecast: text, structured content, checked arguments", async () => {
    await session((await load("weather"))(), async (host) => {
      const tool = host.registration.tools[0];
      assert.equal(tool.name, "forecast");
      assert.deepEqual(tool.schema.required, ["city"]);
      const r = await host.tool("forecast", { city: "Lisbon", days: 2 });
      assert.equal(r.is_error, undefined);
      assert.equal(r.structured_content.city, "Lisbon");
      assert.equal(r.structured_content.days.length, 2);
      assert.match(text(r), /^Lisbon:\nday 1: \d+ °C, \w+\nday 2: \d+ °C, \w+$/);
      assert.equal(text(await host.tool("forecast", {})), "invalid arguments: missing field `city`");
      assert.equal(
        text(await host.tool("forecast", { city: "x", days: 9 })),
        "invalid arguments: field `days`: 9 is greater than the maximum of 7",
      );
    });
  });
});

describe("guard", () => {
  test("blocks, rewrites, redacts, limits and fails closed", async () => {
    await session((await load("guard"))(), async (host) => {
      const ask = (req) => host.intercept(req);
      const rm = await ask({ event: "tool_call", tool_name: "bash", tool_args: { command: "rm -rf ~" } });
      assert.ok(rm.block && rm.reason.includes("rm -rf"));
      assert.deepEqual(
        (await ask({ event: "tool_call", tool_name: "bash", tool_args: { command: "ls" } })).modified_args,
        {
          command: "ls -la",
        },
      );
      const broken = await ask({ event: "tool_call", tool_name: "bash", tool_args: { cmd: 1 } });
      assert.ok(broken.block && broken.reason.includes("command"));
      assert.equal((await ask({ event: "turn_start", step: 51 })).block, true);
      assert.equal(
        (await ask({ event: "assistant_message", text: "key sk-abcdefghijklmnopqrstuvwxyz ok" })).replace_text,
        "key [redacted key] ok",
      );
      assert.match((await ask({ event: "before_agent_start", system_prompt: "Base" })).system_prompt, /^Base\n\nNever/);
    });
  });
});

describe("ask-user", () => {
  async function open(host) {
    const id = await host.startTool("ask_user", { question: "Deploy?", choices: ["yes", "no"] });
    const p = await host.waitFor("open_panel");
    assert.deepEqual([p.panel.title, p.panel.lines], ["Deploy?", ["▸ yes", "  no"]]);
    return [id, p.panel.id];
  }

  test("answer, dismiss and cancel", async () => {
    await session((await load("ask-user"))(), async (host) => {
      assert.equal(host.registration.tools[0].interactive, true);
      let [id, panel] = await open(host);
      await host.panelKey(panel, "down");
      await host.panelKey(panel, "enter");
      assert.equal(text(await host.toolResult(id)), "The user chose: no");
      assert.deepEqual(await host.waitFor("panel_close"), { type: "panel_close", panel_id: panel });

      [id, panel] = await open(host);
      await host.panelClose(panel);
      const dismissed = await host.toolResult(id);
      assert.deepEqual([dismissed.is_error, text(dismissed)], [true, "the user dismissed the question"]);

      [id, panel] = await open(host);
      await host.cancelTool(id);
      assert.deepEqual(await host.waitFor("panel_close"), { type: "panel_close", panel_id: panel });
    });
  });
});

describe("composer", () => {
  test("reads through the host with parent ids and durable keys", async () => {
    const ack = { capabilities: ["call_tool", "call_tool_durable"] };
    await session(
      (await load("composer"))(),
      async (host) => {
        const id = await host.startTool("read_many", { paths: ["a.txt", "b.txt"] });
        const a = await host.expectCallTool();
        const b = await host.expectCallTool();
        assert.deepEqual([a.parent_id, a.key, b.parent_id, b.key], [id, "read-0", id, "read-1"]);
        await host.answerCall(b, "no such file", true);
        await host.answerCall(a, "alpha");
        const r = await host.toolResult(id);
        assert.equal(r.is_error, undefined);
        assert.equal(text(r), "== a.txt ==\nalpha\n== b.txt == failed: no such file");

        await host.send({ type: "command_invoked", id: "wc", name: "wc", args: "a.txt" });
        await host.answerCall(await host.expectCallTool(), "one\ntwo\n");
        assert.equal((await host.commandResponse("wc")).display, "a.txt: 2 lines");
      },
      { ack },
    );
  });

  test("commands fail cleanly without call_tool support", async () => {
    await session(
      (await load("composer"))(),
      async (host) => {
        assert.equal((await host.command("wc", "a.txt")).error, "read not done: the host does not support call_tool");
      },
      { ack: { capabilities: [] } },
    );
  });
});
