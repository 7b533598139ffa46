// `callTool`: the promises of the calls an extension started, settled when
// the engine hands over their results (the engine matches results, keeps
// deadlines and sends cancellations).

import { CallToolError, message } from "./errors";
import type { CallResultJob, CallStart, CallStarted } from "./generated/contract";
import type { NativeEngine } from "./native";
import type { CallToolResult, JsonObject } from "./results";
import type { CallOptions } from "./types";

interface PendingCall {
  resolve(result: CallToolResult): void;
  reject(error: CallToolError): void;
  cleanup(): void;
}

export class PendingCalls {
  private readonly calls = new Map<number, PendingCall>();

  constructor(private readonly engine: NativeEngine) {}

  start(parent: number | undefined, name: string, args: JsonObject, options: CallOptions): Promise<CallToolResult> {
    const engine = this.engine;
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

  /** Settles the call a `call_result` job is for. */
  settle(job: CallResultJob): void {
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
  }

  /** Fails every call still waiting: the session ended. */
  closeAll(): void {
    for (const call of this.calls.values()) {
      call.cleanup();
      call.reject(new CallToolError("the connection to the host closed", "closed"));
    }
    this.calls.clear();
  }
}
