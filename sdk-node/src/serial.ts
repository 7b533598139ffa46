// Events and panel input: run in arrival order, one at a time (SDK-35), each
// answered once its handler returned. The engine hands them over with the
// other jobs; the order is kept here because only the facade knows when a
// handler that returned a promise is done (an engine that released them one
// at a time would cost a native call per event). A synchronous handler runs
// at once, so a burst is handled before the batch's later jobs start.

import type { SerialJob } from "./routes";

/** Whether a handler returned a promise (or any thenable) to wait for. */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === "object" || typeof v === "function") &&
    v !== null &&
    typeof (v as { then?: unknown }).then === "function"
  );
}

export class SerialLane {
  private readonly queue: SerialJob[] = [];
  private busy = false;

  /** `run` runs one job and answers it; it returns the promise of a handler not done yet. */
  constructor(private readonly run: (job: SerialJob) => PromiseLike<void> | undefined) {}

  push(job: SerialJob): void {
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (!this.busy) {
      const job = this.queue.shift();
      if (job === undefined) {
        return;
      }
      const pending = this.run(job);
      if (pending !== undefined) {
        this.busy = true;
        pending.then(() => {
          this.busy = false;
          this.pump();
        });
      }
    }
  }
}
