// The public API, driven in-process through `zot-ext/testing`: sync and
// async handlers, handler errors, cancellation reaching `ctx.signal`,
// callTool, typed event payloads, interceptors, panels and the spontaneous
// frames.

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";

import {
  CallToolError,
  Extension,
  firstText,
  MessageVerdict,
  PromptVerdict,
  RegistrationError,
  Response,
  ToolCallVerdict,
  ToolOutput,
  TurnVerdict,
} from "zot-ext";
import { TestHost } from "zot-ext/testing";

import { delay, noUnhandled, text } from "./helpers.mjs";

after(noUnhandled());

/** Starts `ext`, runs `body(host)`, then always shuts the session down. */
async function withHost(ext, body, options) {
  const host = await TestHost.start(ext, options);
  try {
    return await body(host);
  } finally {
    await host.shutdown().catch(() => {});
    await host.finished;
  }
}

describe("commands", () => {
  test("sync, async, void and plain-object responses", async () => {
    const ext = new Extension("cmds", "1.0.0")
      .command("sync", "", (args) => Response.display(`sync ${args}`))
      .command("async", "", async (args) => {
        await delay(5);
        return Response.prompt(`async ${args}`);
      })
      .command("void", "", () => {})
      .command("plain", "", () => ({ action: "insert", insert: "plain" }))
      .command("tp", "", () => Response.toolPrompt("echo", { text: "x" }, "go"))
      .command("badtp", "", () => Response.toolPrompt("", { text: "x" }, "go"));
    await withHost(ext, async (host) => {
      assert.equal((await host.command("sync", "a")).display, "sync a");
      assert.equal((await host.command("async", "b")).prompt, "async b");
      assert.deepEqual(await host.command("void"), { type: "command_response", id: "cmd-3", action: "noop" });
      assert.equal((await host.command("plain")).insert, "plain");
      assert.deepEqual(await host.command("tp"), {
        type: "command_response",
        id: "cmd-5",
        action: "tool_prompt",
        prompt: "go",
        tool_name: "echo",
        tool_args: { text: "x" },
      });
      // SDK-18: the engine never sends an invalid tool_prompt.
      const bad = await host.command("badtp");
      assert.equal(bad.action, "noop");
      assert.ok(bad.error.length > 0);
    });
  });

  test("a thrown error (sync or async) answers noop with its message; the extension lives on", async () => {
    const ext = new Extension("cmds", "1.0.0")
      .command("throws", "", () => {
        throw new Error("sync failure");
      })
      .command("rejects", "", async () => {
        await delay(1);
        throw new Error("async failure");
      })
      .command("string", "", () => {
        throw "a string"; // eslint-disable-line no-throw-literal
      })
      .command("ok", "", () => Response.display("still here"));
    await withHost(ext, async (host) => {
      assert.deepEqual(await host.command("throws"), {
        type: "command_response",
        id: "cmd-1",
        action: "noop",
        error: "sync failure",
      });
      assert.equal((await host.command("rejects")).error, "async failure");
      assert.equal((await host.command("string")).error, "a string");
      assert.equal((await host.command("nope")).error, "no handler for /nope");
      assert.equal((await host.command("ok")).display, "still here");
    });
  });

  test("commands run concurrently", async () => {
    let release;
    const gate = new Promise((r) => (release = r));
    const ext = new Extension("cmds", "1.0.0")
      .command("wait", "", async () => {
        await gate;
        return Response.display("released");
      })
      .command("go", "", () => {
        release();
        return Response.display("go");
      });
    await withHost(ext, async (host) => {
      await host.send({ type: "command_invoked", id: "w", name: "wait", args: "" });
      assert.equal((await host.command("go")).display, "go");
      assert.equal((await host.commandResponse("w")).display, "released");
    });
  });
});

