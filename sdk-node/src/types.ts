// The hand-written API surface: handler and context types. Wire payloads
// (events, interception requests, frames) are the generated protocol types.

import type {
  AssistantMessageIntercept,
  BeforeAgentStartIntercept,
  Exposure,
  HelloAck,
  LifecycleEvent,
  LifecycleEventName,
  NotifyLevel,
  PanelKeyName,
  ToolCallIntercept,
  TurnStartIntercept,
} from "./generated/protocol";
import type {
  CallToolResult,
  CommandReply,
  JsonObject,
  MessageVerdict,
  PromptVerdict,
  Response,
  ToolCallVerdict,
  ToolOutput,
  ToolReply,
  TurnVerdict,
} from "./results";
import type { Shape, StandardSchema } from "./schema";

/** A value or a promise of it: every handler may be sync or `async`. */
export type Awaitable<T> = T | PromiseLike<T>;

/**
 * What the host said in `hello_ack`: host version, provider, model, the
 * user's project directory (`cwd`; the process itself runs in the extension
 * directory), `extension_dir`, `data_dir` and `capabilities`.
 */
export type HostInfo = Readonly<Omit<HelloAck, "type">>;

/** Options of one `callTool`. */
export interface CallOptions {
  /**
   * A durable call key (§9.5): checked locally, sent only to hosts that
   * advertise `call_tool_durable`.
   */
  key?: string | undefined;
  /** Gives up on the call when aborted (`call_tool_cancel` is sent). */
  signal?: AbortSignal | undefined;
  /** The deadline in milliseconds (60 000 by default); `call_tool_cancel` follows it. */
  timeoutMs?: number | undefined;
}

/**
 * The context of one handler invocation.
 *
 * `signal` is aborted when the invocation is cancelled: `tool_cancel`, the
 * interception deadline, `shutdown` or stdin EOF (for events and panel
 * input: the end of the session). Once a tool call is cancelled its result
 * is dropped, so a handler should stop and clean up.
 */
export interface Context {
  /**
   * The host's id of this invocation (`tool_call.id`, `command_invoked.id`
   * or `event_intercept.id`; empty for events and panel input).
   */
  readonly id: string;
  /** Aborted when this invocation is cancelled. */
  readonly signal: AbortSignal;
  /** The host's `hello_ack`. */
  readonly host: HostInfo;
  /**
   * Calls a host tool. From a tool handler the call's `parent_id` is this
   * invocation, and cancelling this invocation cancels the call. A tool that
   * ran and failed resolves with `is_error: true`; the call itself failing
   * (timeout, cancellation, session end, no host support) rejects with a
   * {@link CallToolError}.
   */
  callTool(name: string, args?: JsonObject, options?: CallOptions): Promise<CallToolResult>;
  /**
   * Shows a note (`level`: `info` by default, `success`, `warn`, `error`).
   * The 0.1 order `notify(level, message)` (a level first, then a message
   * that is not one) still works for one release, with a one-time
   * `DeprecationWarning`.
   */
  notify(message: string, level?: NotifyLevel): void;
  /** Writes `[<name>] message` to stderr (stdout is the wire). */
  log(message: string): void;
}

export type { CallToolErrorKind } from "./errors";

/** A tool registration. Every field but `name` is optional. */
export interface ToolSpec {
  /** Tool name (exact match; shares a namespace with the built-in tools). */
  name: string;
  /** Model-facing description. */
  description?: string | undefined;
  /**
   * The arguments: a JSON Schema (`{"type":"object"}` when absent; key order
   * is kept), or a schema of a validation library implementing Standard
   * Schema and Standard JSON Schema (a zod 4 `z.object(...)`): its JSON
   * Schema is sent to the host and every call's arguments are validated
   * before the handler runs (an invalid call gets an error result), or a
   * raw shape of such schemas (`{ name: z.string() }`, as MCP servers
   * write it), which stands for the object with those properties. A JSON
   * Schema is enforced by the engine before the handler runs, the same in
   * every SDK.
   */
  schema?: JsonObject | StandardSchema<object> | Shape | undefined;
  /** JSON Schema of `structured_content`, for programmatic callers. */
  outputSchema?: JsonObject | undefined;
  /** Discovery grouping (the extension name by default). */
  namespace?: string | undefined;
  /** Used in discovery ranking and `describeNamespace`. */
  namespaceDescription?: string | undefined;
  /** Used in discovery ranking and `describeNamespace`. */
  namespaceInstructions?: string | undefined;
  /** How the tool is advertised (`direct`, `codemode`, `deferred`, `model-only`). */
  exposure?: Exposure | undefined;
  /** Hidden until activated by another tool's `activate_tools`. */
  deferred?: boolean | undefined;
  /** The tool waits for the user: no host deadline in interactive hosts. */
  interactive?: boolean | undefined;
}

/** A slash command handler: gets the rest of the user's input. Returning nothing answers `noop`. */
export type CommandHandler = (args: string, ctx: Context) => Awaitable<Response | CommandReply | void>;

/**
 * A tool handler: gets the arguments (a JSON object the engine checked
 * against the tool's JSON Schema; with a library schema, the library's
 * output; with a JSON Schema, `A` is a type for what it allows) and returns a
 * {@link ToolOutput}, a string (one text block) or the wire fields. A thrown
 * error becomes an `is_error` result with its message.
 */
export type ToolHandler<A extends object = JsonObject> = (
  args: A,
  ctx: Context,
) => Awaitable<ToolOutput | ToolReply | string | void>;

/** An event this protocol version does not list (subscribed to by name). */
export interface UnknownEvent {
  type: "event";
  event: string;
  [key: string]: unknown;
}

/** The payload of the lifecycle event `N` (an {@link UnknownEvent} for other names). */
export type EventOf<N extends string> = N extends LifecycleEventName
  ? Extract<LifecycleEvent, { event: N }>
  : UnknownEvent;

/** A lifecycle event handler. Events run in arrival order, one at a time. */
export type EventHandler<E> = (event: E, ctx: Context) => Awaitable<void>;

/** An interceptor: returning nothing allows (or keeps) unchanged. */
export type InterceptHandler<R, V> = (request: R, ctx: Context) => Awaitable<V | void>;

/** A `tool_call` interceptor. */
export type ToolCallInterceptor = InterceptHandler<ToolCallIntercept, ToolCallVerdict>;
/** A `turn_start` interceptor. */
export type TurnStartInterceptor = InterceptHandler<TurnStartIntercept, TurnVerdict>;
/** An `assistant_message` interceptor. */
export type AssistantMessageInterceptor = InterceptHandler<AssistantMessageIntercept, MessageVerdict>;
/** A `before_agent_start` interceptor. */
export type BeforeAgentStartInterceptor = InterceptHandler<BeforeAgentStartIntercept, PromptVerdict>;

/** A key pressed in one of the extension's panels. */
export interface PanelKeyInput {
  /** The panel. */
  panel_id: string;
  /** The normalized key name (`up`, `down`, `enter`, `rune`, ...). */
  key: PanelKeyName;
  /** The typed character when `key` is `rune`. */
  text: string;
}

/** A panel's new size (no stored host sends it). */
export interface PanelSize {
  panel_id: string;
  width: number;
  height: number;
}

/** A redraw of a panel: the fields to change. */
export interface PanelUpdate {
  /** New title; empty keeps the current one. */
  title?: string | undefined;
  /** Replaces all body rows. */
  lines?: string[] | undefined;
  /** Replaces the footer. */
  footer?: string | undefined;
}
