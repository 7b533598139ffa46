// The answers of one turn of Node's event loop, handed to the engine in one
// native call (`complete(batch)`): the engine writes their replies in one
// `write(2)`. The batch is flushed in the check phase of the turn
// (`setImmediate`), after the microtasks ran, so handlers that answer
// synchronously or through promises settled in that turn share it, and
// before any spontaneous frame (`flush`), so that frames leave in the order
// they were produced.

import type { Answer, Answered } from "./generated/contract";
import type { NativeEngine } from "./native";

/** The outcomes an `Answer` may carry (one at most; none: done). */
type AnswerKey = Exclude<keyof Answer, "job"> & string;

export class Answers {
  private parts: string[] = [];
  /** What each answer is for, to name it when the engine refuses it. */
  private labels: string[] = [];
  private scheduled = false;

  constructor(
    private readonly engine: NativeEngine,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Queues one answer: `value` under `key`, one of the outcomes of the
   * contract's `Answer` (no key: an event or panel job is done). Throws
   * when the value does not serialize (the caller fails the job instead).
   */
  add(job: number, key: AnswerKey | undefined, value: unknown, label: string): void {
    const part = key === undefined ? `{"job":${job}}` : `{"job":${job},"${key}":${JSON.stringify(value) ?? "null"}}`;
    this.parts.push(part);
    this.labels.push(label);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** A failed handler's answer (never throws). */
  fail(job: number, error: string, label: string): void {
    this.add(job, "error", error, label);
  }

  /** Hands every queued answer to the engine. */
  flush(): void {
    this.scheduled = false;
    if (this.parts.length === 0) {
      return;
    }
    const batch = this.parts.length === 1 ? `[${this.parts[0]}]` : `[${this.parts.join(",")}]`;
    const labels = this.labels;
    this.parts = [];
    this.labels = [];
    let result: string;
    try {
      result = this.engine.complete(batch);
    } catch (e) {
      this.log(`answers not completed: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    // Refusals are rare: parse only when there is one.
    if (result.includes('"error"')) {
      (JSON.parse(result) as Answered[]).forEach((a, i) => {
        if (a.error !== undefined) {
          this.log(`${labels[i] ?? "answer"}: ${a.error}`);
        }
      });
    }
  }
}
