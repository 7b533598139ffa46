"""guard: interception. Dangerous ``bash`` commands are blocked, a bare
``ls`` is rewritten, long runs are stopped, API keys are hidden from what
the user sees, and the system prompt gets one more sentence."""

from __future__ import annotations

import re

from zot_ext import (
    AssistantMessageIntercept,
    BeforeAgentStartIntercept,
    Extension,
    MessageVerdict,
    PromptVerdict,
    ToolCallIntercept,
    ToolCallVerdict,
    TurnStartIntercept,
    TurnVerdict,
)

ext = Extension("guard", "0.1.0")

REFUSED = ["rm -rf", "mkfs", "| sh"]
MAX_STEPS = 50
KEY = re.compile(r"sk-[A-Za-z0-9_-]{20,}")


@ext.intercept_tool_call
def tool_call(call: ToolCallIntercept) -> ToolCallVerdict:
    if call.get("tool_name") != "bash":
        return ToolCallVerdict.allow()
    command = call.get("tool_args", {}).get("command")
    if not isinstance(command, str):
        # A guard that cannot read the call must not open the gate: raising
        # blocks the call with the message as the reason.
        raise ValueError("guard: bash without a command")
    for bad in REFUSED:
        if bad in command:
            return ToolCallVerdict.block(f"guard: `{bad}` is not allowed")
    if command.strip() == "ls":
        return ToolCallVerdict.modify({"command": "ls -la"})
    return ToolCallVerdict.allow()


@ext.intercept_turn_start
def turn_start(turn: TurnStartIntercept) -> TurnVerdict:
    if turn.get("step", 0) > MAX_STEPS:
        return TurnVerdict.block(f"guard: more than {MAX_STEPS} steps")
    return TurnVerdict.allow()


@ext.intercept_assistant_message
def assistant_message(msg: AssistantMessageIntercept) -> MessageVerdict:
    text = msg.get("text", "")
    clean = KEY.sub("[redacted key]", text)
    return MessageVerdict.replace(clean) if clean != text else MessageVerdict.allow()


@ext.intercept_before_agent_start
def before_agent_start(req: BeforeAgentStartIntercept) -> PromptVerdict:
    prompt = req.get("system_prompt", "")
    return PromptVerdict.replace(f"{prompt}\n\nNever print secrets such as API keys.")


if __name__ == "__main__":
    ext.run()
