#!/usr/bin/env node
// A hand-rolled zot extension in the style of the docs' quick start: plain
// Node, JSON.parse over readline, no SDK. The benchmarks' baseline for "what
// Node users write today". Tools: echo (text), big (bytes); subscribes to
// tool_call and tool_result. An ES module, as the SDK's examples and the
// conformance extension are: Node's module loader costs a script several
// milliseconds more at start-up than a CommonJS one, SDK or not.

import readline from "node:readline";

const emit = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);

emit({ type: "hello", name: "raw-node", version: "1.0.0", capabilities: ["tools", "events"] });

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  switch (msg.type) {
    case "hello_ack":
      emit({
        type: "register_tool",
        name: "echo",
        description: "echo text",
        schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      });
      emit({
        type: "register_tool",
        name: "big",
        description: "n bytes of x",
        schema: { type: "object", properties: { bytes: { type: "integer" } } },
      });
      emit({ type: "subscribe", events: ["tool_call", "tool_result"] });
      emit({ type: "ready" });
      break;
    case "tool_call": {
      const args = msg.args || {};
      if (msg.name === "echo") {
        if (typeof args.text === "string") {
          emit({ type: "tool_result", id: msg.id, content: [{ type: "text", text: args.text }] });
        } else {
          emit({ type: "tool_result", id: msg.id, is_error: true, content: [{ type: "text", text: "missing text" }] });
        }
      } else if (msg.name === "big") {
        emit({
          type: "tool_result",
          id: msg.id,
          content: [{ type: "text", text: "x".repeat(Number(args.bytes) || 0) }],
        });
      }
      break;
    }
    case "shutdown":
      emit({ type: "shutdown_ack" });
      rl.close();
      break;
    default:
      break;
  }
});
rl.on("close", () => process.exit(0));
