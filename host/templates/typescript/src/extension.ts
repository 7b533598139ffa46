// {{name}}: a zot extension with a slash command, a typed tool and an event
// handler. `npm test` compiles it and drives it in-process; `zot-host dev .`
// recompiles and restarts it on every change and gives you a REPL.
import { Extension, Response, ToolOutput } from "zot-ext";

/** The `{{tool}}` tool's arguments, as its schema below describes them. */
export interface Greet {
  name: string;
  excited?: boolean;
}

/** What the extension remembers: the turns its `turn_start` handler saw. */
export interface State {
  turns: number;
}

export function extension(state: State = { turns: 0 }): Extension {
  return (
    new Extension("{{name}}", "0.1.0")
      // `/{{command}} Ada` shows a line in the chat.
      .command("{{command}}", "Say hello", (args) => {
        const who = args.trim() === "" ? "world" : args;
        return Response.display(`Hello, ${who}! (${state.turns} turns so far)`);
      })
      // A tool the model can call; the SDK checks the arguments against the schema.
      .tool<Greet>(
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
        async (args) => ToolOutput.text(`Hello, ${args.name}${args.excited === true ? "!" : "."}`),
      )
      // A lifecycle event: handlers run in arrival order, one at a time.
      .on("turn_start", () => {
        state.turns += 1;
      })
  );
}