describe("tools", () => {
  test("results: ToolOutput, string, wire object, structured, image, activate", async () => {
    const ext = new Extension("tools", "1.0.0")
      .tool({ name: "text" }, () => ToolOutput.text("t"))
      .tool({ name: "string" }, async () => "s")
      .tool({ name: "wire" }, () => ({ content: [{ type: "text", text: "w" }], is_error: true }))
      .tool({ name: "void" }, () => {})
      .tool({ name: "structured" }, () => ToolOutput.structured({ b: 1, a: [2] }))
      .tool({ name: "image" }, () =>
        ToolOutput.image("image/png", new Uint8Array([1, 2, 3])).withImage("image/gif", "AAAA"),
      )
      .tool({ name: "lazy", deferred: true }, () => "lazy")
      .tool({ name: "loader" }, () => ToolOutput.text("loaded").activate("lazy"))
      .tool({ name: "args" }, (args, ctx) => ToolOutput.text(`${JSON.stringify(args)} ${ctx.id}`));
    await withHost(ext, async (host) => {
      assert.equal(text(await host.tool("text")), "t");
      assert.equal(text(await host.tool("string")), "s");
      assert.deepEqual(await host.tool("wire"), {
        type: "tool_result",
        id: "tool-3",
        content: [{ type: "text", text: "w" }],
        is_error: true,
      });
      assert.deepEqual(await host.tool("void"), { type: "tool_result", id: "tool-4", content: [] });
      const s = await host.tool("structured");
      assert.equal(text(s), '{"b":1,"a":[2]}');
      assert.deepEqual(s.structured_content, { b: 1, a: [2] });
      assert.deepEqual((await host.tool("image")).content, [
        { type: "image", mime_type: "image/png", data: "AQID" },
        { type: "image", mime_type: "image/gif", data: "AAAA" },
      ]);
      assert.deepEqual((await host.tool("loader")).activate_tools, ["lazy"]);
      await host.startTool("args", { x: [1, { y: null }] }, "my-id");
      assert.equal(text(await host.toolResult("my-id")), '{"x":[1,{"y":null}]} my-id');
    });
  });

  test("a thrown error (sync or async) becomes is_error with its message", async () => {
    const ext = new Extension("tools", "1.0.0")
      .tool({ name: "throws" }, () => {
        throw new Error("boom");
      })
      .tool({ name: "rejects" }, async () => {
        await delay(1);
        throw new TypeError("async boom");
      })
      .tool({ name: "cyclic" }, () => {
        const o = { content: [] };
        o.self = o;
        return o;
      })
      .tool({ name: "ok" }, () => "ok");
    await withHost(ext, async (host) => {
      assert.deepEqual(await host.tool("throws"), {
        type: "tool_result",
        id: "tool-1",
        content: [{ type: "text", text: "boom" }],
        is_error: true,
      });
      assert.equal(text(await host.tool("rejects")), "async boom");
      const cyclic = await host.tool("cyclic");
      assert.equal(cyclic.is_error, true);
      assert.match(text(cyclic), /circular/i);
      assert.equal(text(await host.tool("nope")), 'no handler for tool "nope"');
      assert.equal(text(await host.tool("ok")), "ok");
    });
  });

  test("registration: every option reaches register_tool; mistakes throw at once", async () => {
    const ext = new Extension("tools", "1.0.0").tool(
      {
        name: "full",
        description: "d",
        schema: { type: "object", properties: { z: { type: "string" }, a: { type: "integer" } } },
        outputSchema: { type: "object" },
        namespace: "ns",
        namespaceDescription: "nd",
        namespaceInstructions: "ni",
        exposure: "direct",
        deferred: true,
        interactive: true,
      },
      () => "",
    );
    assert.throws(() => ext.tool({ name: "bad", schema: [] }, () => ""), /must be a JSON object/);
    assert.throws(() => ext.tool({ name: "" }, () => ""));
    assert.throws(() => ext.tool({ name: "x", exposure: "sideways" }, () => ""));
    assert.throws(() => ext.command("", "", () => {}));
    assert.throws(() => ext.command("has space", "", () => {}));
    assert.throws(() => ext.on("", () => {}));
    const host = await TestHost.start(ext);
    assert.equal(
      (await host.transcript())[1],
      '{"type":"register_tool","name":"full","description":"d","schema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}},"output_schema":{"type":"object"},"namespace":"ns","namespace_description":"nd","namespace_instructions":"ni","exposure":"direct","deferred":true,"interactive":true}',
    );
    assert.deepEqual(
      host.registration.tools.map((t) => t.name),
      ["full"],
    );
    await host.shutdown();
    await host.finished;
  });
});

