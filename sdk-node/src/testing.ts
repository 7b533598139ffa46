// `zot-ext/testing`: drive an extension in-process, as its host, from
// `node:test`, vitest or any other runner.
//
// This is the engine's own harness (`zot_ext::testing::TestHost`, in Rust)
// over an in-memory transport: no process is spawned, no host is needed, and
// the frames are exactly the ones the extension would write on stdout.
// `TestHost.spawn` drives an extension process (any language) the same way,
// over its stdin and stdout.

import type { Extension } from "./extension";
import type {
  CallTool,
  CommandResponse,
  EventInterceptResponse,
  ExtFrame,
  ExtFrameType,
  Hello,
  HelloAck,
  HostFrame,
  InterceptRequest,
  LifecycleEvent,
  RegisterCommand,
  RegisterTool,
  ToolResult,
} from "./generated/protocol";
import { type NativeTestHost, native } from "./native";
import type { JsonObject } from "./results";
import type { UnknownEvent } from "./types";

/** What the extension announced during the handshake. */
export interface Registration {
  /** Its `hello`. */
  hello: Hello;
  /** `register_command` frames, in order. */
  commands: RegisterCommand[];
  /** `register_tool` frames, in order. */
  tools: RegisterTool[];
  /** `subscribe.events`, in order. */
  events: string[];
  /** `subscribe.intercept`, in order. */
  intercepts: string[];
  /** How many `subscribe` frames were sent. */
  subscribe_frames: number;
}

/** Options of {@link TestHost.start}. */
export interface TestOptions {
  /**
   * Fields of the `hello_ack` to send, laid over the default: protocol 1,
   * capability `call_tool`, `zot_version`/`provider`/`model` = `test`, `cwd`
   * and `extension_dir` = the current directory, `data_dir` = the temp
   * directory.
   */
  ack?: Partial<Omit<HelloAck, "type">> | undefined;
  /** Shorter engine deadlines for tests. */
  engine?:
    | {
        /** How long handlers get after shutdown/EOF (500 ms by default). */
        shutdownGraceMs?: number | undefined;
        /** The interception deadline (5 s by default). */
        interceptTimeoutMs?: number | undefined;
      }
    | undefined;
}

/** Options of {@link TestHost.spawn}. */
export interface SpawnOptions {
  /** The `hello_ack` fields laid over the default, as in {@link TestOptions}. */
  ack?: Partial<Omit<HelloAck, "type">> | undefined;
  /** The process's working directory (the current one by default). */
  cwd?: string | undefined;
  /**
   * The process's whole environment, as in `child_process.spawn` (the
   * current one by default; add to it with `{ ...process.env, NAME: "v" }`).
   */
  env?: Record<string, string | undefined> | undefined;
  /**
   * `"pipe"` (the default): kept for {@link TestHost.stderr} and quoted when
   * the process fails before the handshake ends; `"inherit"`: this process's
   * stderr.
   */
  stderr?: "pipe" | "inherit" | undefined;
}

type FrameOf<T extends ExtFrameType> = Extract<ExtFrame, { type: T }>;

function parse<T>(json: string): T {
  return JSON.parse(json) as T;
}

/**
 * The host side of an in-process extension.
 *
 * ```ts
 * import { test } from "node:test";
 * import assert from "node:assert/strict";
 * import { TestHost } from "zot-ext/testing";
 *
 * test("echo", async () => {
 *   const host = await TestHost.start(makeExtension());
 *   assert.equal((await host.command("echo", "hi")).display, "hi");
 *   await host.shutdown(); // ends the session: always finish with shutdown() or closeStdin()
 * });
 * ```
 *
 * The waiting helpers (`command`, `tool`, `expectCallTool`, `waitFor`...)
 * read until the frame they want and keep every other frame, in order, for
 * `nextFrame`; `transcript()` has every line in write order.
 */
export class TestHost {
  /** What the extension announced. */
  readonly registration: Registration;

  private readonly host: NativeTestHost;
  private readonly label: string | undefined;
  private ended: Promise<void> | undefined;
  private nextId = 1;

  private constructor(
    host: NativeTestHost,
    registration: Registration,
    finished: Promise<void> | undefined,
    label?: string,
  ) {
    this.host = host;
    this.registration = registration;
    this.ended = finished;
    this.label = label;
  }

