// `Extension`: registration and the dispatcher of the engine's jobs.
//
// The engine (Rust) owns the protocol: it writes `hello`, decodes frames,
// keeps ids, deadlines and cancellation state, matches `call_tool` results
// and writes every frame. This file only takes batches of jobs, runs the
// user's handlers and answers each job with `complete(id, outcome)` or
// `fail(id, message)`. Over stdio the engine reads the handshake; with the
// first requests this file takes the host's pipe over (`takeWireFd`),
// reads it on Node's own event loop and feeds each chunk to the engine,
// which returns that chunk's jobs at once (no thread hand-off per request;
// the engine's rules are unchanged). What the engine queues by itself
// (deadlines, the end of the session) is taken after `jobsReady()`.
//
// - commands, tools and interceptors run concurrently;
// - events and panel input run in arrival order, one at a time (SDK-35); a
//   synchronous handler runs at once, so a burst is handled before the
//   batch's later jobs start;
// - `cancel` jobs abort the job's `AbortSignal` (a cancel in the same batch
//   as its job aborts the signal before the handler starts);
// - `call_result` jobs settle `callTool` promises;
// - `finished` ends `run()`. While `jobsReady()` is pending (and the pipe
//   is open) Node's loop stays alive; after `finished` nothing
//   keeps it, so the process exits on its own once the user's handlers are
//   done.

import type { Socket } from "node:net";
import { CallToolError, NotRunningError, RegistrationError, SendError, SessionError, wrapped } from "./errors";
import type { CallStart, CallStarted, CommandOutcome, InterceptOutcome, Job, ToolOutcome } from "./generated/contract";
import type {
  AssistantMessageIntercept,
  BeforeAgentStartIntercept,
  InterceptEventName,
  LifecycleEvent,
  LifecycleEventName,
  NotifyLevel,
  PanelSpec,
  ToolCallIntercept,
  TurnStartIntercept,
} from "./generated/protocol";
import { type EngineOptions, type FeedOutput, type NativeEngine, native } from "./native";
import { noteArgs } from "./notify";
import {
  type CallToolResult,
  type CommandReply,
  type JsonObject,
  Response,
  ToolOutput,
  type ToolReply,
  type Verdict,
} from "./results";
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
import type {
  AssistantMessageInterceptor,
  Awaitable,
  BeforeAgentStartInterceptor,
  CallOptions,
  CommandHandler,
  Context,
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
 * An event or panel job; panel input carries the handlers it is for,
 * resolved when it arrived (see `dispatch`).
 */
type SerialJob = Extract<Job, { kind: "event" | "panel_key" | "panel_close" | "panel_resize" }> & {
  target?: PanelHandlers | undefined;
};

interface PanelHandlers {
  onKey?: ((key: PanelKeyInput) => Awaitable<void>) | undefined;
  onClose?: (() => Awaitable<void>) | undefined;
  onResize?: ((size: PanelSize) => Awaitable<void>) | undefined;
}

interface PendingCall {
  resolve(result: CallToolResult): void;
  reject(error: CallToolError): void;
  cleanup(): void;
}

type AnyInterceptor = (request: never, ctx: Context) => Awaitable<Verdict | void>;

function message(e: unknown): string {
  if (e instanceof Error) {
    return e.message;
  }
  return typeof e === "string" ? e : String(e);
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === "object" || typeof v === "function") &&
    v !== null &&
    typeof (v as { then?: unknown }).then === "function"
  );
}

/** Calls `f`, turning a synchronous throw into a rejection. */
function attempt<T>(f: () => Awaitable<T>): Promise<T> {
  try {
    return Promise.resolve(f());
  } catch (e) {
    return Promise.reject(e);
  }
}

/** The engine's outcome for what a command handler returned. */
function commandOutcome(r: Response | CommandReply | void): CommandOutcome {
  // `null` too: JavaScript handlers are not type-checked.
  return r === undefined || r === null ? {} : r instanceof Response ? r.fields : r;
}

/** The engine's outcome for what a tool handler returned. */
function toolOutcome(r: ToolOutput | ToolReply | string | void): ToolOutcome {
  if (r === undefined || r === null) {
    return {};
  }
  if (typeof r === "string") {
    return { content: [{ type: "text", text: r }] };
  }
  return r instanceof ToolOutput ? r.toJSON() : r;
}

