// What handlers return, as the engine's outcomes (the contract's answer
// payloads): the one place where the facade's result types meet the
// generated contract types.

import type { CommandOutcome, InterceptOutcome, ToolOutcome } from "./generated/contract";
import { type CommandReply, Response, ToolOutput, type ToolReply, type Verdict } from "./results";

/** The engine's outcome for what a command handler returned. */
export function commandOutcome(r: Response | CommandReply | void): CommandOutcome {
  // `null` too: JavaScript handlers are not type-checked.
  return r === undefined || r === null ? {} : r instanceof Response ? r.fields : r;
}

/** The engine's outcome for what a tool handler returned. */
export function toolOutcome(r: ToolOutput | ToolReply | string | void): ToolOutcome {
  if (r === undefined || r === null) {
    return {};
  }
  if (typeof r === "string") {
    return { content: [{ type: "text", text: r }] };
  }
  return r instanceof ToolOutput ? r.toJSON() : r;
}

/** The engine's interception outcome for a verdict of the `event` interceptor. */
export function interceptOutcome(event: string, v: Verdict | void): InterceptOutcome {
  if (v === undefined || v === null) {
    return {};
  }
  switch (v.verdict) {
    case "block":
      return { block: true, reason: v.reason };
    case "modify":
      return { modified_args: v.args };
    case "replace":
      return "text" in v ? { replace_text: v.text } : event === "before_agent_start" ? { system_prompt: v.prompt } : {};
    default:
      return {};
  }
}
