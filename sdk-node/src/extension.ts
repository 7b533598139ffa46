// `Extension`: registration (commands, tools, events, interceptors, panels,
// on-hello hooks) and the spontaneous actions. Running it is the session's
// (`session.ts`), which dispatches the engine's jobs to these handlers.

import {
  CallToolError,
  duplicateRegistration,
  NotRunningError,
  RegistrationError,
  SendError,
  SessionError,
  wrapped,
} from "./errors";
import type { InterceptEventName, LifecycleEventName, NotifyLevel, PanelSpec } from "./generated/protocol";
import { type EngineOptions, type NativeEngine, native } from "./native";
import { noteArgs } from "./notify";
import type { CallToolResult, JsonObject } from "./results";
import type { AnyInterceptor, PanelHandlers, PanelRegistration } from "./routes";
import {
  isShape,
  isStandardSchema,
  jsonSchemaOf,
  type SchemaOutput,
  type Shape,
  type ShapeOutput,
  type StandardSchema,
  shapeSchema,
  validating,
} from "./schema";
import { Session } from "./session";
import { stdoutStreamToStderr } from "./stdout";
import type {
  AssistantMessageInterceptor,
  Awaitable,
  BeforeAgentStartInterceptor,
  CallOptions,
  CommandHandler,
  EventHandler,
  EventOf,
  HostInfo,
  PanelKeyInput,
  PanelSize,
  PanelUpdate,
  ToolCallInterceptor,
  ToolHandler,
  ToolSpec,
  TurnStartInterceptor,
} from "./types";

/**
 * A JSON Schema object that is not a raw shape: a shape's handler gets the
 * shape's types, and must not fall back to an untyped overload.
 */
type NotShape<S> = { [K in keyof S]: S[K] extends StandardSchema ? never : S[K] };

/**
 * The spec and handler of a `tool(...)` call in either form: `(spec,
 * handler)` or MCP's `(name, [description], [schema], handler)`. A call
 * that fits neither throws a `TypeError` saying what was expected, instead
 * of the engine's decoding error on a half-built spec.
 */
function toolArgs(args: unknown[]): [ToolSpec, ToolHandler<never>] {
  const handler = args[args.length - 1];
  if (typeof handler !== "function") {
    throw new TypeError("tool(): the last argument must be the handler function");
  }
  const [first, ...rest] = args.slice(0, -1);
  if (typeof first === "string") {
    const [description, schema, extra] = rest;
    if (extra !== undefined || (description !== undefined && typeof description !== "string")) {
      throw new TypeError("tool(name, description, schema, handler): description must be a string");
    }
    if (schema !== undefined && (schema === null || typeof schema !== "object")) {
      throw new TypeError(`tool ${JSON.stringify(first)}: the schema must be an object`);
    }
    const spec: ToolSpec = { name: first };
    if (description !== undefined) {
      spec.description = description;
    }
    if (schema !== undefined) {
      spec.schema = schema as JsonObject;
    }
    return [spec, handler as ToolHandler<never>];
  }
  if (first === null || typeof first !== "object" || rest.length > 0) {
    throw new TypeError("tool(): expected (spec, handler) or (name, description, schema, handler)");
  }
  const spec = first as ToolSpec;
  if (typeof spec.name !== "string") {
    throw new TypeError("tool(spec, handler): spec.name must be a string");
  }
  return [spec, handler as ToolHandler<never>];
}

/**
 * A zot extension: register commands, tools, event handlers, interceptors
 * and panels, then `run()`.
 *
 * ```ts
 * import { Extension, Response, ToolOutput } from "zot-ext";
 *
 * const ext = new Extension("hello", "1.0.0")
 *   .command("hi", "Say hi", (args) => Response.display(`hi ${args}`))
 *   .tool({ name: "greet", description: "Greet someone", schema: { type: "object", properties: { name: { type: "string" } } } },
 *     (args: { name?: string }) => ToolOutput.text(`Hello, ${args.name ?? "you"}!`));
 * await ext.run();
 * ```
 *
 * Registration mistakes (an invalid name, a schema that is not an object)
 * throw at once. Registrations made in an {@link Extension.onHello} hook
 * are announced with the others; later ones are sent at once.
 */
export class Extension {
  /** `hello.name` (should equal the manifest's `name`). */
  readonly name: string;
  /** `hello.version`. */
  readonly version: string;

