// `guard`: interception. A tool-call guard that refuses destructive shell
// commands and rewrites others, a redactor for the visible assistant text,
// a turn limit, and a system-prompt addition.
//
// A guard that fails must not open the gate: an interceptor that throws is
// answered with `block` and the error as the reason (only the system-prompt
// hook, which cannot block, keeps the prompt). The host gives each
// interceptor 5 s; `ctx.signal` is aborted when that deadline passes.
import { pathToFileURL } from "node:url";

import { Extension, MessageVerdict, PromptVerdict, ToolCallVerdict, TurnVerdict } from "zot-ext";

/** Command fragments that are never run. */
const REFUSED = ["rm -rf", "mkfs", "| sh"];

/** Turns allowed per agent run. */
const MAX_STEPS = 50;

/** Hides anything that looks like an API key (`sk-` and 20 or more key characters). */
export function redact(text) {
  const clean = text.replace(/sk-[A-Za-z0-9_-]{20,}/g, "[redacted key]");
  return clean === text ? undefined : clean;
}

export function extension() {
  return new Extension("guard", "0.1.0")
    .interceptToolCall((call) => {
      if (call.tool_name !== "bash") {
        return ToolCallVerdict.allow();
      }
      const command = call.tool_args?.command;
      if (typeof command !== "string") {
        // An unreadable bash call is refused: the error becomes the reason.
        throw new Error("guard: bash without a string `command`");
      }
      const bad = REFUSED.find((b) => command.includes(b));
      if (bad !== undefined) {
        return ToolCallVerdict.block(`guard: \`${bad}\` is not allowed`);
      }
      if (command.trim() === "ls") {
        return ToolCallVerdict.modify({ command: "ls -la" });
      }
      return ToolCallVerdict.allow();
    })
    .interceptTurnStart((turn) =>
      (turn.step ?? 0) > MAX_STEPS ? TurnVerdict.block(`guard: more than ${MAX_STEPS} steps`) : TurnVerdict.allow(),
    )
    .interceptAssistantMessage((msg) => {
      const clean = redact(msg.text ?? "");
      return clean === undefined ? MessageVerdict.allow() : MessageVerdict.replace(clean);
    })
    .interceptBeforeAgentStart((req) =>
      PromptVerdict.replace(`${req.system_prompt ?? ""}\n\nNever print secrets such as API keys.`),
    );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await extension().run();
}
