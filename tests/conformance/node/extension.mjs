// The conformance extension (contract: docs/testing/conformance.md),
// written with the public API of the Node SDK (`zot-ext`) only.
//
// `extension()` builds it (the tests drive it in-process with
// `zot-ext/testing`); index.mjs runs it over stdin/stdout. Texts, schemas
// and descriptions are the Rust copy's, byte for byte
// (tests/conformance/rust/README.md).

import {
  Extension,
  firstText,
  LIFECYCLE_EVENTS,
  MessageVerdict,
  PromptVerdict,
  Response,
  ToolCallVerdict,
  ToolOutput,
  TurnVerdict,
} from "zot-ext";

/** The 1x1 PNG of the contract. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** The panel of the `panel` command. */
const PANEL = "conf-panel";

/**
 * Every input is bounded by the schema, which the engine checks before a
 * handler runs (the same answer in every language): `ms` within what a timer
 * can wait (2^31 - 1 ms; setTimeout fires at once beyond), `bytes` within
 * 4 MiB (no reply carries more: a frame is at most 4 MiB), every field required.
 */
const SLEEP_SCHEMA = {
  type: "object",
  properties: { ms: { type: "integer", minimum: 0, maximum: 2147483647 } },
  required: ["ms"],
};
const COMPOSE_SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const BIG_SCHEMA = {
  type: "object",
  properties: { bytes: { type: "integer", minimum: 0, maximum: 4194304 } },
  required: ["bytes"],
};

/** `add`'s answer when the sum leaves the exact integer range. */
const SUM_OUT_OF_RANGE = "sum out of range: a + b is beyond ±9007199254740991";

/** `callecho` gives up before the host's 30 s command deadline. */
const CALLECHO_TIMEOUT_MS = 20_000;

/** What the `tool_call` interceptor throws on `crash`: the verdict names the class. */
class GuardError extends Error {}

const object = () => ({ type: "object" });
const one = (name, type) => ({ type: "object", properties: { [name]: { type } } });

/** `value` when it is an integer, else throws (the Rust copy's typed arguments). */
function integer(value, name) {
  if (!Number.isSafeInteger(value)) {
    throw new Error(`invalid ${name}: expected an integer`);
  }
  return value;
}

/** Waits `ms` milliseconds, or until `signal` aborts (then resolves `false`). */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Resolves once `signal` aborts. */
function aborted(signal) {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
    } else {
      signal.addEventListener("abort", () => resolve(), { once: true });
    }
  });
}

/** How many event names `events` lists at most (a reply near 320 KB with the longest name). */
const EVENTS_KEPT = 10_000;

/**
 * The record behind `events`: how many events arrived, and the names of the
 * last EVENTS_KEPT in arrival order, in a ring of one byte per event (the
 * name's place in LIFECYCLE_EVENTS, the only events subscribed to). A long
 * session sends millions of events (the soak of bench/README.md); listing
 * them all would outgrow both memory and the 4 MiB frame.
 */
class EventLog {
  #ring = new Uint8Array(EVENTS_KEPT);
  #count = 0;

  push(name) {
    const place = LIFECYCLE_EVENTS.indexOf(name);
    if (place < 0) throw new Error(`not a subscribed event: ${name}`);
    this.#ring[this.#count % EVENTS_KEPT] = place;
    this.#count += 1;
  }

