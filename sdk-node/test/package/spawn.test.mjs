// `TestHost.spawn`: the testing harness driving an extension *process* over
// its stdin and stdout: the Rust conformance extension (its registration
// lines, a command, a tool, a call_tool round trip, a clean exit), the Node
// one started with `node`, and the errors that name the command.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";

import { TestHost } from "zot-ext/testing";

import { conformanceDir, noUnhandled, readmeLines, repo, text } from "./helpers.mjs";

after(noUnhandled());

const rustBin =
  process.env.ZOT_EXT_RUST_CONFORMANCE ??
  join(repo, "target", "debug", process.platform === "win32" ? "conformance-rust.exe" : "conformance-rust");
const noRust = existsSync(rustBin) ? false : `${rustBin} is not built (cargo build -p conformance-rust)`;

test("drives the Rust conformance extension as a process", { skip: noRust }, async () => {
  const host = await TestHost.spawn(rustBin, [], { ack: { cwd: "/proj" } });
  try {
    assert.deepEqual(await host.transcript(), readmeLines());
    assert.equal((await host.command("echo", "a  b")).display, "a  b");
    assert.equal((await host.command("cwd")).display, "/proj");
    assert.equal(text(await host.tool("add", { a: 2, b: 40 })), "sum=42");
    const id = await host.startTool("compose", { text: "hi" });
    const call = await host.expectCallTool();
    assert.equal(call.name, "echo");
    await host.answerCall(call, "inner:hi");
    assert.equal((await host.toolResult(id)).is_error, undefined);
    const frames = await host.shutdown();
    assert.equal(frames.at(-1).type, "shutdown_ack");
    await host.finished;
  } finally {
    await host.close();
  }
});

test("drives a Node extension started with node, with cwd and env", async () => {
  const host = await TestHost.spawn(process.execPath, ["index.mjs"], {
    cwd: conformanceDir,
    env: { ...process.env, ZOT_TEST_MARK: "1" },
  });
  assert.equal(host.registration.hello.name, "conformance");
  assert.equal((await host.command("Greet", "Ada")).prompt, "Hello, Ada");
  await host.closeStdin();
  await host.finished;
  assert.equal(await host.stderr(), "[conformance] conformance started\n");
});

test("close() kills a process that still runs", async () => {
  const host = await TestHost.spawn(process.execPath, ["index.mjs"], { cwd: conformanceDir });
  await host.startTool("sleep", { ms: 60000 });
  await host.close();
  await assert.rejects(host.finished, /index\.mjs (was killed by a signal|exited with code 1)$/);
});

test("an exit before hello names the command, its exit code and its stderr", async () => {
  const script = "console.error('boom: no config'); process.exit(3)";
  await assert.rejects(TestHost.spawn(process.execPath, ["-e", script]), (e) => {
    assert.ok(e.message.includes(`\`${process.execPath} -e ${script}\`: closed its output before hello`), e.message);
    assert.match(e.message, /it exited \(exit (status|code): 3\)/);
    assert.ok(e.message.endsWith("its stderr:\nboom: no config"), e.message);
    return true;
  });
});

test("a command that cannot start is named", async () => {
  await assert.rejects(TestHost.spawn("zot-no-such-extension-binary", ["--flag"]), (e) => {
    assert.ok(e.message.startsWith("cannot start `zot-no-such-extension-binary --flag`: "), e.message);
    return true;
  });
});

test("a crash mid-session names the command, its exit code and its stderr", async () => {
  const script = `
    import { Extension } from "zot-ext";
    await new Extension("crashing", "1.0.0")
      .command("crash", "Exit at once", () => {
        process.stderr.write("crashing on purpose\\n", () => process.exit(5));
        return new Promise(() => {});
      })
      .run();
  `;
  // Run where the package resolves (the conformance extension's directory).
  const host = await TestHost.spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: conformanceDir });
  try {
    await assert.rejects(host.command("crash"), (e) => {
      assert.match(e.message, /`: the extension closed its output; it exited \(exit (status|code): 5\)/);
      assert.ok(e.message.endsWith("its stderr:\ncrashing on purpose"), e.message);
      return true;
    });
  } finally {
    await host.close();
  }
});
