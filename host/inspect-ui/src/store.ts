// What the page knows: the session state (refetched when the server says it
// changed), the frames and observations (streamed), stderr lines, and the
// step that runs. Views subscribe to named changes.

import { ApiError, get, post, socket } from "./api";

export interface Frame {
  n: number;
  ts: number;
  ext: string;
  dir: "host->ext" | "ext->host";
  type: string;
  id?: string;
  event?: string;
  size: number;
  preview: string;
  reply_to?: number;
  latency?: number;
}

export type Obs = { kind: string } & Record<string, unknown>;

export interface ObsRec {
  n: number;
  ts: number;
  o: Obs;
}

export interface RegRecord {
  ext: string;
  kind: string;
  name: string;
  active: boolean;
  note?: string;
}

export interface Ext {
  name: string;
  version: string;
  language: string;
  source: string;
  dir: string;
  log: string;
  connected: boolean;
  ready: string;
  disconnect_reason: string | null;
  capabilities: string[];
  hello: unknown;
  hello_ack: unknown;
  commands: RegRecord[];
  tools: RegRecord[];
  events: string[];
  intercepts: string[];
  diagnostics: string[];
}

export interface Tool {
  name: string;
  ext: string;
  description: string;
  schema: unknown;
  output_schema: unknown;
  exposure: string;
  interactive: boolean;
  deferred: boolean;
  namespace: string;
  model_callable: boolean;
  stub: boolean;
}

export interface State {
  session: { id: string; cwd: string; mode: string; provider: string; model: string; active: boolean };
  extensions: Ext[];
  passive: string[];
  load_errors: { ext: string; message: string; log: string | null }[];
  tools: Tool[];
  builtin_tools: string[];
  commands: { name: string; ext: string; description: string }[];
  builtin_commands: string[];
  panel: { ext: string; id: string; title: string; lines: string[]; footer: string } | null;
  stubs: string[];
  running: Record<string, unknown> | null;
  steps: number;
  closed: boolean;
  events: string[];
  intercepts: string[];
}

export interface StepReply {
  output: {
    tool?: ToolOut;
    verdict?: { event: string; verdict: string; reason: string | null; result: unknown };
  } | null;
  frames: [number, number];
  observations: [number, number];
}

export interface ToolOut {
  text: string;
  content: ({ type: "text"; text: string } | { type: "image"; mime_type: string; data: string } | { type: string })[];
  is_error: boolean;
  status: string;
  structured_content: unknown;
}

type Topic = "state" | "frames" | "obs" | "log" | "notice" | "model";

/** The client keeps as many frames as the server does. */
const MAX_FRAMES = 20_000;
const MAX_OBS = 50_000;

class Store {
  state: State | null = null;
  frames: Frame[] = [];
  obs: ObsRec[] = [];
  logs = new Map<string, string[]>();
  notice = "";
  /** A live model's text as it streams, since the prompt began (a line
   * break between its requests); not kept: the turns' observations hold it. */
  modelText = "";
  private listeners = new Map<Topic, Set<() => void>>();
  private stateTimer: number | undefined;
  private frameSeen = -1;
  private obsSeen = -1;

  /** Calls `f` on every change of `topic`; returns what stops it. */
  on(topic: Topic, f: () => void): () => void {
    let s = this.listeners.get(topic);
    if (!s) {
      s = new Set();
      this.listeners.set(topic, s);
    }
    s.add(f);
    return () => s.delete(f);
  }

  emit(topic: Topic): void {
    for (const f of this.listeners.get(topic) ?? []) f();
  }

  say(text: string): void {
    this.notice = text;
    this.emit("notice");
  }

  async start(): Promise<void> {
    this.connect();
    await Promise.all([this.refreshState(), this.backfill()]);
  }