  /**
   * Settles when the extension's `run` ends (after `shutdown()` or
   * `closeStdin()`); for a spawned process, when it exited (rejecting when
   * its exit code is not 0).
   */
  get finished(): Promise<void> {
    this.ended ??= this.host.exited().then((exit) => {
      if (exit !== null && exit.code !== 0) {
        const how = exit.code === undefined ? "was killed by a signal" : `exited with code ${exit.code}`;
        throw new Error(`${this.label} ${how}`);
      }
    });
    return this.ended;
  }

  /**
   * Starts `command` with `args` as an extension process (written in any
   * language) and completes the handshake: its stdin and stdout are the
   * transport. Every method works as with {@link TestHost.start}. End with
   * `shutdown()` (the process exits on its own) or `close()` (killed); when it
   * cannot start or exits before the handshake ends, the error names the
   * command and quotes the end of its stderr.
   *
   * ```ts
   * const host = await TestHost.spawn("python3", ["ext.py"], { cwd: dir });
   * assert.equal((await host.tool("greet", { name: "Ada" })).is_error, undefined);
   * await host.shutdown();
   * ```
   */
  static async spawn(command: string, args: readonly string[] = [], options: SpawnOptions = {}): Promise<TestHost> {
    const spawnOptions: { cwd?: string; env?: Record<string, string>; stderr?: string } = {};
    if (options.cwd !== undefined) {
      spawnOptions.cwd = options.cwd;
    }
    if (options.env !== undefined) {
      spawnOptions.env = Object.fromEntries(
        Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined),
      );
    }
    if (options.stderr !== undefined) {
      spawnOptions.stderr = options.stderr;
    }
    const host = native().NativeTestHost.spawn(command, [...args], spawnOptions);
    const reg = parse<Registration>(await host.handshake(JSON.stringify(options.ack ?? {})));
    return new TestHost(host, reg, undefined, [command, ...args].join(" "));
  }

  /** Starts `ext` in-process and completes the handshake. */
  static async start(ext: Extension, options: TestOptions = {}): Promise<TestHost> {
    const engineOptions: { shutdownGraceMs?: number; interceptTimeoutMs?: number } = {};
    if (options.engine?.shutdownGraceMs !== undefined) {
      engineOptions.shutdownGraceMs = options.engine.shutdownGraceMs;
    }
    if (options.engine?.interceptTimeoutMs !== undefined) {
      engineOptions.interceptTimeoutMs = options.engine.interceptTimeoutMs;
    }
    const { engine, finished } = ext._serveInMemory(engineOptions);
    const host = new (native().NativeTestHost)(engine);
    // Observed here so that a failing session is never an unhandled
    // rejection; `finished` still rejects for whoever awaits it.
    finished.catch(() => {});
    const reg = parse<Registration>(await host.handshake(JSON.stringify(options.ack ?? {})));
    return new TestHost(host, reg, finished);
  }

  /** Every line the extension wrote so far (`hello` first). */
  async transcript(): Promise<string[]> {
    return parse<string[]>(await this.host.transcript());
  }

  /** Sends a host frame. */
  send(frame: HostFrame | JsonObject): Promise<void> {
    return this.host.sendJson(JSON.stringify(frame));
  }

  /** Sends one line as is (any text, valid JSON or not). */
  sendJson(line: string): Promise<void> {
    return this.host.sendJson(line);
  }

  /** Invokes a command and waits for its response. */
  async command(name: string, args = ""): Promise<CommandResponse> {
    return parse<CommandResponse>(await this.host.command(name, args));
  }

  /** Waits for the `command_response` to `id` (of a command sent with `send`). */
  async commandResponse(id: string): Promise<CommandResponse> {
    return parse<CommandResponse>(await this.host.commandResponse(id));
  }

  /** Calls a tool and waits for its result. */
  async tool(name: string, args: JsonObject = {}): Promise<ToolResult> {
    return this.toolResult(await this.startTool(name, args));
  }

  /** Sends a `tool_call` without waiting; returns its id (`id` if given). */
  startTool(name: string, args: JsonObject = {}, id?: string): Promise<string> {
    return this.host.startTool(name, JSON.stringify(args), id);
  }

  /** Waits for the `tool_result` to `id`. */
  async toolResult(id: string): Promise<ToolResult> {
    return parse<ToolResult>(await this.host.toolResult(id));
  }

  /** Sends `tool_cancel` for `id`. */
  cancelTool(id: string): Promise<void> {
    return this.host.cancelTool(id);
  }

  /**
   * Sends a lifecycle event (`type: "event"` is added when missing); events
   * have no reply.
   */
  event(event: LifecycleEvent | UnknownEvent | Omit<LifecycleEvent, "type"> | JsonObject): Promise<void> {
    return this.send({ type: "event", ...event });
  }

  /**
   * Sends an interception (`type: "event_intercept"` is added when missing,
   * and an `id` when there is none) and waits for its response.
   */
  async intercept(
    request: InterceptRequest | Omit<InterceptRequest, "type" | "id"> | JsonObject,
  ): Promise<EventInterceptResponse> {
    const frame: JsonObject = { type: "event_intercept", ...request };
    if (typeof frame.id !== "string") {
      frame.id = `intercept-${this.nextId++}`;
    }
    return parse<EventInterceptResponse>(await this.host.intercept(JSON.stringify(frame)));
  }

  /** Sends a `panel_key` (`key` is a key name such as `up` or `rune`). */
  panelKey(panelId: string, key: string, text = ""): Promise<void> {
    return this.host.panelKey(panelId, key, text);
  }

  /** Sends the host's `panel_close`. */
  panelClose(panelId: string): Promise<void> {
    return this.host.panelClose(panelId);
  }

  /** Waits for the extension's next `call_tool`. */
  async expectCallTool(): Promise<CallTool> {
    return parse<CallTool>(await this.host.expectCallTool());
  }

  /** Answers a `call_tool` with one text block (`isError` for a failed tool). */
  answerCall(call: CallTool, text: string, isError = false): Promise<void> {
    return this.host.answerCall(JSON.stringify(call), text, isError);
  }

  /** The next frame the extension wrote (frames skipped by the waiting helpers first). */
  async nextFrame(): Promise<ExtFrame> {
    return parse<ExtFrame>(await this.host.nextFrame());
  }

  /** The next frame as its exact JSON line. */
  nextFrameJson(): Promise<string> {
    return this.host.nextFrame();
  }

  /** The next frame if one was already written (never waits). */
  async tryNextFrame(): Promise<ExtFrame | undefined> {
    const line = await this.host.tryNextFrame();
    return line === null ? undefined : parse<ExtFrame>(line);
  }

  /** Reads until a frame of `type` comes; the others stay queued for `nextFrame`. */
  async waitFor<T extends ExtFrameType>(type: T): Promise<FrameOf<T>> {
    return parse<FrameOf<T>>(await this.host.waitForType(type));
  }

  /**
   * Sends `shutdown` and returns every frame the extension still writes
   * until its output closes (`shutdown_ack` last).
   */
  async shutdown(): Promise<ExtFrame[]> {
    return parse<ExtFrame[]>(await this.host.shutdown());
  }

  /** Closes the extension's stdin (EOF) and returns every frame it still writes. */
  async closeStdin(): Promise<ExtFrame[]> {
    return parse<ExtFrame[]>(await this.host.closeStdin());
  }

  /** Every remaining frame until the extension's output closes. */
  async drain(): Promise<ExtFrame[]> {
    return parse<ExtFrame[]>(await this.host.drain());
  }

  /**
   * What a spawned process wrote on its stderr so far (`undefined`
   * in-process, or with `stderr: "inherit"`).
   */
  async stderr(): Promise<string | undefined> {
    return (await this.host.stderr()) ?? undefined;
  }

  /**
   * Ends the session now: a spawned process is killed (if it still runs)
   * and reaped; an in-process extension sees its stdin close. For the end
   * of a test that did not reach `shutdown()`, e.g. in a `finally`.
   */
  close(): Promise<void> {
    // Asked before the harness goes, so that `finished` still settles; a
    // failure is still reported to whoever awaits `finished`.
    this.finished.catch(() => {});
    return this.host.close();
  }
}