describe("cancellation", () => {
  function cancellable() {
    return new Extension("cancel", "1.0.0").tool({ name: "wait", interactive: true }, async (_args, ctx) => {
      ctx.notify(`started aborted=${ctx.signal.aborted}`);
      if (!ctx.signal.aborted) {
        await new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }));
      }
      ctx.notify(`cancelled ${ctx.id}`, "warn");
      return "never sent";
    });
  }

  test("tool_cancel aborts ctx.signal; no tool_result is sent", async () => {
    await withHost(cancellable(), async (host) => {
      const id = await host.startTool("wait");
      assert.equal((await host.nextFrame()).message, "started aborted=false");
      await host.cancelTool(id);
      assert.deepEqual(await host.nextFrame(), { type: "notify", level: "warn", message: `cancelled ${id}` });
      // Unknown and finished ids are ignored.
      await host.cancelTool(id);
      await host.cancelTool("nope");
      assert.deepEqual(await host.shutdown(), [{ type: "shutdown_ack" }]);
    });
  });

  test("a cancel that arrives with its call aborts the signal right after the handler's synchronous start", async () => {
    // So that an `abort` listener registered at the start fires: an
    // already-aborted signal would never dispatch `abort` again.
    await withHost(cancellable(), async (host) => {
      await host.sendJson(
        '{"type":"tool_call","id":"early","name":"wait","args":{}}\n{"type":"tool_cancel","id":"early"}',
      );
      assert.equal((await host.nextFrame()).message, "started aborted=false");
      assert.deepEqual(await host.nextFrame(), { type: "notify", level: "warn", message: "cancelled early" });
    });
  });

  test("shutdown and EOF abort running handlers", async () => {
    for (const end of ["shutdown", "closeStdin"]) {
      const host = await TestHost.start(cancellable());
      const id = await host.startTool("wait");
      assert.equal((await host.nextFrame()).message, "started aborted=false");
      const frames = await host[end]();
      const expected = [{ type: "notify", level: "warn", message: `cancelled ${id}` }];
      if (end === "shutdown") {
        expected.push({ type: "shutdown_ack" });
      }
      assert.deepEqual(frames, expected, end);
      await host.finished;
    }
  });

  test("the interception deadline aborts the interceptor's signal", async () => {
    const ext = new Extension("slow", "1.0.0").interceptTurnStart(async (_req, ctx) => {
      await new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }));
      ctx.notify("deadline passed");
      return TurnVerdict.block("too late");
    });
    await withHost(
      ext,
      async (host) => {
        // After the deadline the host has moved on: the handler sees the
        // abort and its late answer is dropped.
        await host.send({ type: "event_intercept", id: "i", event: "turn_start", step: 1 });
        assert.equal((await host.waitFor("notify")).message, "deadline passed");
        assert.equal(await host.tryNextFrame(), undefined);
      },
      { engine: { interceptTimeoutMs: 50 } },
    );
  });
});

