// The dispatcher of one engine session: runs an `Extension`'s handlers for
// the jobs the engine hands out, and answers them.
//
// The engine (Rust) owns the protocol: it writes `hello`, decodes frames,
// keeps ids, deadlines and cancellation state, matches `call_tool` results
// and writes every frame. The engine reads the host's pipe itself (the one
// read path); it calls back (`onJobs`) when jobs wait, and this file takes
// every queued job at once with `takeJobs()` (the one pull), runs the
// user's handlers and answers the jobs, a batch per turn of the event loop (`answers.ts`: one
// `complete(batch)`, a failure being one more outcome).
//
// - commands, tools and interceptors run concurrently;
// - jobs whose `lane` the engine set to `serial` (events and panel input)
//   run in arrival order, one at a time (SDK-35, `serial.ts`);
// - `cancel` jobs abort the job's `AbortSignal`; a job cancelled before it
//   was handed out comes with `cancelled` set (the engine folds it);
// - `call_result` jobs settle `callTool` promises;
// - `hello` comes alone; the engine hands out nothing else until
//   `helloDone`, which runs after the on-hello hooks;
// - `finished` ends the session. While the `onJobs` callback is set Node's
//   loop stays alive; `finished` removes it, so the process exits on its
//   own once the user's handlers are done.

import { Answers } from "./answers";
import { PendingCalls } from "./calls";
import { JobContext, LazyAbort } from "./context";
import { message, SessionError, typedMessage } from "./errors";
import type { Answer, Job } from "./generated/contract";
import type {
  AssistantMessageIntercept,
  BeforeAgentStartIntercept,
  InterceptEventName,
  ToolCallIntercept,
  TurnStartIntercept,
} from "./generated/protocol";
import type { NativeEngine } from "./native";
import { commandAnswer, interceptAnswer, toolAnswer } from "./outcomes";
import type { CallToolResult, JsonObject, Verdict } from "./results";
import { isThenable, type PanelRegistration, type SerialJob, SerialJobs } from "./serial";
import type { Awaitable, CallOptions, CommandHandler, Context, EventHandler, HostInfo, ToolHandler } from "./types";

export type AnyInterceptor = (request: never, ctx: Context) => Awaitable<Verdict | void>;

/** What a session needs of its `Extension`: the registrations, and how to log and notify. */
export interface Registrations {
  readonly name: string;
  readonly commands: ReadonlyMap<string, { description: string; handler: CommandHandler }>;
  readonly tools: ReadonlyMap<string, { spec: string; derived: boolean; handler: ToolHandler<JsonObject> }>;
  readonly events: ReadonlyMap<string, EventHandler<never>>;
  readonly intercepts: ReadonlyMap<InterceptEventName, AnyInterceptor>;
  readonly helloHooks: ReadonlyArray<(info: HostInfo) => Awaitable<void>>;
  readonly panels: Map<string, PanelRegistration>;
  log(message: string): void;
  note(first: string, second: string | undefined): void;
}

export class Session {
  /** The host's `hello_ack`, once the handshake happened. */
  host: HostInfo | undefined;
  /** Settles when the session is over; rejects when it failed. */
  readonly finished: Promise<void>;
  /** The answers of this turn, completed together (`answers.ts`). */
  readonly answers: Answers;
  private readonly controllers = new Map<number, LazyAbort>();
  private readonly calls: PendingCalls;
  /** Aborted when the session ends: the signal of event and panel handlers. */
  private readonly ending = new AbortController();
  /** Events and panel input, in arrival order (`serial.ts`). */
  private readonly serial: SerialJobs;
  private over = false;
  private ended: { resolve: () => void; reject: (e: Error) => void } | undefined;

  constructor(
    private readonly engine: NativeEngine,
    private readonly reg: Registrations,
  ) {
    this.answers = new Answers(engine, (m) => reg.log(m));
    this.calls = new PendingCalls(engine);
    this.serial = new SerialJobs(this.answers, reg, () => this.eventContext());
    this.registerAll(engine);
    this.finished = new Promise<void>((resolve, reject) => {
      this.ended = { resolve, reject };
    });
    this.pullQueued(engine);
  }

  /**
   * The one pull: the engine calls back (once per batch, on this thread)
   * when jobs wait, and every queued job is taken at once, so that batches
   * are handled in the order taken. The callback keeps Node alive until
   * `finished` removes it.
   */
  private pullQueued(engine: NativeEngine): void {
    engine.onJobs(() => {
      if (!this.over) {
        this.deliver(engine, JSON.parse(engine.takeJobs()) as Job[]);
      }
    });
  }