  private readonly commands = new Map<string, { description: string; handler: CommandHandler }>();
  private readonly tools = new Map<string, { spec: string; derived: boolean; handler: ToolHandler<JsonObject> }>();
  private readonly events = new Map<string, EventHandler<never>>();
  private readonly intercepts = new Map<InterceptEventName, AnyInterceptor>();
  private readonly helloHooks: Array<(info: HostInfo) => Awaitable<void>> = [];
  /** Each panel's current handlers, under the number bound in the engine. */
  private readonly panels = new Map<string, PanelRegistration>();
  private lastPanelRegistration = 0;

  private engine: NativeEngine | undefined;
  /** The running session (`session.ts`): the dispatcher of the engine's jobs. */
  private session: Session | undefined;
  private started = false;

  constructor(name: string, version: string) {
    this.name = name;
    this.version = version;
  }

  /** The host's `hello_ack`, once the handshake happened. */
  get host(): HostInfo | undefined {
    return this.session?.host;
  }

  /**
   * Registers a slash command. A refused name, or one registered before
   * (compared case-insensitively, as hosts do), throws a
   * {@link RegistrationError}.
   */
  command(name: string, description: string, handler: CommandHandler): this {
    wrapped(
      () => native().checkCommand(name),
      (m, o) => new RegistrationError(m, o),
    );
    const key = name.toLowerCase();
    const registered = [...this.commands.keys()].find((c) => c.toLowerCase() === key);
    if (registered !== undefined) {
      throw duplicateRegistration("command", name, registered);
    }
    this.commands.set(name, { description, handler });
    if (this.engine !== undefined) {
      const engine = this.running();
      wrapped(
        () => engine.registerCommand(name, description),
        (m, o) => new RegistrationError(m, o),
      );
    }
    return this;
  }

  /**
   * Registers a tool: a {@link ToolSpec}
   * and a handler, or MCP's positional form `tool(name, description?,
   * schema?, handler)`.
   *
   * The schema may be a JSON Schema object, a library schema
   * (`z.object({...})`, any Standard Schema with Standard JSON Schema) or a
   * raw shape of library schemas (`{ city: z.string() }`). Every call's
   * arguments are validated by the engine against the tool's JSON Schema
   * before the handler runs, with the same `invalid arguments: …` message
   * in every SDK; a library schema (or shape) then also parses them, so the
   * handler gets the library's output (defaults, transforms) typed by the
   * schema. With a JSON Schema object, `A` types the arguments. A refused
   * registration, or a name registered before, throws a
   * {@link RegistrationError}.
   */
  tool<S extends Shape>(spec: ToolSpec & { schema: S }, handler: ToolHandler<ShapeOutput<S>>): this;
  tool<S extends StandardSchema<object>>(spec: ToolSpec & { schema: S }, handler: ToolHandler<SchemaOutput<S>>): this;
  tool<A extends object = JsonObject, S extends JsonObject = JsonObject>(
    spec: ToolSpec & { schema?: (S & NotShape<S>) | undefined },
    handler: ToolHandler<A>,
  ): this;
  tool<S extends Shape>(name: string, description: string, shape: S, handler: ToolHandler<ShapeOutput<S>>): this;
  tool<S extends StandardSchema<object>>(
    name: string,
    description: string,
    schema: S,
    handler: ToolHandler<SchemaOutput<S>>,
  ): this;
  tool<A extends object = JsonObject, S extends JsonObject = JsonObject>(
    name: string,
    description: string,
    schema: S & NotShape<S>,
    handler: ToolHandler<A>,
  ): this;
  tool(name: string, description: string, handler: ToolHandler<JsonObject>): this;
  tool(name: string, handler: ToolHandler<JsonObject>): this;
  tool(...args: unknown[]): this {
    const [spec, handler] = toolArgs(args);
    const given = isShape(spec.schema) ? shapeSchema(spec.name, spec.schema) : spec.schema;
    const library = isStandardSchema(given) ? given : undefined;
    const json = JSON.stringify({
      name: spec.name,
      description: spec.description,
      schema: library === undefined ? given : jsonSchemaOf(spec.name, library),
      output_schema: spec.outputSchema,
      namespace: spec.namespace,
      namespace_description: spec.namespaceDescription,
      namespace_instructions: spec.namespaceInstructions,
      exposure: spec.exposure,
      deferred: spec.deferred,
      interactive: spec.interactive,
    });
    // A schema converted from zod (or absent) is valid by construction: the
    // engine skips the meta-schema and builds its check on the first call.
    const derived = library !== undefined || given === undefined;
    wrapped(
      () => native().checkTool(json, derived),
      (m, o) => new RegistrationError(m, o),
    );
    if (this.tools.has(spec.name)) {
      throw duplicateRegistration("tool", spec.name, spec.name);
    }
    const run = library === undefined ? (handler as ToolHandler<JsonObject>) : validating(library, handler);
    this.tools.set(spec.name, { spec: json, derived, handler: run });
    if (this.engine !== undefined) {
      const engine = this.running();
      wrapped(
        () => engine.registerTool(json, derived),
        (m, o) => new RegistrationError(m, o),
      );
    }
    return this;
  }