describe("duplicate ids", () => {
  // Issue 13: the engine answers a request with the id of a running one at
  // once with an error and leaves the running one alone.
  test("a second tool_call with a running call's id gets an error; the running call keeps its result and its cancel", async () => {
    let release;
    const ext = new Extension("dup", "1.0.0").tool({ name: "wait", interactive: true }, async (args, ctx) => {
      ctx.notify(`started ${args.n}`);
      const how = await new Promise((r) => {
        release = () => r("released");
        ctx.signal.addEventListener("abort", () => r("aborted"), { once: true });
      });
      if (how === "aborted") {
        ctx.notify(`cancelled ${args.n}`, "warn");
      }
      return `${how} ${args.n}`;
    });
    const duplicate = (id) => ({
      type: "tool_result",
      id,
      content: [
        {
          type: "text",
          text: `duplicate tool_call id "${id}": a request with this id is still running; this one was not run`,
        },
      ],
      is_error: true,
    });
    await withHost(ext, async (host) => {
      await host.startTool("wait", { n: 1 }, "t1");
      assert.equal((await host.nextFrame()).message, "started 1");
      await host.startTool("wait", { n: 2 }, "t1");
      assert.deepEqual(await host.nextFrame(), duplicate("t1"));
      release();
      assert.deepEqual(await host.nextFrame(), {
        type: "tool_result",
        id: "t1",
        content: [{ type: "text", text: "released 1" }],
      });

      await host.startTool("wait", { n: 3 }, "t2");
      assert.equal((await host.nextFrame()).message, "started 3");
      await host.startTool("wait", { n: 4 }, "t2");
      assert.deepEqual(await host.nextFrame(), duplicate("t2"));
      await host.cancelTool("t2");
      assert.deepEqual(await host.nextFrame(), { type: "notify", level: "warn", message: "cancelled 3" });
      // Nothing more: the cancelled call's answer is dropped (SDK-23).
      assert.deepEqual(await host.shutdown(), [{ type: "shutdown_ack" }]);
    });
  });
});

