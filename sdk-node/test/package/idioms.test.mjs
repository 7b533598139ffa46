// The MCP-style idioms of the Node SDK, through the public API: raw zod
// shapes, the positional `tool(name, description, schema, handler)`,
// `ctx.notify(message)` with a default level (and the deprecated 0.1
// order), plain JSON Schemas enforced by the engine, and errors with a
// stable `code`.

import assert from "node:assert/strict";
import { once } from "node:events";
import { after, describe, test } from "node:test";

import { z } from "zod";
import {
  ArgumentError,
  CallToolError,
  Extension,
  NotRunningError,
  RegistrationError,
  SessionError,
  ToolOutput,
  ZotError,
} from "zot-ext";
import { TestHost } from "zot-ext/testing";

import { noUnhandled, text } from "./helpers.mjs";

after(noUnhandled());

async function withHost(ext, body) {
  const host = await TestHost.start(ext);
  try {
    return await body(host);
  } finally {
    await host.shutdown();
  }
}

describe("raw zod shapes", () => {
  const shape = { city: z.string().describe("City name"), days: z.number().int().min(1).max(7).default(3) };

  test("stand for the object of those properties, validated before the handler", async () => {
    const seen = [];
    const ext = new Extension("shape", "1.0.0").tool({ name: "forecast", schema: shape }, (args) => {
      seen.push(args);
      return `${args.city} ${args.days}`;
    });
    await withHost(ext, async (host) => {
      assert.deepEqual(host.registration.tools[0].schema, {
        type: "object",
        properties: {
          city: { type: "string", description: "City name" },
          days: { type: "integer", minimum: 1, maximum: 7, default: 3 },
        },
        required: ["city"],
        additionalProperties: false,
      });
      assert.equal(text(await host.tool("forecast", { city: "Oslo" })), "Oslo 3");
      assert.equal(text(await host.tool("forecast", {})), "invalid arguments: missing field `city`");
      const extra = await host.tool("forecast", { city: "Oslo", colour: "red" });
      assert.equal(extra.is_error, true);
      assert.match(text(extra), /^invalid arguments: .*colour/);
      assert.equal(
        text(await host.tool("forecast", { city: "Oslo", days: 9 })),
        "invalid arguments: field `days`: 9 is greater than the maximum of 7",
      );
      assert.deepEqual(seen, [{ city: "Oslo", days: 3 }]);
    });
  });

  test("a refinement JSON Schema cannot express is the library's, named by field", async () => {
    const ext = new Extension("shape", "1.0.0").tool(
      "even",
      "Takes an even number",
      { n: z.number().refine((n) => n % 2 === 0, "must be even") },
      ({ n }) => String(n),
    );
    await withHost(ext, async (host) => {
      assert.equal(text(await host.tool("even", { n: 4 })), "4");
      assert.equal(text(await host.tool("even", { n: 3 })), "invalid arguments: field `n`: must be even");
    });
  });
});

