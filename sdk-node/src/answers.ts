// The answers of one turn of Node's event loop, handed to the engine in one
// native call (`complete(batch)`): the engine writes their replies in one
// `write(2)`. The batch is flushed in the check phase of the turn
// (`setImmediate`), after the microtasks ran, so handlers that answer
// synchronously or through promises settled in that turn share it, and
// before any spontaneous frame (`flush`), so that frames leave in the order
// they were produced.

import type { Answer, Answered } from "./generated/contract";
import type { NativeEngine } from "./native";

export class Answers {
  private answers: Answer[] = [];
  /**
   * What each answer is for (`what name`, e.g. `tool echo`), to name it when
   * the engine refuses it; kept as two parts, joined only then.
   */
  private whats: string[] = [];
  private names: string[] = [];
  private scheduled = false;

  constructor(
    private readonly engine: NativeEngine,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Queues one answer, the contract's `Answer`: the job and at most one
   * outcome (none: an event or panel job is done).
   */
  add(answer: Answer, what: string, name: string): void {
    this.answers.push(answer);
    this.whats.push(what);
    this.names.push(name);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** A failed handler's answer (never throws). */
  fail(job: number, error: string, what: string, name: string): void {
    this.add({ job, error }, what, name);
  }

  /** Hands every queued answer to the engine. */
  flush(): void {
    this.scheduled = false;
    if (this.answers.length === 0) {
      return;
    }
    const { answers, whats, names } = this;
    this.answers = [];
    this.whats = [];
    this.names = [];
    let result: string;
    try {
      result = this.engine.complete(serialized(answers));
    } catch (e) {
      this.log(`answers not completed: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    // Refusals are rare: parse only when there is one.
    if (result.includes('"error"')) {
      (JSON.parse(result) as Answered[]).forEach((a, i) => {
        if (a.error !== undefined) {
          this.log(`${whats[i] ?? "answer"} ${names[i] ?? ""}: ${a.error}`);
        }
      });
    }
  }
}

/**
 * The batch as JSON. An outcome that does not serialize (a cycle, a BigInt)
 * fails its own job with the reason, not the batch.
 */
function serialized(answers: Answer[]): string {
  try {
    return JSON.stringify(answers);
  } catch {
    return JSON.stringify(
      answers.map((a) => {
        try {
          JSON.stringify(a);
          return a;
        } catch (e) {
          return { job: a.job, error: e instanceof Error ? e.message : String(e) };
        }
      }),
    );
  }
}