  private connect(): void {
    const ws = socket();
    ws.onmessage = (ev) => {
      const m = JSON.parse(String(ev.data)) as { t: string } & Record<string, unknown>;
      switch (m.t) {
        case "frame":
          this.addFrame(m.f as Frame);
          this.emit("frames");
          break;
        case "obs":
          this.addObs({ n: m.n as number, ts: m.ts as number, o: m.o as Obs });
          this.emit("obs");
          break;
        case "log": {
          const ext = m.ext as string;
          const lines = this.logs.get(ext) ?? [];
          lines.push(m.text as string);
          if (lines.length > 2000) lines.shift();
          this.logs.set(ext, lines);
          this.emit("log");
          break;
        }
        case "state":
          this.scheduleState();
          break;
        case "model":
          if (typeof m.text === "string") this.modelText += m.text;
          if (typeof m.retrying === "string") this.modelText += `\n(${m.retrying})\n`;
          if (m.end && this.modelText && !this.modelText.endsWith("\n")) this.modelText += "\n";
          this.emit("model");
          break;
        case "lagged":
          void this.backfill();
          this.scheduleState();
          break;
      }
    };
    ws.onclose = () => {
      this.say("Disconnected from zot-host inspect (was it stopped?). Reload the page to reconnect.");
    };
  }

  private addFrame(f: Frame): void {
    if (f.n <= this.frameSeen) return;
    this.frameSeen = f.n;
    this.frames.push(f);
    if (this.frames.length > MAX_FRAMES) this.frames.splice(0, this.frames.length - MAX_FRAMES);
  }

  private addObs(o: ObsRec): void {
    if (o.n <= this.obsSeen) return;
    this.obsSeen = o.n;
    this.obs.push(o);
    if (this.obs.length > MAX_OBS) this.obs.splice(0, this.obs.length - MAX_OBS);
  }

  /** Fetches what the stream did not bring (on start, or after a lag). */
  async backfill(): Promise<void> {
    const frames = await get<Frame[]>(`/api/frames?from=${this.frameSeen + 1}`);
    const recs = await get<ObsRec[]>("/api/observations?from=0");
    // Frames arrive in order; merge those the stream has not delivered yet.
    const merged = [...frames, ...this.frames.filter((f) => f.n > (frames.at(-1)?.n ?? -1))];
    const before = this.frames.filter((f) => f.n < (frames[0]?.n ?? Infinity));
    this.frames = [...before, ...merged].slice(-MAX_FRAMES);
    this.frameSeen = this.frames.at(-1)?.n ?? this.frameSeen;
    const last = recs.at(-1)?.n ?? -1;
    this.obs = [...recs, ...this.obs.filter((o) => o.n > last)].slice(-MAX_OBS);
    this.obsSeen = this.obs.at(-1)?.n ?? this.obsSeen;
    for (const ext of this.state?.extensions ?? []) await this.loadLog(ext.name);
    this.emit("frames");
    this.emit("obs");
  }

  async loadLog(ext: string): Promise<void> {
    this.logs.set(ext, await get<string[]>(`/api/log/${encodeURIComponent(ext)}`));
    this.emit("log");
  }

  private scheduleState(): void {
    if (this.stateTimer !== undefined) return;
    this.stateTimer = window.setTimeout(() => {
      this.stateTimer = undefined;
      void this.refreshState();
    }, 50);
  }

  async refreshState(): Promise<void> {
    const first = this.state === null;
    this.state = await get<State>("/api/state");
    if (first) for (const e of this.state.extensions) await this.loadLog(e.name);
    this.emit("state");
  }

  /** Runs a script step; errors become the notice line and are rethrown. */
  async step(step: Record<string, unknown>): Promise<StepReply> {
    try {
      return await post<StepReply>("/api/step", step);
    } catch (e) {
      this.say(e instanceof ApiError ? e.message : String(e));
      throw e;
    }
  }

  async key(key: string, text = ""): Promise<void> {
    try {
      await post("/api/key", { key, text });
    } catch (e) {
      this.say(e instanceof ApiError ? e.message : String(e));
    }
  }

  async cancel(): Promise<void> {
    await post("/api/cancel", {});
  }

  /** The observations of a step's range. */
  async obsIn(range: [number, number]): Promise<ObsRec[]> {
    const all = await get<ObsRec[]>(`/api/observations?from=${range[0]}`);
    return all.filter((o) => o.n < range[1]);
  }

  /** The frames of a step's range (from the server: the stream may still be on its way). */
  async framesIn(range: [number, number]): Promise<Frame[]> {
    const all = await get<Frame[]>(`/api/frames?from=${range[0]}`);
    return all.filter((f) => f.n < range[1]);
  }
}

export const store = new Store();
