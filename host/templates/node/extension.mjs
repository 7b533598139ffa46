// @ts-check
// {{name}}: a zot extension with a slash command, a typed tool and an event
// handler. `npm test` drives it in-process; `zot-host dev .` restarts it on
// every change and gives you a REPL.
import { Extension, Response, ToolOutput } from "zot-ext";

/**
 * The `{{tool}}` tool's arguments, as its schema below describes them.
 * @typedef {{ name: string, excited?: boolean }} Greet
 */

/** @param {{ turns: number }} state turns seen so far, counted by the `turn_start` handler */
export function extension(state = { turns: 0 }) {
  return (
    new Extension("{{name}}", "0.1.0")
      // `/{{command}} Ada` shows a line in the chat.
      .command("{{command}}", "Say hello", (args) => {
        const who = args.trim() === "" ? "world" : args;
        return Response.display(`Hello, ${who}! (${state.turns} turns so far)`);
      })
      // A tool the model can call; the SDK checks the arguments against the schema.
      .tool(
        {
          name: "{{tool}}",
          description: "Greet someone by name",
          schema: {
            type: "object",
            properties: {
              name: { type: "string", description: "Who to greet." },
              excited: { type: "boolean", description: "Shout the greeting." },
            },
            required: ["name"],
          },
        },
        /** @param {Greet} args */
        async (args) => ToolOutput.text(`Hello, ${args.name}${args.excited ? "!" : "."}`),
      )
      // A lifecycle event: handlers run in arrival order, one at a time.
      .on("turn_start", () => {
        state.turns += 1;
      })
  );
}