  /**
   * Handles a lifecycle event. The payload is typed by the event name; a
   * name that is no lifecycle event throws a {@link RegistrationError}
   * listing them. Registering again replaces the handler without moving the
   * event in `subscribe.events`.
   */
  on<N extends LifecycleEventName>(event: N, handler: EventHandler<EventOf<N>>): this;
  on(event: string, handler: EventHandler<EventOf<string>>): this;
  on(event: string, handler: EventHandler<never>): this {
    wrapped(
      () => native().checkEvent(event),
      (m, o) => new RegistrationError(m, o),
    );
    this.events.set(event, handler);
    if (this.engine !== undefined) {
      this.running().subscribe(event);
    }
    return this;
  }

  private interceptor(event: InterceptEventName, handler: AnyInterceptor): this {
    wrapped(
      () => native().checkIntercept(event),
      (m, o) => new RegistrationError(m, o),
    );
    this.intercepts.set(event, handler);
    if (this.engine !== undefined) {
      this.running().intercept(event);
    }
    return this;
  }

  /** Intercepts tool calls: allow, block, or rewrite the arguments. */
  interceptToolCall(handler: ToolCallInterceptor): this {
    return this.interceptor("tool_call", handler);
  }

  /** Intercepts model steps: allow or block. */
  interceptTurnStart(handler: TurnStartInterceptor): this {
    return this.interceptor("turn_start", handler);
  }

  /** Intercepts the assistant's visible text: allow, block or replace. */
  interceptAssistantMessage(handler: AssistantMessageInterceptor): this {
    return this.interceptor("assistant_message", handler);
  }

  /** Intercepts the system prompt before the agent starts: keep or replace. */
  interceptBeforeAgentStart(handler: BeforeAgentStartInterceptor): this {
    return this.interceptor("before_agent_start", handler);
  }

  /**
   * Runs `hook` after the host's `hello_ack` and before anything is
   * announced; registrations made in it are announced with the others.
   */
  onHello(hook: (info: HostInfo) => Awaitable<void>): this {
    this.helloHooks.push(hook);
    return this;
  }

  /**
   * Routes `panel_key` for `panelId` to `onKey` and the host's `panel_close`
   * to `onClose` (after which the panel's handlers are forgotten). Input
   * runs in arrival order, one key at a time; keys for panels without
   * handlers are ignored.
   */
  onPanelKey(panelId: string, onKey: (key: PanelKeyInput) => Awaitable<void>, onClose?: () => Awaitable<void>): this {
    this.setPanel(panelId, onClose === undefined ? { onKey } : { onKey, onClose });
    return this;
  }

  /** Calls `onClose` when the host closes `panelId` (Esc / Ctrl+C). */
  onPanelClose(panelId: string, onClose: () => Awaitable<void>): this {
    this.setPanel(panelId, { onClose });
    return this;
  }

  /** Routes `panel_resize` for `panelId` (no stored host sends it). */
  onPanelResize(panelId: string, onResize: (size: PanelSize) => Awaitable<void>): this {
    this.setPanel(panelId, { onResize });
    return this;
  }

  /** Forgets every handler of `panelId`. */
  forgetPanel(panelId: string): void {
    this.panels.delete(panelId);
    this.engine?.unbindPanel(panelId);
  }

  /**
   * Registering gives the panel's handlers a fresh number, bound in the
   * engine: input that arrived for an older registration is then stale.
   */
  private setPanel(panelId: string, change: PanelHandlers): void {
    const registration = ++this.lastPanelRegistration;
    this.panels.set(panelId, { ...this.panels.get(panelId), ...change, registration });
    this.engine?.bindPanel(panelId, registration);
  }

  private running(): NativeEngine {
    if (this.engine === undefined) {
      throw new NotRunningError(`zot-ext: extension ${this.name} is not running`);
    }
    // Answers produced before this frame leave before it.
    this.session?.answers.flush();
    return this.engine;
  }

  /**
   * Shows a note (`notify`; `level`: `info` by default, `success`, `warn`,
   * `error`). Throws a {@link NotRunningError} when the session is not
   * running, a {@link SendError} when the engine refuses the frame. The 0.1
   * order `notify(level, message)` (a level first, then a message that is
   * not one) still works for one release, with a one-time
   * `DeprecationWarning`.
   */
  notify(message: string, level?: NotifyLevel): void {
    this.note(message, level);
  }