  /** Handles one batch, in the order taken. */
  private deliver(engine: NativeEngine, batch: Job[]): void {
    for (const job of batch) {
      if (this.over) {
        return;
      }
      if (job.kind === "hello") {
        // The frame minus its `type`: what `HostInfo` promises.
        const { type: _frame, ...host } = job.hello_ack;
        void this.hello(engine, host);
      } else if (job.kind === "finished") {
        this.finish();
        if (job.error !== undefined) {
          this.ended?.reject(new SessionError(`zot-ext: ${job.error}`));
        } else {
          this.ended?.resolve();
        }
      } else if ("lane" in job && job.lane === "serial") {
        // Events and panel input (panel input bound by the engine, on
        // arrival, to the registration it is for).
        this.serial.push(job as SerialJob);
      } else {
        this.dispatch(job);
      }
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
    // The engine logs what it refuses (the same line in every SDK).
    engine.registerAll(
      JSON.stringify({
        commands: [...this.reg.commands].map(([name, c]) => ({ name, description: c.description })),
        tools: [...this.reg.tools.values()].map((t) => ({ spec: t.spec, derived: t.derived })),
        events: [...this.reg.events.keys()],
        intercepts: [...this.reg.intercepts.keys()],
      }),
    );
  }

  private async hello(engine: NativeEngine, ack: HostInfo): Promise<void> {
    this.host = ack;
    for (const hook of this.reg.helloHooks) {
      try {
        await hook(ack);
      } catch (e) {
        this.reg.log(`on-hello hook failed: ${message(e)}`);
      }
    }
    try {
      engine.helloDone();
    } catch (e) {
      this.reg.log(`handshake not completed: ${message(e)}`);
    }
  }

  private finish(): void {
    this.over = true;
    this.engine.onJobs(null);
    this.ending.abort();
    for (const c of this.controllers.values()) {
      c.abort();
    }
    this.controllers.clear();
    this.calls.closeAll();
  }

  /**
   * Runs the handler a job is for. The engine hands out only jobs whose
   * name it registered from `reg`, and answers the others itself.
   */
  private dispatch(job: Exclude<Job, { kind: "hello" | "finished" }>): void {
    switch (job.kind) {
      case "command": {
        const c = this.reg.commands.get(job.name) as { handler: CommandHandler };
        this.runJob(job, job.invocation, "command", `/${job.name}`, (ctx) => c.handler(job.args, ctx), commandAnswer);
        return;
      }
      case "tool": {
        const t = this.reg.tools.get(job.name) as { handler: ToolHandler<JsonObject> };
        this.runJob(job, job.invocation, "tool", job.name, (ctx) => t.handler(job.args, ctx), toolAnswer);
        return;
      }
      case "intercept": {
        const request = job.request;
        const handler = this.reg.intercepts.get(job.name as InterceptEventName) as (
          r:
            | ToolCallIntercept
            | TurnStartIntercept
            | AssistantMessageIntercept
            | BeforeAgentStartIntercept
            | JsonObject,
          ctx: Context,
        ) => Awaitable<Verdict | void>;
        this.runJob(
          job,
          request.id,
          "interceptor",
          job.name,
          (ctx) => handler(request, ctx),
          (id, v) => interceptAnswer(id, job.name, v),
        );
        return;
      }
      case "cancel":
        this.controllers.get(job.id)?.abort();
        return;
      case "call_result":
        this.calls.settle(job);
        return;
      case "shutdown":
        this.ending.abort();
        return;
    }
  }

  /**
   * Runs a command, tool or interceptor handler concurrently and answers its
   * job. A handler that returns a value (not a promise) is answered at once:
   * no promise and no microtask per call.
   */
  private runJob<R>(
    job: { id: number; cancelled?: boolean },
    invocation: string,
    what: "command" | "tool" | "interceptor",
    name: string,
    call: (ctx: Context) => Awaitable<R>,
    toAnswer: (job: number, r: R) => Answer,
  ): void {
    const id = job.id;
    const cancel = new LazyAbort();
    this.controllers.set(id, cancel);
    let result: Awaitable<R>;
    try {
      result = call(new JobContext(this, id, invocation, cancel));
    } catch (e) {
      result = Promise.reject(e);
    }
    if (job.cancelled === true) {
      // Cancelled before it started: abort right after the handler's
      // synchronous start, so that an `abort` listener it set up there
      // fires (an already-aborted signal never dispatches `abort`).
      cancel.abort();
    }
    if (!isThenable(result)) {
      this.settled(id, what, name, result, toAnswer);
      return;
    }
    Promise.resolve(result).then(
      (r) => this.settled(id, what, name, r, toAnswer),
      (e: unknown) => {
        this.controllers.delete(id);
        // An interceptor's failure becomes its verdict's reason (the engine
        // adds the verdict and who failed): the error's type says what.
        const msg = what === "interceptor" ? typedMessage(e) : message(e);
        if (!cancel.aborted) {
          this.reg.log(`${what} ${name} failed: ${msg}`);
        }
        this.answers.fail(id, msg, what, name);
      },
    );
  }

  /** Answers job `id` with what its handler returned. */
  private settled<R>(id: number, what: string, name: string, r: R, toAnswer: (job: number, r: R) => Answer): void {
    this.controllers.delete(id);
    try {
      this.answers.add(toAnswer(id, r), what, name);
    } catch (e) {
      this.answers.fail(id, message(e), what, name);
    }
  }

  /** The context of event and panel handlers: no job, the session's signal. */
  eventContext(): Context {
    return new JobContext(this, undefined, "", this.ending);
  }

  /** Writes `[<name>] message` to stderr. */
  log(msg: string): void {
    this.reg.log(msg);
  }

  /** Shows a note (see `Context.notify`). */
  note(first: string, second?: string): void {
    this.reg.note(first, second);
  }

  startCall(parent: number | undefined, name: string, args: JsonObject, options: CallOptions): Promise<CallToolResult> {
    this.answers.flush(); // answers produced before the call leave first
    return this.calls.start(parent, name, args, options);
  }
}