describe("callTool", () => {
  function caller(options) {
    return new Extension("caller", "1.0.0")
      .tool({ name: "compose" }, async (args, ctx) => {
        try {
          const r = await ctx.callTool("echo", { text: args.text }, options);
          return ToolOutput.text(`${r.is_error ? "error" : "ok"}:${firstText(r)}`);
        } catch (e) {
          assert.ok(e instanceof CallToolError);
          return ToolOutput.error(`${e.kind}:${e.message}`);
        }
      })
      .command("call", "", async (args, ctx) => {
        const r = await ctx.callTool("echo", { text: args });
        return Response.display(firstText(r));
      });
  }

  test("a context's members work destructured, bound to their own invocation", async () => {
    const ext = new Extension("bound", "1.0.0").tool({ name: "compose" }, async (args, { callTool, notify, id }) => {
      notify(`from ${id}`);
      const r = await callTool("echo", { text: args.text });
      return ToolOutput.text(`ok:${firstText(r)}`);
    });
    await withHost(ext, async (host) => {
      const id = await host.startTool("compose", { text: "hi" });
      assert.deepEqual(await host.nextFrame(), { type: "notify", level: "info", message: `from ${id}` });
      const call = await host.expectCallTool();
      assert.equal(call.parent_id, id, "the call is the destructuring invocation's child");
      await host.answerCall(call, "echoed", false);
      assert.equal(text(await host.toolResult(id)), "ok:echoed");
    });
  });

  test("results and tool errors; parent_id is the calling tool's id", async () => {
    await withHost(caller(), async (host) => {
      const id = await host.startTool("compose", { text: "hi" });
      const call = await host.expectCallTool();
      assert.equal(call.parent_id, id);
      assert.deepEqual(call.args, { text: "hi" });
      await host.answerCall(call, "echoed", false);
      assert.equal(text(await host.toolResult(id)), "ok:echoed");

      const id2 = await host.startTool("compose", { text: "x" });
      await host.answerCall(await host.expectCallTool(), "refused", true);
      assert.equal(text(await host.toolResult(id2)), "error:refused");

      // From a command: no parent_id.
      await host.send({ type: "command_invoked", id: "c", name: "call", args: "cmd" });
      const c = await host.expectCallTool();
      assert.equal(c.parent_id, undefined);
      await host.answerCall(c, "from command");
      assert.equal((await host.commandResponse("c")).display, "from command");
    });
  });

  test("a timeout rejects with kind timeout and sends call_tool_cancel", async () => {
    await withHost(caller({ timeoutMs: 30 }), async (host) => {
      const id = await host.startTool("compose", { text: "slow" });
      const call = await host.expectCallTool();
      const r = await host.toolResult(id);
      assert.equal(r.is_error, true);
      assert.match(text(r), /^timeout:call_tool echo timed out/);
      assert.deepEqual(await host.waitFor("call_tool_cancel"), { type: "call_tool_cancel", id: call.id });
      // A late answer is ignored.
      await host.answerCall(call, "late");
    });
  });

  test("an AbortSignal cancels the call; an aborted one sends nothing", async () => {
    const controller = new AbortController();
    const ext = new Extension("caller", "1.0.0")
      .tool({ name: "abortable" }, async (_args, ctx) => {
        const p = ctx.callTool("echo", {}, { signal: controller.signal });
        setTimeout(() => controller.abort(), 10);
        try {
          await p;
          return "answered";
        } catch (e) {
          return `${e.kind}`;
        }
      })
      .tool({ name: "preaborted" }, async (_args, ctx) => {
        try {
          await ctx.callTool("echo", {}, { signal: AbortSignal.abort() });
          return "answered";
        } catch (e) {
          return `${e.kind}`;
        }
      });
    await withHost(ext, async (host) => {
      const id = await host.startTool("abortable");
      const call = await host.expectCallTool();
      assert.equal(text(await host.toolResult(id)), "cancelled");
      assert.deepEqual(await host.waitFor("call_tool_cancel"), { type: "call_tool_cancel", id: call.id });
      assert.equal(text(await host.tool("preaborted")), "cancelled");
      assert.equal(await host.tryNextFrame(), undefined);
    });
  });

  test("cancelling the calling tool cancels its call", async () => {
    const ext = new Extension("caller", "1.0.0").tool({ name: "parent" }, async (_args, ctx) => {
      try {
        await ctx.callTool("echo", {});
      } catch (e) {
        ctx.notify(`${e.kind} aborted=${ctx.signal.aborted}`);
      }
    });
    await withHost(ext, async (host) => {
      const id = await host.startTool("parent");
      const call = await host.expectCallTool();
      await host.cancelTool(id);
      assert.deepEqual(await host.waitFor("call_tool_cancel"), { type: "call_tool_cancel", id: call.id });
      assert.equal((await host.waitFor("notify")).message, "cancelled aborted=true");
    });
  });

  test("hosts without call_tool, invalid keys and calls outside a session fail at once", async () => {
    assert.equal(await new Extension("x", "1").callTool("echo").catch((e) => e.kind), "not_ready");
    const ext = new Extension("caller", "1.0.0").tool({ name: "call" }, async (args, ctx) => {
      try {
        await ctx.callTool("echo", {}, { key: args.key });
        return "answered";
      } catch (e) {
        return e.kind;
      }
    });
    await withHost(ext, async (host) => {
      assert.equal(text(await host.tool("call", { key: "a/b" })), "invalid_key");
    });
    const ext2 = new Extension("caller", "1.0.0").tool({ name: "call" }, async (_args, ctx) => {
      try {
        await ctx.callTool("echo");
        return "answered";
      } catch (e) {
        return e.kind;
      }
    });
    await withHost(
      ext2,
      async (host) => {
        assert.equal(text(await host.tool("call")), "unsupported");
        assert.equal(await host.tryNextFrame(), undefined);
      },
      { ack: { capabilities: [] } },
    );
  });

  test("shutdown fails outstanding calls with kind closed", async () => {
    let kind;
    const ext = new Extension("caller", "1.0.0").command("call", "", async (_args, ctx) => {
      kind = await ctx.callTool("echo").then(
        () => "answered",
        (e) => e.kind,
      );
    });
    const host = await TestHost.start(ext);
    await host.send({ type: "command_invoked", id: "c", name: "call", args: "" });
    await host.expectCallTool();
    await host.shutdown();
    await host.finished;
    assert.equal(kind, "closed");
  });
});