  /** `{"count":<all events>,"last":[<names>]}`, compact. */
  display() {
    const kept = Math.min(this.#count, EVENTS_KEPT);
    const first = this.#count - kept;
    const last = Array.from({ length: kept }, (_, i) => LIFECYCLE_EVENTS[this.#ring[(first + i) % EVENTS_KEPT]]);
    return `{"count":${this.#count},"last":${JSON.stringify(last)}}`;
  }
}

/** The conformance extension. */
export function extension() {
  const received = new EventLog();
  const ext = new Extension("conformance", "1.0.0");

  // Commands, in the contract's order.
  ext
    .command("echo", "Display the arguments", (args) => Response.display(args))
    .command("Greet", "Prompt with a greeting", (args) => Response.prompt(`Hello, ${args}`))
    .command("insert", "Insert the arguments into the editor", (args) => Response.insert(args))
    .command("panel", "Open a counter panel", () => openCounter(ext))
    .command("note", "Send the arguments as a note", (args, ctx) => {
      ctx.notify(args);
      return Response.noop();
    })
    .command("clear", "Clear this extension's notes", () => {
      ext.clearNotes();
      return Response.noop();
    })
    .command("submit", "Submit the arguments as a prompt", (args) => {
      ext.submit(args);
      return Response.noop();
    })
    .command("commit", "Run echo through tool_prompt", (args) =>
      Response.toolPrompt("echo", { text: args }, "and push"),
    )
    .command("oops", "Fail with an error", (args) => Response.error(`command failed: ${args}`))
    .command("events", "Show the events received so far", () => Response.display(received.display()))
    .command("callecho", "Call the host tool echo", async (args, ctx) => {
      try {
        const r = await ctx.callTool("echo", { text: args }, { timeoutMs: CALLECHO_TIMEOUT_MS });
        return Response.display(r.is_error ? `call failed:${firstText(r)}` : `called:${firstText(r)}`);
      } catch (e) {
        return Response.display(`call failed:${e.message}`);
      }
    });

  // Tools, in the contract's order.
  ext
    .tool(
      {
        name: "echo",
        description: "Echo the text",
        schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      },
      (args) => (typeof args.text === "string" ? ToolOutput.text(args.text) : ToolOutput.error("missing text")),
    )
    .tool(
      {
        name: "add",
        description: "Add two integers",
        schema: {
          type: "object",
          properties: { a: { type: "integer" }, b: { type: "integer" } },
          required: ["a", "b"],
        },
        outputSchema: one("sum", "integer"),
        namespace: "math",
        namespaceDescription: "Arithmetic",
        namespaceInstructions: "Integers only",
        exposure: "codemode",
      },
      ({ a, b }) => {
        // The engine bounds a and b to ±(2^53 - 1); the sum must fit there
        // too, or it would be rounded.
        const sum = integer(a, "a") + integer(b, "b");
        if (!Number.isSafeInteger(sum)) {
          return ToolOutput.error(SUM_OUT_OF_RANGE);
        }
        return ToolOutput.text(`sum=${sum}`).withStructured({ sum });
      },
    )
    .tool({ name: "fail", description: "Always fail", schema: object() }, () => {
      throw new Error("boom");
    })
    .tool({ name: "sleep", description: "Sleep for ms milliseconds", schema: SLEEP_SCHEMA }, async (args, ctx) => {
      const ms = integer(args.ms, "ms");
      if (await sleep(ms, ctx.signal)) {
        return ToolOutput.text(`slept ${ms}`);
      }
      ctx.notify(`cancelled ${ms}`, "warn");
      return ToolOutput.text("cancelled"); // not sent: the call was cancelled
    })
    .tool(
      { name: "ask", description: "Wait for the user until cancelled", schema: object(), interactive: true },
      async (_args, ctx) => {
        await aborted(ctx.signal);
        ctx.notify("ask cancelled", "warn");
        return ToolOutput.text("ask cancelled"); // not sent
      },
    )
    .tool(
      { name: "compose", description: "Call echo through call_tool", schema: COMPOSE_SCHEMA },
      async ({ text }, ctx) => {
        if (typeof text !== "string") {
          throw new Error("invalid text: expected a string");
        }
        try {
          const r = await ctx.callTool("echo", { text: `inner:${text}` });
          return r.is_error ? ToolOutput.error(firstText(r)) : ToolOutput.text(`composed:${firstText(r)}`);
        } catch (e) {
          return ToolOutput.error(e.message);
        }
      },
    )
    .tool({ name: "lazy", description: "A deferred tool", schema: object(), deferred: true }, () =>
      ToolOutput.text("lazy ok"),
    )
    .tool({ name: "loader", description: "Activate the lazy tool", schema: object() }, () =>
      ToolOutput.text("loaded").activate("lazy"),
    )
    .tool({ name: "image", description: "Return a 1x1 PNG", schema: object() }, () =>
      ToolOutput.text("image").withImage("image/png", PNG),
    )
    .tool({ name: "big", description: "Return bytes times x", schema: BIG_SCHEMA }, ({ bytes }) =>
      ToolOutput.text("x".repeat(integer(bytes, "bytes"))),
    );

  // All fourteen lifecycle events, in the spec's order.
  for (const name of LIFECYCLE_EVENTS) {
    ext.on(name, (event) => {
      received.push(event.event);
    });
  }

  return ext
    .interceptToolCall((call) => {
      if (call.tool_name !== "bash") {
        return ToolCallVerdict.allow();
      }
      const command = typeof call.tool_args?.command === "string" ? call.tool_args.command : "";
      if (command.includes("rm -rf")) {
        return ToolCallVerdict.block("refused: rm -rf");
      }
      if (command === "ls") {
        return ToolCallVerdict.modify({ command: "echo GUARDED: ls" });
      }
      if (command === "crash") {
        throw new GuardError("oops");
      }
      return ToolCallVerdict.allow();
    })
    .interceptTurnStart((turn) => ((turn.step ?? 0) >= 99 ? TurnVerdict.block("step limit") : TurnVerdict.allow()))
    .interceptAssistantMessage((msg) => {
      const text = msg.text ?? "";
      if (text === "BLOCKME") {
        return MessageVerdict.block("blocked");
      }
      if (text.includes("SECRET")) {
        return MessageVerdict.replace(text.replaceAll("SECRET", "[redacted]"));
      }
      return MessageVerdict.allow();
    })
    .interceptBeforeAgentStart((req) => {
      const prompt = req.system_prompt ?? "";
      if (prompt.includes("KEEP")) {
        return PromptVerdict.keep();
      }
      if (prompt.includes("REMOVE")) {
        return PromptVerdict.remove();
      }
      return PromptVerdict.replace(`${prompt}\n[conformance]`);
    })
    .onHello((host) => {
      ext.command("cwd", "Show hello_ack.cwd", () => Response.display(host.cwd ?? ""));
      ext.command("datadir", "Show hello_ack.data_dir", () => Response.display(host.data_dir ?? ""));
    });
}

/** The `panel` command: a counter driven by up/down, closed by `q`. */
function openCounter(ext) {
  let n = 0;
  ext.onPanelKey(PANEL, (key) => {
    switch (key.key) {
      case "up":
        n += 1;
        break;
      case "down":
        n -= 1;
        break;
      case "rune":
        if (key.text === "q") {
          ext.closePanel(PANEL);
        }
        return;
      default:
        return;
    }
    ext.renderPanel(PANEL, [String(n)]);
  });
  return Response.openPanel({ id: PANEL, title: "Counter", lines: ["0"], footer: "up/down - q quits" });
}
