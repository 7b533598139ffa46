// The context a handler gets (`Context`), and the cancellation behind its
// `signal`, both made cheaply: most handlers never read them.

import type { Session } from "./session";
import type { Context, HostInfo } from "./types";

/**
 * An `AbortController` made only when a handler first reads `ctx.signal`:
 * most handlers never do, and creating one per call is a measurable share of
 * a small call's cost (bench/README.md). Aborting before that just records
 * it; the signal is then born aborted.
 */
export class LazyAbort {
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

/**
 * A handler's context. Its members are prototype getters, not closures made
 * per call: a handler that never calls `callTool`, `notify` or `log` costs
 * none, and one that destructures them (`const { callTool } = ctx`) gets
 * functions bound to its invocation.
 */
export class JobContext implements Context {
  readonly #session: Session;
  readonly #job: number | undefined;
  readonly #cancel: { readonly signal: AbortSignal };
  readonly id: string;

  constructor(session: Session, job: number | undefined, id: string, cancel: { readonly signal: AbortSignal }) {
    this.#session = session;
    this.#job = job;
    this.#cancel = cancel;
    this.id = id;
  }

  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  get host(): HostInfo {
    return this.#session.host ?? ({} as HostInfo);
  }

  get callTool(): Context["callTool"] {
    return (name, args = {}, options = {}) => this.#session.startCall(this.#job, name, args, options);
  }

  get notify(): Context["notify"] {
    return (first: string, second?: string) => this.#session.reg.note(first, second);
  }

  get log(): Context["log"] {
    return (msg) => this.#session.reg.log(msg);
  }
}