describe("events", () => {
  test("payloads are typed by name, arrive in order, one at a time; failures do not stop the extension", async () => {
    const seen = [];
    let running = 0;
    const ext = new Extension("events", "1.0.0")
      .on("session_start", (e, ctx) => {
        seen.push(`${e.type}:${e.event}:${e.session_id}:${e.cwd}:${e.sequence}:${ctx.id === ""}`);
      })
      .on("tool_result", async (e) => {
        running += 1;
        assert.equal(running, 1, "event handlers overlap");
        await delay(15);
        seen.push(`tool_result:${e.tool_name}:${e.executed}:${e.result.is_error}`);
        running -= 1;
      })
      .on("turn_start", () => {
        throw new Error("event handler failure");
      })
      .on("turn_end", (e, ctx) => {
        seen.push(`turn_end:${e.type}:${e.stop}`);
        ctx.notify(JSON.stringify(seen));
      });
    await withHost(ext, async (host) => {
      assert.deepEqual(host.registration.events, ["session_start", "tool_result", "turn_start", "turn_end"]);
      await host.event({ event: "session_start", session_id: "s1", cwd: "/w", sequence: 1 });
      await host.event({
        event: "tool_result",
        status: "completed",
        tool_id: "t",
        tool_name: "a",
        executed: true,
        result: { content: [], is_error: false },
        sequence: 2,
      });
      await host.event({ event: "turn_start", step: 1, sequence: 3 });
      await host.event({
        event: "tool_result",
        status: "completed",
        tool_id: "t",
        tool_name: "b",
        executed: false,
        result: { content: [], is_error: true },
        sequence: 4,
      });
      await host.event({ event: "turn_end", stop: "end_turn", sequence: 5 });
      await host.event({ event: "not_subscribed", sequence: 6 });
      assert.deepEqual(JSON.parse((await host.waitFor("notify")).message), [
        "event:session_start:s1:/w:1:true",
        "tool_result:a:true:false",
        "tool_result:b:false:true",
        "turn_end:event:end_turn",
      ]);
    });
  });

  test("a name that is no lifecycle event throws at once, listing them", () => {
    const ext = new Extension("events", "1.0.0");
    assert.throws(
      () => ext.on("tool_reslt", () => {}),
      (e) =>
        e instanceof RegistrationError &&
        e.message.startsWith('unknown event "tool_reslt" (events: session_start, ') &&
        e.message.includes("tool_result"),
    );
  });

  test("a command or tool name registered twice throws at once, naming it", () => {
    const ext = new Extension("dup", "1.0.0").command("deploy", "", () => {}).tool("t", "", () => "");
    assert.throws(
      () => ext.command("Deploy", "", () => {}),
      (e) =>
        e instanceof RegistrationError &&
        e.code === "registration" &&
        e.message ===
          'duplicate command name "Deploy": command "deploy" is already registered (command names ignore case)',
    );
    assert.throws(
      () => ext.tool({ name: "t" }, () => ""),
      (e) =>
        e instanceof RegistrationError &&
        e.message === 'duplicate tool name "t": a tool of this name is already registered',
    );
  });

  test("registering an event again replaces the handler without moving it", async () => {
    const ext = new Extension("events", "1.0.0")
      .on("turn_end", () => {})
      .on("turn_start", () => {})
      .on("turn_end", () => {});
    await withHost(ext, async (host) => {
      assert.deepEqual(host.registration.events, ["turn_end", "turn_start"]);
      assert.equal(host.registration.subscribe_frames, 1);
    });
  });
});

