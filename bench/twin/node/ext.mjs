// The raw Node script's extension (bench/raw/node) written with the Node
// SDK: the same tools, the same subscriptions, handlers that do the same
// work. The benchmarks compare it with the raw script where the conformance
// extension, which registers and loads much more, would not compare like
// with like (the start-up row).

import { Extension } from "zot-ext";

await new Extension("node-twin", "1.0.0")
  .tool(
    {
      name: "echo",
      description: "echo text",
      schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
    ({ text }) => text,
  )
  .tool(
    {
      name: "big",
      description: "n bytes of x",
      schema: { type: "object", properties: { bytes: { type: "integer" } } },
    },
    ({ bytes }) => "x".repeat(bytes ?? 0),
  )
  .on("tool_call", () => {})
  .on("tool_result", () => {})
  .run();
