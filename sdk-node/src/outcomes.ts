// What handlers return, as the engine's answers (the generated contract's
// `Answer` and its outcomes): the one place where the facade's result types
// meet the generated contract types.

import type { Answer, CommandOutcome, InterceptOutcome, ToolOutcome } from "./generated/contract";
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

/** The answer to command job `job`. */
export function commandAnswer(job: number, r: Response | CommandReply | void): Answer {
  return { job, command: commandOutcome(r) };
}

/** The answer to tool job `job`: one text block as `text` (no outcome object). */
export function toolAnswer(job: number, r: ToolOutput | ToolReply | string | void): Answer {
  const text = typeof r === "string" ? r : r instanceof ToolOutput ? r.onlyText() : undefined;
  return text !== undefined ? { job, text } : { job, tool: toolOutcome(r) };
}

/** The answer to interception job `job` of `event`. */
export function interceptAnswer(job: number, event: string, v: Verdict | void): Answer {
  return { job, intercept: interceptOutcome(event, v) };
}