describe("the positional form", () => {
  test("tool(name, description, shape | schema, handler), tool(name, description, handler), tool(name, handler)", async () => {
    const ext = new Extension("pos", "1.0.0")
      .tool("greet", "Greet someone", { name: z.string() }, async ({ name }, ctx) => `Hello, ${name}! ${ctx.id}`)
      .tool(
        "json",
        "A plain JSON Schema",
        { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        ({ name }) => `Hi ${name}`,
      )
      .tool("described", "Only a description", () => "d")
      .tool("bare", () => ToolOutput.text("b"));
    await withHost(ext, async (host) => {
      assert.deepEqual(
        host.registration.tools.map((t) => [t.name, t.description ?? ""]),
        [
          ["greet", "Greet someone"],
          ["json", "A plain JSON Schema"],
          ["described", "Only a description"],
          ["bare", ""],
        ],
      );
      assert.equal(text(await host.tool("greet", { name: "Ada" })), "Hello, Ada! tool-1");
      assert.equal(text(await host.tool("json", { name: "Bob" })), "Hi Bob");
      // A plain JSON Schema is enforced by the engine: the handler never sees `undefined`.
      assert.equal(text(await host.tool("json", {})), "invalid arguments: missing field `name`");
      assert.equal(text(await host.tool("bare")), "b");
    });
  });

  test("a call that fits no form says what was expected", () => {
    const ext = new Extension("pos", "1.0.0");
    assert.throws(() => ext.tool("t", "d", {}), /the last argument must be the handler function/);
    assert.throws(() => ext.tool("t", 7, {}, () => "x"), /description must be a string/);
    assert.throws(() => ext.tool("t", "d", "schema", () => "x"), /the schema must be an object/);
  });
});

describe("notify", () => {
  test("takes the message first and `info` by default; the 0.1 order still works, with a warning", async () => {
    const warned = once(process, "warning");
    const ext = new Extension("note", "1.0.0").command("go", "", (_args, ctx) => {
      ctx.notify("done");
      ctx.notify("careful", "warn");
      ctx.notify("success", "old order");
      ctx.notify("warn", "error");
    });
    await withHost(ext, async (host) => {
      await host.command("go");
      const notes = (await host.transcript()).filter((l) => l.includes('"notify"'));
      assert.deepEqual(notes, [
        '{"type":"notify","level":"info","message":"done"}',
        '{"type":"notify","level":"warn","message":"careful"}',
        '{"type":"notify","level":"success","message":"old order"}',
        '{"type":"notify","level":"error","message":"warn"}',
      ]);
    });
    const [warning] = await warned;
    assert.equal(warning.name, "DeprecationWarning");
    assert.equal(warning.code, "ZOT_EXT_NOTIFY_ORDER");
  });

  test("a level the SDK does not know is passed on (hosts must accept other values)", async () => {
    const ext = new Extension("note", "1.0.0").tool("t", (_args, ctx) => {
      ctx.notify("message", "loud");
      return "ok";
    });
    await withHost(ext, async (host) => {
      assert.equal(text(await host.tool("t")), "ok");
      assert.ok((await host.transcript()).includes('{"type":"notify","level":"loud","message":"message"}'));
    });
  });
});

describe("errors have a stable code and keep their cause", () => {
  test("not running, registration, session", async () => {
    const ext = new Extension("errs", "1.0.0");
    assert.throws(
      () => ext.notify("too early"),
      (e) => e instanceof NotRunningError && e instanceof ZotError && e.code === "not_running",
    );
    assert.throws(
      () => ext.command("bad name!", "", () => undefined),
      (e) => e instanceof RegistrationError && e.code === "registration" && e.cause instanceof Error,
    );
    assert.throws(
      () => ext.tool({ name: "" }, () => "x"),
      (e) => e instanceof RegistrationError && e.cause.code === "GenericFailure",
    );
    const host = await TestHost.start(ext);
    await assert.rejects(
      ext.run(),
      (e) => e instanceof SessionError && e.code === "session" && /already running/.test(e.message),
    );
    await host.shutdown();
  });

  test("call_tool failures and refused arguments", async () => {
    const seen = [];
    const ext = new Extension("errs", "1.0.0")
      .tool("call", async (_args, ctx) => {
        try {
          await ctx.callTool("echo", {}, { timeoutMs: 1, key: "bad key with spaces" });
        } catch (e) {
          seen.push(e);
        }
        return "done";
      })
      .tool({ name: "typed", schema: z.object({ n: z.number().refine((n) => n > 0, "must be positive") }) }, () => "x");
    await withHost(ext, async (host) => {
      await host.tool("call");
      assert.equal(text(await host.tool("typed", { n: -1 })), "invalid arguments: field `n`: must be positive");
    });
    assert.ok(seen[0] instanceof CallToolError && seen[0].code === "call_tool" && typeof seen[0].kind === "string");
    assert.equal(new ArgumentError("invalid arguments: x").code, "invalid_arguments");
  });
});