describe("interceptors", () => {
  test("verdicts, async handlers, failures and the fixed subscribe order", async () => {
    const ext = new Extension("guard", "1.0.0")
      .interceptAssistantMessage(async (m) => {
        await delay(1);
        if (m.text === "hide") return MessageVerdict.block("hidden");
        if (m.text === "same") return MessageVerdict.replace("same");
        return m.text === "swap" ? MessageVerdict.replace("swapped") : undefined;
      })
      .interceptToolCall((c) => {
        if (c.tool_name === "throw") throw new Error("interceptor failed");
        if (c.tool_name === "rewrite") return ToolCallVerdict.modify({ ...c.tool_args, safe: true });
        return c.tool_name === "bash" ? ToolCallVerdict.block("no bash") : ToolCallVerdict.allow();
      })
      .interceptBeforeAgentStart((r) =>
        r.system_prompt === "keep" ? PromptVerdict.keep() : PromptVerdict.replace(`${r.system_prompt}!`),
      )
      .interceptTurnStart(() => TurnVerdict.allow());
    await withHost(ext, async (host) => {
      assert.deepEqual(host.registration.intercepts, [
        "before_agent_start",
        "tool_call",
        "turn_start",
        "assistant_message",
      ]);
      const ask = (req) => host.intercept(req);
      assert.deepEqual(await ask({ id: "1", event: "tool_call", tool_name: "bash", tool_args: {} }), {
        type: "event_intercept_response",
        id: "1",
        block: true,
        reason: "no bash",
      });
      assert.deepEqual((await ask({ event: "tool_call", tool_name: "rewrite", tool_args: { a: 1 } })).modified_args, {
        a: 1,
        safe: true,
      });
      const failed = await ask({ event: "tool_call", tool_name: "throw" });
      assert.equal(failed.block, true);
      // The reason names the interceptor, the extension and the error.
      assert.equal(failed.reason, 'blocked: tool_call interceptor of "guard" failed: Error: interceptor failed');
      class GuardError extends Error {}
      const typed = new Extension("typed", "1.0.0").interceptTurnStart(() => {
        throw new GuardError("oops");
      });
      await withHost(typed, async (h) => {
        assert.equal(
          (await h.intercept({ event: "turn_start", step: 1 })).reason,
          'blocked: turn_start interceptor of "typed" failed: GuardError: oops',
        );
      });
      assert.equal((await ask({ event: "assistant_message", text: "hide" })).reason, "hidden");
      assert.equal((await ask({ event: "assistant_message", text: "swap" })).replace_text, "swapped");
      assert.equal((await ask({ event: "assistant_message", text: "same" })).replace_text, undefined);
      assert.equal((await ask({ event: "before_agent_start", system_prompt: "keep" })).system_prompt, undefined);
      assert.equal((await ask({ event: "before_agent_start", system_prompt: "p" })).system_prompt, "p!");
      assert.deepEqual(await ask({ id: "t", event: "turn_start", step: 2 }), {
        type: "event_intercept_response",
        id: "t",
      });
    });
  });
});