  private note(first: string, second: string | undefined): void {
    const [message, level] = noteArgs(first, second);
    const engine = this.running();
    wrapped(
      () => engine.send(JSON.stringify({ type: "notify", level, message })),
      (m, o) => new SendError(m, o),
    );
  }

  /** Removes this extension's notes (`clear_notes`). */
  clearNotes(): void {
    const engine = this.running();
    wrapped(
      () => engine.send('{"type":"clear_notes"}'),
      (m, o) => new SendError(m, o),
    );
  }

  /** Submits a prompt as if typed (`submit`; interactive hosts only). */
  submit(text: string): void {
    const engine = this.running();
    wrapped(
      () => engine.send(JSON.stringify({ type: "submit", text })),
      (m, o) => new SendError(m, o),
    );
  }

  /** Runs a slash command as if typed (`submit_slash`). */
  submitSlash(text: string): void {
    const engine = this.running();
    wrapped(
      () => engine.send(JSON.stringify({ type: "submit_slash", text })),
      (m, o) => new SendError(m, o),
    );
  }

  /** Opens a panel outside any command (spontaneous `open_panel`). */
  openPanel(panel: PanelSpec): void {
    const engine = this.running();
    wrapped(
      () => engine.send(JSON.stringify({ type: "open_panel", panel })),
      (m, o) => new SendError(m, o),
    );
  }

  /** Redraws a panel: new body rows, or the fields to change. */
  renderPanel(panelId: string, update: readonly string[] | PanelUpdate): void {
    const fields: PanelUpdate = Array.isArray(update)
      ? { lines: [...(update as readonly string[])] }
      : (update as PanelUpdate);
    const engine = this.running();
    wrapped(
      () => engine.send(JSON.stringify({ type: "panel_render", panel_id: panelId, ...fields })),
      (m, o) => new SendError(m, o),
    );
  }

  /** Closes a panel (`panel_close`) and forgets its handlers. */
  closePanel(panelId: string): void {
    this.forgetPanel(panelId);
    const engine = this.running();
    wrapped(
      () => engine.send(JSON.stringify({ type: "panel_close", panel_id: panelId })),
      (m, o) => new SendError(m, o),
    );
  }

  /** Writes `[<name>] message` to stderr (stdout is the wire). */
  log(message: string): void {
    if (this.engine !== undefined) {
      this.engine.log(message);
    } else {
      native().logLine(this.name, message);
    }
  }

  /**
   * Calls a host tool outside any handler (no `parent_id`). Inside a
   * handler use `ctx.callTool`, which links the call to the invocation.
   */
  callTool(name: string, args: JsonObject = {}, options: CallOptions = {}): Promise<CallToolResult> {
    if (this.session === undefined) {
      return Promise.reject(new CallToolError("call_tool is not available before the handshake", "not_ready"));
    }
    return this.session.startCall(undefined, name, args, options);
  }

  /**
   * Runs the extension on stdin/stdout until the host sends `shutdown` or
   * closes stdin. Resolves once the session is over; rejects when it failed
   * (e.g. the first host line was not `hello_ack`).
   */
  run(): Promise<void> {
    let engine: NativeEngine;
    try {
      this.claim();
      engine = wrapped(
        () => native().NativeEngine.stdio(this.name, this.version, undefined),
        (m, o) => new SessionError(`zot-ext: cannot start: ${m}`, o),
      );
      stdoutStreamToStderr();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.serve(engine);
  }

  /**
   * @internal Starts the extension on an in-memory engine (the testing
   * harness); returns the engine and the session's promise.
   */
  _serveInMemory(options: EngineOptions): { engine: NativeEngine; finished: Promise<void> } {
    this.claim();
    const engine = native().NativeEngine.memory(this.name, this.version, options);
    return { engine, finished: this.serve(engine) };
  }

  private claim(): void {
    if (this.started) {
      throw new SessionError(`zot-ext: extension ${this.name} is already running`);
    }
    this.started = true;
  }

  private serve(engine: NativeEngine): Promise<void> {
    this.engine = engine;
    for (const [panelId, p] of this.panels) {
      engine.bindPanel(panelId, p.registration);
    }
    const session = new Session(engine, {
      name: this.name,
      commands: this.commands,
      tools: this.tools,
      events: this.events,
      intercepts: this.intercepts,
      helloHooks: this.helloHooks,
      panels: this.panels,
      log: (m) => this.log(m),
      note: (first, second) => this.note(first, second),
    });
    this.session = session;
    return session.finished;
  }
}
