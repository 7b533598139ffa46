// Type-checked (never run) by scripts/test.d/30-node.sh against the
// installed package, as an ES module: `tsc --strict --noEmit`. It proves that
// strict TypeScript users get full inference from the public API.

import "zot-ext/protect-stdout";
import { z } from "zod";
import {
  CallToolError,
  type CallToolResult,
  type Context,
  Extension,
  firstText,
  type HostInfo,
  MessageVerdict,
  PromptVerdict,
  protectStdout,
  Response,
  ToolCallVerdict,
  ToolOutput,
  TurnVerdict,
  ZotError,
  type ZotErrorCode,
} from "zot-ext";
import { TestHost } from "zot-ext/testing";

const ext = new Extension("typed", "1.0.0");

ext.on("tool_result", (e) => {
  const name: string | undefined = e.tool_name;
  const executed: boolean | undefined = e.executed;
  const isError: boolean | undefined = e.result?.is_error;
  // @ts-expect-error `step` belongs to turn_start
  void e.step;
  void [name, executed, isError];
});
ext.on("turn_start", async (e, ctx: Context) => {
  const step: number | undefined = e.step;
  const kind: "event" = e.type;
  ctx.signal.throwIfAborted();
  void [step, kind];
});
ext.on("session_end", (e) => {
  const reason: string = e.reason;
  void reason;
});
ext.on("some_future_event", (e) => {
  const event: string = e.event;
  const extra: unknown = e.anything;
  void [event, extra];
});

ext.tool<{ text: string }>(
  { name: "echo", schema: { type: "object", properties: { text: { type: "string" } } }, exposure: "direct" },
  async (args, ctx) => {
    const text: string = args.text;
    const id: string = ctx.id;
    const host: HostInfo = ctx.host;
    try {
      const r: CallToolResult = await ctx.callTool("other", { text }, { timeoutMs: 1000, signal: ctx.signal });
      return ToolOutput.text(firstText(r)).withStructured({ id, cwd: host.cwd });
    } catch (e) {
      if (e instanceof CallToolError && e.kind === "timeout") {
        return "timed out";
      }
      throw e;
    }
  },
);
ext.tool({ name: "wire" }, () => ({ content: [{ type: "text", text: "x" }], is_error: true }));
// A library schema types the handler's arguments (its output type).
const forecast = z.object({ city: z.string(), days: z.number().default(3) });
ext.tool({ name: "forecast", schema: forecast }, async (args, ctx) => {
  const city: string = args.city;
  const days: number = args.days;
  // @ts-expect-error not in the schema
  void args.country;
  ctx.signal.throwIfAborted();
  return `${city} ${days}`;
});
// @ts-expect-error the handler's argument type must match the schema's output
ext.tool({ name: "mismatch", schema: forecast }, (args: { city: number }) => String(args.city));
// @ts-expect-error a tool cannot return a number
ext.tool({ name: "bad" }, () => 42);
// @ts-expect-error the spec needs a name
ext.tool({ description: "nameless" }, () => "");

// A raw shape (MCP style) types the handler too: optional where the field accepts undefined.
ext.tool({ name: "shape", schema: { city: z.string(), days: z.number().optional() } }, (args) => {
  const city: string = args.city;
  const days: number | undefined = args.days;
  // @ts-expect-error not in the shape
  void args.country;
  return `${city} ${days ?? 3}`;
});
// MCP's positional form: (name, description, shape | schema, handler), (name, description, handler), (name, handler).
ext.tool("greet", "Greet someone", { name: z.string() }, async ({ name }, ctx) => {
  ctx.notify(`greeting ${name}`);
  ctx.notify("loud", "warn");
  return `Hello, ${name}!`;
});
ext.tool("zod", "A zod object", forecast, (args) => `${args.city} ${args.days}`);
ext.tool("json", "A JSON Schema", { type: "object" }, (args) => JSON.stringify(args));
ext.tool("described", "Described", () => "d");
ext.tool("bare", () => "b");
// @ts-expect-error the shape's handler gets a string, not a number
ext.tool("typed", "", { name: z.string() }, (args: { name: number }) => String(args.name));
// Errors carry a stable code.
export function codeOf(e: unknown): ZotErrorCode | undefined {
  return e instanceof ZotError ? e.code : undefined;
}
ext.notify("done");
ext.notify("done", "success");

ext.command("hi", "Say hi", (args) => Response.display(`hi ${args}`));
ext.command("none", "Nothing", async () => {});
// @ts-expect-error a command cannot return a number
ext.command("bad", "", () => 42);

ext.interceptToolCall((req) => (req.tool_name === "bash" ? ToolCallVerdict.block("no") : undefined));
ext.interceptTurnStart((req) => ((req.step ?? 0) > 9 ? TurnVerdict.block("limit") : TurnVerdict.allow()));
// @ts-expect-error a turn cannot be rewritten like a tool call
ext.interceptTurnStart(() => ToolCallVerdict.modify({}));
ext.interceptAssistantMessage(async (req) => MessageVerdict.replace(req.text ?? ""));
ext.interceptBeforeAgentStart((req) => PromptVerdict.replace(`${req.system_prompt ?? ""}!`));

ext.onPanelKey(
  "p",
  (key) => {
    if (key.key === "rune") {
      ext.renderPanel(key.panel_id, [key.text]);
    }
  },
  () => ext.notify("closed"),
);
ext.onHello((info) => {
  const cwd: string | undefined = info.cwd;
  void cwd;
});

export async function check(): Promise<void> {
  const host = await TestHost.start(ext, { ack: { cwd: "/p" } });
  const r = await host.command("hi", "x");
  const display: string | undefined = r.display;
  const close = await host.waitFor("panel_close");
  const panel: string = close.panel_id;
  const frames = await host.shutdown();
  void [display, panel, frames];
  await host.finished;

  // An extension process: the same host, over its stdin and stdout.
  const child = await TestHost.spawn("python3", ["ext.py"], {
    cwd: "/p",
    env: { ...process.env, MODE: "test" },
    stderr: "inherit",
    ack: { cwd: "/p" },
  });
  const stderr: string | undefined = await child.stderr();
  void stderr;
  await child.close();
}

export const run: Promise<void> = ext.run();

interface AddArgs {
  a: number;
  b: number;
}
ext.tool<AddArgs>({ name: "add" }, ({ a, b }) => ToolOutput.structured({ sum: a + b }));

// Protecting stdout takes nothing and returns nothing.
const protect: () => void = protectStdout;
void protect;
