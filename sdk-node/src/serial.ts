// Events and panel input: run in arrival order, one at a time (SDK-35), each
// answered once its handler returned. The engine hands them over with the
// other jobs; the order is kept here because only the facade knows when a
// handler that returned a promise is done (an engine that released them one
// at a time would cost a native call per event). A synchronous handler runs
// at once, so a burst is handled before the batch's later jobs start.

import type { Answers } from "./answers";
import { message } from "./errors";
import type { Job } from "./generated/contract";
import type { LifecycleEvent } from "./generated/protocol";
import type { Awaitable, Context, EventHandler, PanelKeyInput, PanelSize } from "./types";

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

/** An event or panel job. */
export type SerialJob = Extract<Job, { kind: "event" | "panel_key" | "panel_close" | "panel_resize" }>;

/** What the serial jobs need of the extension's registrations. */
export interface SerialHandlers {
  readonly events: ReadonlyMap<string, EventHandler<never>>;
  readonly panels: Map<string, PanelRegistration>;
}

/** Whether a handler returned a promise (or any thenable) to wait for. */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === "object" || typeof v === "function") &&
    v !== null &&
    typeof (v as { then?: unknown }).then === "function"
  );
}

export class SerialJobs {
  private readonly queue: SerialJob[] = [];
  private busy = false;
  private eventContext: Context | undefined;

  constructor(
    private readonly answers: Answers,
    private readonly handlers: SerialHandlers,
    /** The context of event handlers: no job, the session's signal. */
    private readonly makeEventContext: () => Context,
  ) {}

  push(job: SerialJob): void {
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    const answers = this.answers;
    while (!this.busy) {
      const job = this.queue.shift();
      if (job === undefined) {
        return;
      }
      let r: unknown;
      try {
        r = this.run(job);
      } catch (e) {
        answers.fail(job.id, message(e), "handler", job.kind);
        continue;
      }
      if (!isThenable(r)) {
        answers.add({ job: job.id }, "handler", job.kind);
        continue;
      }
      this.busy = true;
      Promise.resolve(r)
        .then(
          () => answers.add({ job: job.id }, "handler", job.kind),
          (e: unknown) => answers.fail(job.id, message(e), "handler", job.kind),
        )
        .then(() => {
          this.busy = false;
          this.pump();
        });
      return;
    }
  }

  /**
   * The handlers panel input is for: the registration the engine bound it
   * to when it arrived, while that is still the panel's current one
   * (replaced, forgotten or closed since: the input is stale).
   */
  private current(job: { panel_id: string; registration: number }): PanelRegistration | undefined {
    const p = this.handlers.panels.get(job.panel_id);
    return p?.registration === job.registration ? p : undefined;
  }

  private run(job: SerialJob): unknown {
    switch (job.kind) {
      case "event": {
        const handler = this.handlers.events.get(job.name) as EventHandler<LifecycleEvent> | undefined;
        if (handler === undefined) {
          return undefined;
        }
        // The engine hands events over with their `type`; one context
        // serves every event.
        this.eventContext ??= this.makeEventContext();
        return handler(job.event, this.eventContext);
      }
      case "panel_key":
        return this.current(job)?.onKey?.({ panel_id: job.panel_id, key: job.key, text: job.text });
      case "panel_close": {
        // The engine unbound the panel when the close arrived; a panel
        // reopened since under the same id has a newer registration.
        const closed = this.current(job);
        if (closed !== undefined) {
          this.handlers.panels.delete(job.panel_id);
        }
        return closed?.onClose?.();
      }
      case "panel_resize":
        return this.current(job)?.onResize?.({ panel_id: job.panel_id, width: job.width, height: job.height });
    }
  }
}