describe("panels, hello and spontaneous frames", () => {
  test("panel keys and closes are routed by panel id, in order", async () => {
    const seen = [];
    const ext = new Extension("panels", "1.0.0").command("open", "", (_args, ctx) => {
      ctx.log("opening");
      return Response.openPanel({ id: "p", title: "T", lines: ["a"] });
    });
    ext.onPanelKey(
      "p",
      async (key) => {
        await delay(2);
        seen.push(`${key.panel_id}:${key.key}:${key.text}`);
        ext.renderPanel("p", { lines: [key.key], footer: "f" });
      },
      () => {
        seen.push("closed");
        ext.notify(JSON.stringify(seen));
      },
    );
    ext.onPanelKey("q", (key) => {
      seen.push(`q:${key.key}`);
      ext.closePanel("q");
    });
    await withHost(ext, async (host) => {
      assert.equal((await host.command("open")).open_panel.id, "p");
      await host.panelKey("p", "up");
      await host.panelKey("p", "rune", "x");
      await host.panelKey("other", "up");
      await host.panelKey("q", "enter");
      await host.panelKey("q", "enter"); // forgotten after closePanel
      await host.panelClose("p");
      await host.panelKey("p", "down"); // forgotten after the host's close
      assert.deepEqual(await host.nextFrame(), { type: "panel_render", panel_id: "p", lines: ["up"], footer: "f" });
      assert.deepEqual(await host.nextFrame(), { type: "panel_render", panel_id: "p", lines: ["rune"], footer: "f" });
      assert.deepEqual(await host.nextFrame(), { type: "panel_close", panel_id: "q" });
      assert.deepEqual(JSON.parse((await host.nextFrame()).message), ["p:up:", "p:rune:x", "q:enter", "closed"]);
      await host.panelKey("p", "down"); // still forgotten
      assert.equal(await host.tryNextFrame(), undefined);
    });
  });

  test("onHello sees the host info and may register more; late registrations are sent at once", async () => {
    let info;
    const ext = new Extension("hello", "1.0.0").onHello(async (host) => {
      await delay(5);
      info = host;
      ext.command("dir", "Show the project", (_args, ctx) => Response.display(`${ctx.host.cwd} ${ctx.host.model}`));
    });
    assert.equal(ext.host, undefined);
    await withHost(
      ext,
      async (host) => {
        assert.equal(info.cwd, "/project");
        assert.deepEqual(info.capabilities, ["call_tool", "call_tool_durable"]);
        assert.equal(ext.host.data_dir, "/data");
        assert.deepEqual(host.registration.commands, [{ name: "dir", description: "Show the project" }]);
        assert.equal((await host.command("dir")).display, "/project test");
        ext.tool({ name: "late" }, () => "late");
        assert.deepEqual(await host.nextFrame(), { type: "register_tool", name: "late", schema: { type: "object" } });
        assert.equal(text(await host.tool("late")), "late");
      },
      { ack: { cwd: "/project", data_dir: "/data", capabilities: ["call_tool", "call_tool_durable"] } },
    );
  });

  test("notify, clearNotes, submit, openPanel, renderPanel, closePanel", async () => {
    const ext = new Extension("spont", "1.0.0");
    assert.throws(() => ext.notify("too early"), /not running/);
    ext.command("all", "", () => {
      ext.notify("n", "success");
      ext.clearNotes();
      ext.submit("s");
      ext.openPanel({ id: "sp", lines: ["1"] });
      ext.renderPanel("sp", ["2"]);
      ext.renderPanel("sp", { title: "t" });
      ext.closePanel("sp");
    });
    await withHost(ext, async (host) => {
      await host.command("all");
      const lines = (await host.transcript()).slice(-8);
      assert.deepEqual(lines, [
        '{"type":"notify","level":"success","message":"n"}',
        '{"type":"clear_notes"}',
        '{"type":"submit","text":"s"}',
        '{"type":"open_panel","panel":{"id":"sp","lines":["1"]}}',
        '{"type":"panel_render","panel_id":"sp","lines":["2"]}',
        '{"type":"panel_render","panel_id":"sp","title":"t"}',
        '{"type":"panel_close","panel_id":"sp"}',
        '{"type":"command_response","id":"cmd-1","action":"noop"}',
      ]);
    });
  });

  test("an extension runs once", async () => {
    const ext = new Extension("once", "1.0.0");
    const host = await TestHost.start(ext);
    await assert.rejects(TestHost.start(ext), /already running/);
    await assert.rejects(ext.run(), /already running/);
    await host.closeStdin();
    await host.finished;
  });
});
