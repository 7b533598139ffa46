// zot-ext: write zot extensions in Node.js and TypeScript.
//
// The public API. Every protocol rule lives in the Rust engine this package
// wraps; see README.md.

export {
  ArgumentError,
  CallToolError,
  NotRunningError,
  RegistrationError,
  SendError,
  SessionError,
  ZotError,
  type ZotErrorCode,
} from "./errors";
export { Extension } from "./extension";
export * from "./generated/protocol";
export type { CallToolResult, CommandReply, JsonObject, ToolReply, Verdict } from "./results";
export {
  firstText,
  MessageVerdict,
  PromptVerdict,
  Response,
  ToolCallVerdict,
  ToolOutput,
  TurnVerdict,
} from "./results";
export type { SchemaOutput, SchemaResult, Shape, ShapeOutput, StandardSchema } from "./schema";
export { protectStdout } from "./stdout";
export type {
  AssistantMessageInterceptor,
  Awaitable,
  BeforeAgentStartInterceptor,
  CallOptions,
  CallToolErrorKind,
  CommandHandler,
  Context,
  EventHandler,
  EventOf,
  HostInfo,
  InterceptHandler,
  PanelKeyInput,
  PanelSize,
  PanelUpdate,
  ToolCallInterceptor,
  ToolHandler,
  ToolSpec,
  TurnStartInterceptor,
  UnknownEvent,
} from "./types";
