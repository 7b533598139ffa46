// Which handler a job runs, with what, and how its result becomes the job's
// answer: a look-up in the extension's tables. The engine hands out only
// jobs for names it registered from these tables (it answers the others
// itself) and binds panel input to the registration it arrived for.

import type { Answer, Job } from "./generated/contract";
import type { InterceptEventName } from "./generated/protocol";
import { commandAnswer, interceptAnswer, toolAnswer } from "./outcomes";
import type { JsonObject, Verdict } from "./results";
import type {
  Awaitable,
  CommandHandler,
  Context,
  EventHandler,
  HostInfo,
  PanelKeyInput,
  PanelSize,
  ToolHandler,
} from "./types";

export type AnyInterceptor = (request: never, ctx: Context) => Awaitable<Verdict | void>;

/** The handlers of one panel id. */
export interface PanelHandlers {
  onKey?: ((key: PanelKeyInput) => Awaitable<void>) | undefined;
  onClose?: (() => Awaitable<void>) | undefined;
  onResize?: ((size: PanelSize) => Awaitable<void>) | undefined;
}

/** A panel's handlers under the number the engine binds its input to. */
export interface PanelRegistration extends PanelHandlers {
  readonly registration: number;
}

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

/** A job that runs a handler. */
export type HandlerJob = Extract<Job, { lane: string }>;
/** A job that runs a handler in the serial lane. */
export type SerialJob = Extract<HandlerJob, { kind: "event" | "panel_key" | "panel_close" | "panel_resize" }>;
/** A job that runs a handler concurrently. */
export type ConcurrentJob = Exclude<HandlerJob, SerialJob>;

/** How a command, tool or interceptor job runs: one per kind, no allocation per job. */
export interface Route<J extends ConcurrentJob = ConcurrentJob> {
  /** What the log calls the handler. */
  readonly what: "command" | "tool" | "interceptor";
  /** The handler the job is for, and what it is called with. */
  handler(job: J, reg: Registrations): (input: never, ctx: Context) => unknown;
  input(job: J): unknown;
  /** The host's request id the handler's context carries (`ctx.id`). */
  invocation(job: J): string;
  /** The job's answer for what the handler returned. */
  answer(id: number, result: never, job: J): Answer;
}

type Routes = { [K in ConcurrentJob["kind"]]: Route<Extract<ConcurrentJob, { kind: K }>> };

export const routes: Routes = {
  command: {
    what: "command",
    handler: (job, reg) => (reg.commands.get(job.name) as { handler: CommandHandler }).handler,
    input: (job) => job.args,
    invocation: (job) => job.invocation,
    answer: commandAnswer,
  },
  tool: {
    what: "tool",
    handler: (job, reg) => (reg.tools.get(job.name) as { handler: ToolHandler<JsonObject> }).handler,
    input: (job) => job.args,
    invocation: (job) => job.invocation,
    answer: toolAnswer,
  },
  intercept: {
    what: "interceptor",
    handler: (job, reg) => reg.intercepts.get(job.name as InterceptEventName) as AnyInterceptor,
    input: (job) => job.request,
    invocation: (job) => job.request.id,
    answer: (id, verdict: Verdict | void, job) => interceptAnswer(id, job.name, verdict),
  },
};

/**
 * What an event or panel job runs. Panel input runs only while the
 * registration the engine bound it to on arrival is still the panel's
 * current one (replaced, forgotten or closed since: the input is stale); a
 * close forgets that registration (a panel reopened since under the same id
 * has a newer one).
 */
export function serialCall(job: SerialJob, reg: Registrations, ctx: Context): Awaitable<unknown> {
  if (job.kind === "event") {
    // Events come with their `type`; one context serves every event.
    return (reg.events.get(job.name) as EventHandler<unknown> | undefined)?.(job.event, ctx);
  }
  const p = reg.panels.get(job.panel_id);
  if (p?.registration !== job.registration) {
    return undefined;
  }
  switch (job.kind) {
    case "panel_key":
      return p.onKey?.({ panel_id: job.panel_id, key: job.key, text: job.text });
    case "panel_close":
      reg.panels.delete(job.panel_id);
      return p.onClose?.();
    case "panel_resize":
      return p.onResize?.({ panel_id: job.panel_id, width: job.width, height: job.height });
  }
}