/** The engine's interception outcome for a verdict of the `event` interceptor. */
function interceptOutcome(event: string, v: Verdict | void): InterceptOutcome {
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
  private readonly tools = new Map<string, { spec: string; handler: ToolHandler<JsonObject> }>();
  private readonly events = new Map<string, EventHandler<never>>();
  private readonly intercepts = new Map<InterceptEventName, AnyInterceptor>();
  private readonly helloHooks: Array<(info: HostInfo) => Awaitable<void>> = [];
  private readonly panels = new Map<string, PanelHandlers>();

  private engine: NativeEngine | undefined;
  private hostInfo: HostInfo | undefined;
  private started = false;
  private readonly controllers = new Map<number, LazyAbort>();
  private eventContext: Context | undefined;
  private readonly calls = new Map<number, PendingCall>();
  private readonly session = new AbortController();
  private readonly serialQueue: SerialJob[] = [];
  private serialBusy = false;
  /** Batches taken and not handled yet (one waits for the on-hello hook). */
  private readonly inbox: Job[][] = [];
  private helloRunning = false;
  private over = false;
  private ended: { resolve: () => void; reject: (e: Error) => void } | undefined;
  /** The host's pipe, read here and fed to the engine (`stdioFed`). */
  private wire: Socket | undefined;
  private wirePaused = false;
  private resumeQueued = false;
  private fedMode = false;
  private wireAsked = false;

  constructor(name: string, version: string) {
    this.name = name;
    this.version = version;
  }

  /** The host's `hello_ack`, once the handshake happened. */
  get host(): HostInfo | undefined {
    return this.hostInfo;
  }

  /**
   * Registers a slash command (replacing one of the same name). A refused
   * name throws a {@link RegistrationError}.
   */
  command(name: string, description: string, handler: CommandHandler): this {
    wrapped(
      () => native().checkCommand(name),
      (m, o) => new RegistrationError(m, o),
    );
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
   * Registers a tool (replacing one of the same name): a {@link ToolSpec}
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
   * registration throws a {@link RegistrationError}.
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
    wrapped(
      () => native().checkTool(json),
      (m, o) => new RegistrationError(m, o),
    );
    const run = library === undefined ? (handler as ToolHandler<JsonObject>) : validating(library, handler);
    this.tools.set(spec.name, { spec: json, handler: run });
    if (this.engine !== undefined) {
      const engine = this.running();
      wrapped(
        () => engine.registerTool(json),
        (m, o) => new RegistrationError(m, o),
      );
    }
    return this;
  }

  /**
   * Handles a lifecycle event. The payload is typed by the event name; any
   * other name subscribes to an event this protocol version does not list.
   * Registering again replaces the handler without moving the event in
   * `subscribe.events`.
   */
  on<N extends LifecycleEventName>(event: N, handler: EventHandler<EventOf<N>>): this;
  on(event: string, handler: EventHandler<EventOf<string>>): this;
  on(event: string, handler: EventHandler<never>): this {
    if (event === "") {
      throw new RegistrationError("event names must not be empty");
    }
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
  }

  /**
   * Registering replaces the panel's handler object (never mutates it):
   * input bound to an older registration on arrival is then recognised as
   * stale.
   */
  private setPanel(panelId: string, change: PanelHandlers): void {
    this.panels.set(panelId, { ...this.panels.get(panelId), ...change });
  }

  private running(): NativeEngine {
    if (this.engine === undefined) {
      throw new NotRunningError(`zot-ext: extension ${this.name} is not running`);
    }
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
      () => engine.notify(level, message),
      (m, o) => new SendError(m, o),
    );
  }

  /** Removes this extension's notes (`clear_notes`). */
  clearNotes(): void {
    const engine = this.running();
    wrapped(
      () => engine.clearNotes(),
      (m, o) => new SendError(m, o),
    );
  }

  /** Submits a prompt as if typed (`submit`; interactive hosts only). */
  submit(text: string): void {
    const engine = this.running();
    wrapped(
      () => engine.submit(text),
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
      () => engine.openPanel(JSON.stringify(panel)),
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
      () => engine.renderPanel(JSON.stringify({ panel_id: panelId, ...fields })),
      (m, o) => new SendError(m, o),
    );
  }

  /** Closes a panel (`panel_close`) and forgets its handlers. */
  closePanel(panelId: string): void {
    this.forgetPanel(panelId);
    const engine = this.running();
    wrapped(
      () => engine.closePanel(panelId),
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
    return this.startCall(undefined, name, args, options);
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
      // Once the session runs, the host's pipe is read on this thread's
      // event loop and fed to the engine: no thread hand-off per request
      // (`takeWire`). The engine reads the handshake, which keeps loading
      // `node:net` off the start-up path.
      engine = wrapped(
        () => native().NativeEngine.stdioFed(this.name, this.version, undefined),
        (m, o) => new SessionError(`zot-ext: cannot start: ${m}`, o),
      );
    } catch (e) {
      return Promise.reject(e);
    }
    return this.serve(engine, true);
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

  private serve(engine: NativeEngine, fed = false): Promise<void> {
    this.engine = engine;
    this.fedMode = fed;
    this.registerAll(engine);
    const done = new Promise<void>((resolve, reject) => {
      this.ended = { resolve, reject };
    });
    void this.pullQueued(engine);
    return done;
  }

  /** After the handshake: read the host's pipe here from now on. */
  private takeWire(engine: NativeEngine): void {
    if (!this.fedMode || this.over || this.wire !== undefined) {
      return;
    }
    const fd = engine.takeWireFd();
    if (fd !== null) {
      this.readWire(engine, fd);
    }
  }

  /**
   * Takes what the engine queues (everything while it reads itself; once
   * the pipe is fed, only what it queues on its own: deadlines, the end of
   * the session) on this thread, so that batches from here and from `feed`
   * are handled in the order taken.
   */
  private async pullQueued(engine: NativeEngine): Promise<void> {
    while (!this.over) {
      await engine.jobsReady();
      if (!this.over) {
        this.deliver(engine, JSON.parse(engine.tryNextJobs()) as Job[]);
      }
    }
  }

  /** Reads the host's pipe and feeds every chunk to the engine. */
  private readWire(engine: NativeEngine, fd: number): void {
    // Loaded here, not at import: `net` costs ~1.3 ms.
    const { Socket } = require("node:net") as typeof import("node:net");
    const wire = new Socket({ fd, readable: true, writable: false });
    this.wire = wire;
    wire.on("data", (chunk: Buffer) => this.fed(engine, engine.feed(chunk)));
    wire.on("end", () => this.fed(engine, engine.feedEnd(null)));
    wire.on("error", (e: Error) => this.fed(engine, engine.feedEnd(e.message)));
  }

  private fed(engine: NativeEngine, out: FeedOutput): void {
    const wire = this.wire;
    if (wire !== undefined) {
      if (out.ended) {
        this.wire = undefined;
        wire.destroy();
      } else if (out.paused !== this.wirePaused) {
        // Held for the on-hello hook or a full event backlog; an empty feed
        // says when to go on (`resumeFeed`).
        this.wirePaused = out.paused;
        if (out.paused) {
          wire.pause();
        } else {
          wire.resume();
        }
      }
    }
    this.deliver(engine, JSON.parse(out.jobs) as Job[]);
  }

  /**
   * Goes on reading after a pause, once its cause may be gone. Deferred to
   * a microtask: it may dispatch jobs, never from inside a handler's call.
   */
  private resumeFeed(engine: NativeEngine): void {
    if (!this.wirePaused || this.resumeQueued) {
      return;
    }
    this.resumeQueued = true;
    queueMicrotask(() => {
      this.resumeQueued = false;
      if (this.wirePaused && this.wire !== undefined) {
        this.fed(engine, engine.feed(EMPTY));
      }
    });
  }

  /** Handles batches in the order taken; the on-hello hook holds the rest. */
  private deliver(engine: NativeEngine, batch: Job[]): void {
    if (batch.length > 0) {
      this.inbox.push(batch);
    }
    while (!this.helloRunning && !this.over) {
      const next = this.inbox.shift();
      if (next === undefined) {
        return;
      }
      this.handleBatch(engine, next);
    }
  }

  private handleBatch(engine: NativeEngine, batch: Job[]): void {
    const cancelled = new Set<number>();
    for (const job of batch) {
      if (job.kind === "cancel") {
        cancelled.add(job.id);
      }
    }
    // Replies of handlers that answer within this turn of the event loop
    // (synchronous ones, and promises that settle in microtasks) leave in
    // one write: held until the check phase, after the microtasks ran.
    engine.holdReplies();
    setImmediate(() => this.report("writer", "flush", () => engine.releaseReplies()));
    for (let i = 0; i < batch.length; i++) {
      const job = batch[i] as Job;
      if (job.kind === "hello") {
        const rest = batch.slice(i + 1);
        if (rest.length > 0) {
          this.inbox.unshift(rest);
        }
        this.helloRunning = true;
        // The frame minus its `type`: what `HostInfo` promises.
        const { type: _frame, ...host } = job.hello_ack;
        void this.hello(engine, host).finally(() => {
          this.helloRunning = false;
          this.deliver(engine, []);
        });
        return;
      }
      if (job.kind === "finished") {
        this.finish();
        if (job.error !== undefined) {
          this.ended?.reject(new SessionError(`zot-ext: ${job.error}`));
        } else {
          this.ended?.resolve();
        }
        return;
      }
      this.dispatch(engine, job, cancelled);
    }
    if (this.fedMode && !this.wireAsked) {
      // The first requests came through the engine's reader: take the pipe
      // over after this batch's replies (off the start-up path, where
      // loading `node:net` would delay `ready`).
      this.wireAsked = true;
      setImmediate(() => this.takeWire(engine));
    }
  }

  /**
   * Hands every registration made before `run` to the engine, right after
   * it starts (so the engine knows the handlers while it reads the first
   * frames). Later registrations go to the engine at once: the engine holds
   * them until `helloDone` announces everything, or writes them right away
   * after that.
   */
  private registerAll(engine: NativeEngine): void {
    const refused = (what: string, e: unknown): void => this.log(`${what} not registered: ${message(e)}`);
    for (const [name, c] of this.commands) {
      try {
        engine.registerCommand(name, c.description);
      } catch (e) {
        refused(`command ${JSON.stringify(name)}`, e);
      }
    }
    for (const [name, t] of this.tools) {
      try {
        engine.registerTool(t.spec);
      } catch (e) {
        refused(`tool ${JSON.stringify(name)}`, e);
      }
    }
    for (const name of this.events.keys()) {
      try {
        engine.subscribe(name);
      } catch (e) {
        refused(`event ${JSON.stringify(name)}`, e);
      }
    }
    for (const name of this.intercepts.keys()) {
      try {
        engine.intercept(name);
      } catch (e) {
        refused(`interceptor ${JSON.stringify(name)}`, e);
      }
    }
  }

  private async hello(engine: NativeEngine, ack: HostInfo): Promise<void> {
    this.hostInfo = ack;
    for (const hook of this.helloHooks) {
      try {
        await hook(ack);
      } catch (e) {
        this.log(`on-hello hook failed: ${message(e)}`);
      }
    }
    try {
      engine.helloDone();
    } catch (e) {
      this.log(`handshake not completed: ${message(e)}`);
    }
  }

  private finish(): void {
    this.over = true;
    const wire = this.wire;
    this.wire = undefined;
    wire?.destroy();
    this.session.abort();
    for (const c of this.controllers.values()) {
      c.abort();
    }
    this.controllers.clear();
    for (const [, call] of this.calls) {
      call.cleanup();
      call.reject(new CallToolError("the connection to the host closed", "closed"));
    }
    this.calls.clear();
  }

  private dispatch(
    engine: NativeEngine,
    job: Exclude<Job, { kind: "hello" | "finished" }>,
    cancelled: Set<number>,
  ): void {
    switch (job.kind) {
      case "command": {
        const c = this.commands.get(job.name);
        if (c === undefined) {
          this.report("command", job.name, () => engine.fail(job.id, `no handler for /${job.name}`));
          return;
        }
        this.runJob(
          engine,
          job.id,
          job.invocation,
          cancelled,
          "command",
          `/${job.name}`,
          (ctx) => c.handler(job.args, ctx),
          commandOutcome,
        );
        return;
      }
      case "tool": {
        const t = this.tools.get(job.name);
        if (t === undefined) {
          this.report("tool", job.name, () => engine.fail(job.id, `no handler for tool ${JSON.stringify(job.name)}`));
          return;
        }
        this.runJob(
          engine,
          job.id,
          job.invocation,
          cancelled,
          "tool",
          job.name,
          (ctx) => t.handler(job.args, ctx),
          toolOutcome,
          // One text block, the common result: no JSON round trip.
          (r) => (typeof r === "string" ? r : r instanceof ToolOutput ? r.onlyText() : undefined),
        );
        return;
      }
      case "intercept": {
        const request = job.request;
        const f = this.intercepts.get(job.name as InterceptEventName);
        if (f === undefined) {
          this.report("interceptor", job.name, () => engine.complete(job.id, "{}"));
          return;
        }
        const handler = f as (
          r:
            | ToolCallIntercept
            | TurnStartIntercept
            | AssistantMessageIntercept
            | BeforeAgentStartIntercept
            | JsonObject,
          ctx: Context,
        ) => Awaitable<Verdict | void>;
        this.runJob(
          engine,
          job.id,
          request.id,
          cancelled,
          "interceptor",
          job.name,
          (ctx) => handler(request, ctx),
          (v) => interceptOutcome(job.name, v),
        );
        return;
      }
      case "event":
        this.serialQueue.push(job);
        this.pumpSerial(engine);
        return;
      case "panel_key":
      case "panel_close":
      case "panel_resize": {
        // Bound, on arrival, to the registration it is for: a command that
        // reopens the same panel id after this frame arrived must neither
        // receive it nor lose its fresh registration to an older close.
        this.serialQueue.push({ ...job, target: this.panels.get(job.panel_id) });
        this.pumpSerial(engine);
        return;
      }
      case "cancel":
        this.controllers.get(job.id)?.abort();
        return;
      case "call_result": {
        const call = this.calls.get(job.call);
        if (call === undefined) {
          return;
        }
        this.calls.delete(job.call);
        call.cleanup();
        if (job.result !== undefined) {
          // The frame minus its `type`: what `CallToolResult` promises.
          const { type: _frame, ...result } = job.result;
          call.resolve(result);
        } else {
          call.reject(new CallToolError(job.error ?? "call_tool failed", job.error_kind ?? "closed"));
        }
        return;
      }
      case "shutdown":
        this.session.abort();
        return;
    }
  }

  /** Runs a command, tool or interceptor handler concurrently and answers its job. */
  private runJob<R>(
    engine: NativeEngine,
    id: number,
    invocation: string,
    cancelled: Set<number>,
    what: string,
    name: string,
    call: (ctx: Context) => Awaitable<R>,
    toOutcome: (r: R) => CommandOutcome | ToolOutcome | InterceptOutcome,
    textOf?: (r: R) => string | undefined,
  ): void {
    const cancel = new LazyAbort();
    this.controllers.set(id, cancel);
    const ctx = this.context(id, invocation, cancel);
    const running = attempt(() => call(ctx));
    if (cancelled.has(id)) {
      // Cancelled before it started: abort right after the handler's
      // synchronous start, so that an `abort` listener it set up there
      // fires (an already-aborted signal never dispatches `abort`).
      cancel.abort();
    }
    running.then(
      (r) => {
        this.controllers.delete(id);
        const text = textOf?.(r);
        if (text !== undefined) {
          this.report(what, name, () => engine.completeText(id, text));
          return;
        }
        let json: string;
        try {
          json = JSON.stringify(toOutcome(r));
        } catch (e) {
          this.report(what, name, () => engine.fail(id, message(e)));
          return;
        }
        this.report(what, name, () => engine.complete(id, json));
      },
      (e: unknown) => {
        this.controllers.delete(id);
        const msg = message(e);
        if (!cancel.aborted) {
          this.log(`${what} ${name} failed: ${msg}`);
        }
        this.report(what, name, () => engine.fail(id, msg));
      },
    );
  }

  /** Answers a job; the engine's refusals are logged. */
  private report(what: string, name: string, answer: () => unknown): void {
    try {
      answer();
    } catch (e) {
      this.log(`${what} ${name}: ${message(e)}`);
    }
  }

  /** Events and panel input: in arrival order, one at a time. */
  private pumpSerial(engine: NativeEngine): void {
    // Handlers that return synchronously are answered together, in one
    // native call per run of them.
    const done: number[] = [];
    const answer = (): void => {
      if (done.length > 0) {
        this.report("handler", "event", () => engine.completeSerial(done));
        done.length = 0;
        // Reading may have paused for the event backlog.
        this.resumeFeed(engine);
      }
    };
    while (!this.serialBusy) {
      const job = this.serialQueue.shift();
      if (job === undefined) {
        answer();
        return;
      }
      let r: unknown;
      try {
        r = this.runSerial(job);
      } catch (e) {
        this.report("handler", job.kind, () => engine.fail(job.id, message(e)));
        continue;
      }
      if (!isThenable(r)) {
        done.push(job.id);
        continue;
      }
      answer();
      this.serialBusy = true;
      Promise.resolve(r)
        .then(
          () => this.report("handler", job.kind, () => engine.complete(job.id, "null")),
          (e: unknown) => this.report("handler", job.kind, () => engine.fail(job.id, message(e))),
        )
        .then(() => {
          this.serialBusy = false;
          this.resumeFeed(engine);
          this.pumpSerial(engine);
        });
      return;
    }
  }

  private stillOpen(job: SerialJob & { panel_id: string }): PanelHandlers | undefined {
    const target = job.target;
    return target !== undefined && this.panels.get(job.panel_id) === target ? target : undefined;
  }

  private runSerial(job: SerialJob): unknown {
    switch (job.kind) {
      case "event": {
        const handler = this.events.get(job.name) as EventHandler<LifecycleEvent> | undefined;
        if (handler === undefined) {
          return undefined;
        }
        // The engine hands events over with their `type`; one context
        // serves every event (no job, the session's signal).
        this.eventContext ??= this.context(undefined, "", this.session);
        return handler(job.event, this.eventContext);
      }
      // Input goes to the registration it arrived for, and only while that
      // registration is still active (closePanel may have ended it since).
      case "panel_key":
        return this.stillOpen(job)?.onKey?.({ panel_id: job.panel_id, key: job.key, text: job.text });
      case "panel_close": {
        // Unregister only the registration the close arrived for: a panel
        // reopened meanwhile under the same id stays.
        if (this.stillOpen(job) !== undefined) {
          this.panels.delete(job.panel_id);
        }
        return job.target?.onClose?.();
      }
      case "panel_resize":
        return this.stillOpen(job)?.onResize?.({ panel_id: job.panel_id, width: job.width, height: job.height });
    }
  }

  private context(job: number | undefined, invocation: string, cancel: { readonly signal: AbortSignal }): Context {
    const host = this.hostInfo ?? ({} as HostInfo);
    return {
      id: invocation,
      get signal(): AbortSignal {
        return cancel.signal;
      },
      host,
      callTool: (name, args = {}, options = {}) => this.startCall(job, name, args, options),
      notify: (first: string, second?: string) => this.note(first, second),
      log: (msg) => this.log(msg),
    };
  }

  private startCall(
    parent: number | undefined,
    name: string,
    args: JsonObject,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const engine = this.engine;
    if (engine === undefined) {
      return Promise.reject(new CallToolError("call_tool is not available before the handshake", "not_ready"));
    }
    const signal = options.signal;
    if (signal?.aborted === true) {
      return Promise.reject(new CallToolError("call_tool cancelled", "cancelled"));
    }
    let started: CallStarted;
    try {
      const request: CallStart = { name, args };
      if (parent !== undefined) request.parent = parent;
      if (options.key !== undefined) request.key = options.key;
      if (options.timeoutMs !== undefined) request.timeout_ms = options.timeoutMs;
      started = JSON.parse(engine.startCall(JSON.stringify(request))) as CallStarted;
    } catch (e) {
      return Promise.reject(new CallToolError(message(e), "invalid_request", { cause: e }));
    }
    const call = started.call;
    if (call === undefined) {
      return Promise.reject(
        new CallToolError(started.error ?? "call_tool failed", started.error_kind ?? "invalid_request"),
      );
    }
    // Reading never pauses while a call waits for its answer.
    this.resumeFeed(engine);
    return new Promise<CallToolResult>((resolve, reject) => {
      let cleanup = (): void => {};
      if (signal !== undefined) {
        const onAbort = (): void => engine.cancelCall(call);
        signal.addEventListener("abort", onAbort, { once: true });
        cleanup = () => signal.removeEventListener("abort", onAbort);
      }
      this.calls.set(call, { resolve, reject, cleanup });
    });
  }
}

/**
 * An `AbortController` made only when a handler first reads `ctx.signal`:
 * most handlers never do, and creating one per call is a measurable share of
 * a small call's cost (bench/README.md). Aborting before that just records
 * it; the signal is then born aborted.
 */
class LazyAbort {
  private controller: AbortController | undefined;
  private cancelled = false;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.cancelled) {
        this.controller.abort();
      }
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.cancelled;
  }

  abort(): void {
    if (!this.cancelled) {
      this.cancelled = true;
      this.controller?.abort();
    }
  }
}

/** An empty feed: go on with what the engine held. */
const EMPTY = Buffer.alloc(0);
