// Typed use of the generated protocol types, checked by
// `tsc --strict --noEmit` (never run): it proves that the generated module
// compiles, that the unions narrow on `type` and `event`, and that optional
// keys are optional while required ones are not.

import {
  type ContentBlock,
  EXT_FRAME_TYPES,
  type ExtFrame,
  type ExtFrameType,
  type Hello,
  HOST_FRAME_TYPES,
  type HostFrame,
  type InterceptRequest,
  LIFECYCLE_EVENTS,
  type LifecycleEvent,
  type LifecycleEventName,
  type PanelClose,
  type ToolStatus,
} from "../src/generated/protocol.js";

// A literal frame; optional keys left out.
const hello: Hello = { type: "hello", name: "demo", capabilities: ["tools", "call_tool"] };

// @ts-expect-error `name` is required.
const nameless: Hello = { type: "hello" };

// The same `PanelClose` type is a frame of both directions.
const close: PanelClose = { type: "panel_close", panel_id: "p" };
const outbound: ExtFrame[] = [
  hello,
  { type: "ready" },
  close,
  { type: "tool_result", id: "1", content: [{ type: "text", text: "hi" }], structured_content: 42 },
  { type: "register_tool", name: "echo", schema: { type: "object" }, exposure: "model-only" },
];
const inbound: HostFrame = close;

function describe(frame: HostFrame): string {
  switch (frame.type) {
    case "tool_call":
      return `call ${frame.name} #${frame.id}`;
    case "tool_result":
      // The host's tool_result (HostToolResult), which has `truncated`.
      return `${frame.id}${frame.truncated === true ? " (truncated)" : ""}: ${text(frame.content ?? [])}`;
    case "event":
      return onEvent(frame);
    case "event_intercept":
      return onIntercept(frame);
    case "panel_resize":
      return `${frame.width}x${frame.height}`;
    default:
      return frame.type;
  }
}

function onEvent(event: LifecycleEvent): string {
  switch (event.event) {
    case "turn_start":
      return `turn ${event.step ?? 0}`;
    case "tool_result": {
      const status: ToolStatus = event.status;
      return status;
    }
    case "session_end":
      return event.reason;
    case "permission_decision":
      return `${event.decision} by ${event.source}`;
    default: {
      const name: LifecycleEventName = event.event;
      return name;
    }
  }
}

function onIntercept(request: InterceptRequest): string {
  if (request.event === "before_agent_start") return request.system_prompt ?? "";
  if (request.event === "tool_call") return JSON.stringify(request.tool_args ?? {});
  return request.id;
}

function text(blocks: ContentBlock[]): string {
  return blocks.map((b) => (b.type === "text" ? (b.text ?? "") : `[${b.mime_type ?? "image"}]`)).join("");
}

// Exhaustiveness: every member of the union is handled.
function exhaustive(frame: ExtFrame): ExtFrameType {
  switch (frame.type) {
    case "hello":
    case "register_command":
    case "register_tool":
    case "subscribe":
    case "ready":
    case "command_response":
    case "tool_result":
    case "event_intercept_response":
    case "call_tool":
    case "call_tool_cancel":
    case "notify":
    case "clear_notes":
    case "submit":
    case "submit_slash":
    case "open_panel":
    case "panel_render":
    case "panel_close":
    case "shutdown_ack":
      return frame.type;
    default: {
      const never: never = frame;
      return never;
    }
  }
}

// The tag lists are readonly tuples of the tag types.
const firstType: ExtFrameType = EXT_FRAME_TYPES[0];
const eventNames: readonly LifecycleEventName[] = LIFECYCLE_EVENTS;
const hostTypes: readonly HostFrame["type"][] = HOST_FRAME_TYPES;

export const uses = [nameless, outbound, describe(inbound), exhaustive(hello), firstType, eventNames, hostTypes];
