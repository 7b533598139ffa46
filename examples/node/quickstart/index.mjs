import { Extension, Response, ToolOutput } from "zot-ext";

await new Extension("hello", "1.0.0")
  .command("hi", "Say hi", (args) => Response.display(`hi ${args}`))
  .tool(
    {
      name: "greet",
      description: "Greet someone",
      schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
    async ({ name }) => ToolOutput.text(`Hello, ${name}!`),
  )
  .run();
