// The dispatcher of one engine session: runs an `Extension`'s handlers for
// the jobs the engine hands out, and answers them.
//
// The engine (Rust) owns the protocol: it writes `hello`, decodes frames,
// keeps ids, deadlines and cancellation state, matches `call_tool` results,
// answers what has no handler and writes every frame. It reads the host's
// pipe itself and calls back (`onJobs`) when jobs wait; this file takes
// every queued job at once with `takeJobs()` (the one pull), runs the
// handlers (`routes.ts` says which) and answers the jobs, a batch per turn
// of the event loop (`answers.ts`).
//
// - commands, tools and interceptors run concurrently;
// - jobs whose `lane` the engine set to `serial` (events and panel input)
//   run in arrival order, one at a time (SDK-35): only the facade knows
//   when a handler that returned a promise is done (an engine that
//   released them one at a time would cost a native call per event), and a
//   synchronous one runs at once, so a burst is handled before the batch's
//   later jobs start;
// - `cancel` jobs abort the job's `AbortSignal`; a job cancelled before it
//   was handed out comes with `cancelled` set (the engine folds it);
// - `call_result` jobs settle `callTool` promises;
// - `hello` comes alone; the engine hands out nothing else until
//   `helloDone`, which runs after the on-hello hooks (`handshake.ts`);
// - `finished` ends the session. While the `onJobs` callback is set Node's
//   loop stays alive; `finished` removes it, so the process exits on its
//   own once the user's handlers are done.

import { Answers } from "./answers";
import { PendingCalls } from "./calls";
import { JobContext, LazyAbort } from "./context";
import { message, SessionError, typedMessage } from "./errors";
import type { Job } from "./generated/contract";
import { registerAll, runHelloHooks } from "./handshake";
import type { NativeEngine } from "./native";
import { type CallToolResult, isThenable, type JsonObject } from "./results";
import { type ConcurrentJob, type Registrations, type Route, routes, type SerialJob, serialCall } from "./routes";
import type { CallOptions, Context, HostInfo } from "./types";

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
  /** Events and panel input not run yet, and whether one is running. */
  private readonly serial: SerialJob[] = [];
  private serialBusy = false;
  /** The context of every event and panel handler: no job, the session's signal. */
  private readonly eventContext: Context = new JobContext(this, undefined, "", this.ending);
  private over = false;
  private ended: { resolve: () => void; reject: (e: Error) => void } | undefined;

  constructor(
    private readonly engine: NativeEngine,
    /** The extension's handlers, log and notes. */
    readonly reg: Registrations,
  ) {
    this.answers = new Answers(engine, (m) => reg.log(m));
    this.calls = new PendingCalls(engine);
    registerAll(engine, reg);
    this.finished = new Promise<void>((resolve, reject) => {
      this.ended = { resolve, reject };
    });
    // The one pull: the engine calls back (once per batch, on this thread)
    // when jobs wait, so batches are handled in the order taken.
    engine.onJobs(() => {
      if (!this.over) this.deliver(JSON.parse(engine.takeJobs()) as Job[]);
    });
  }

  /** Handles one batch, in the order taken. */
  private deliver(batch: Job[]): void {
    for (const job of batch) {
      if (this.over) return;
      switch (job.kind) {
        case "hello": {
          // The frame minus its `type`: what `HostInfo` promises.
          const { type: _frame, ...host } = job.hello_ack;
          this.host = host;
          void runHelloHooks(this.engine, this.reg, host);
          break;
        }
        case "finished":
          this.finish(job.error);
          break;
        case "cancel":
          this.controllers.get(job.id)?.abort();
          break;
        case "call_result":
          this.calls.settle(job);
          break;
        case "shutdown":
          this.ending.abort();
          break;
        default:
          if (job.lane === "serial") {
            this.serial.push(job as SerialJob);
            this.runSerial();
          } else {
            this.start(job as ConcurrentJob, routes[job.kind as ConcurrentJob["kind"]] as Route);
          }
      }
    }
  }

  private finish(error: string | undefined): void {
    this.over = true;
    this.engine.onJobs(null);
    this.ending.abort();
    for (const c of this.controllers.values()) c.abort();
    this.controllers.clear();
    this.calls.closeAll();
    if (error !== undefined) {
      this.ended?.reject(new SessionError(`zot-ext: ${error}`));
    } else {
      this.ended?.resolve();
    }
  }

  /**
   * Runs a command, tool or interceptor handler, concurrently. One that
   * returns a value (not a promise) is answered at once: no promise, no
   * closure and no microtask per call.
   */
  private start(job: ConcurrentJob, route: Route): void {
    const id = job.id;
    const cancel = new LazyAbort();
    this.controllers.set(id, cancel);
    const handler = route.handler(job, this.reg);
    let result: unknown;
    try {
      result = handler(route.input(job) as never, new JobContext(this, id, route.invocation(job), cancel));
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
      this.answer(job, route, result);
      return;
    }
    Promise.resolve(result).then(
      (r) => this.answer(job, route, r),
      (e: unknown) => {
        this.controllers.delete(id);
        // An interceptor's failure becomes its verdict's reason (the engine
        // adds the verdict and who failed): the error's type says what.
        const msg = route.what === "interceptor" ? typedMessage(e) : message(e);
        if (!cancel.aborted) {
          this.reg.log(`${route.what} ${job.name} failed: ${msg}`);
        }
        this.answers.fail(id, msg, route.what, job.name);
      },
    );
  }

  /** Answers a concurrent job with what its handler returned. */
  private answer(job: ConcurrentJob, route: Route, r: unknown): void {
    this.controllers.delete(job.id);
    try {
      this.answers.add(route.answer(job.id, r as never, job), route.what, job.name);
    } catch (e) {
      this.answers.fail(job.id, message(e), route.what, job.name);
    }
  }

  /**
   * Runs the serial lane's jobs in order until one returns a promise, which
   * resumes the lane once settled. Each job is answered once its handler is
   * done; a failure is logged by the engine (SDK-36).
   */
  private runSerial(): void {
    while (!this.serialBusy && this.serial.length > 0) {
      const job = this.serial.shift() as SerialJob;
      let result: unknown;
      try {
        result = serialCall(job, this.reg, this.eventContext);
      } catch (e) {
        this.answers.fail(job.id, message(e), "handler", job.kind);
        continue;
      }
      if (!isThenable(result)) {
        this.answers.add({ job: job.id }, "handler", job.kind);
        continue;
      }
      this.serialBusy = true;
      Promise.resolve(result)
        .then(
          () => this.answers.add({ job: job.id }, "handler", job.kind),
          (e: unknown) => this.answers.fail(job.id, message(e), "handler", job.kind),
        )
        .then(() => {
          this.serialBusy = false;
          this.runSerial();
        });
    }
  }

  /** Starts a `callTool` call; answers produced before it leave first. */
  startCall(parent: number | undefined, name: string, args: JsonObject, options: CallOptions): Promise<CallToolResult> {
    this.answers.flush();
    return this.calls.start(parent, name, args, options);
  }
}
