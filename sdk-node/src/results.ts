// What handlers return: tool results, command responses and interception
// verdicts. Plain data with the protocol's field names; the engine decides
// what reaches the wire (it drops results of cancelled calls, checks
// tool_prompt, applies the per-event interception rules).

import type { CommandResponse, ContentBlock, HostToolResult, PanelSpec, ToolResult } from "./generated/protocol";

/** A JSON object (tool arguments, schemas, structured content). */
export type JsonObject = { [key: string]: unknown };

/** The fields of a `tool_result` that a handler chooses (the engine adds `id`). */
export type ToolReply = Omit<ToolResult, "type" | "id">;

/** The fields of a `command_response` that a handler chooses (the engine adds `id`). */
export type CommandReply = Omit<CommandResponse, "type" | "id">;

/** The host's answer to `callTool` (a tool that failed has `is_error: true`). */
export type CallToolResult = Omit<HostToolResult, "type">;

function base64(data: Uint8Array | string): string {
  return typeof data === "string"
    ? data
    : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
}

/**
 * The result of a tool handler: model-facing content blocks, plus optional
 * structured content and deferred tools to activate. Build one with the
 * static constructors and chain the `with*` methods:
 *
 * ```ts
 * return ToolOutput.text(`sum=${a + b}`).withStructured({ sum: a + b });
 * ```
 *
 * A handler may also return a plain string (one text block) or the wire
 * fields themselves (`{ content, is_error, activate_tools, structured_content }`).
 */
export class ToolOutput {
  /** The content blocks, in order. */
  readonly content: ContentBlock[];
  /** Whether the call failed (`is_error`). */
  isError = false;
  /** Registered deferred tools to activate after this result. */
  readonly activateTools: string[] = [];
  /** JSON result for programmatic callers (tools with an `outputSchema`). */
  structuredContent: unknown = undefined;

  private constructor(content: ContentBlock[]) {
    this.content = content;
  }

  /** One text block. */
  static text(text: string): ToolOutput {
    return new ToolOutput([{ type: "text", text }]);
  }

  /** An error result (`is_error`) with one text block. */
  static error(message: string): ToolOutput {
    return ToolOutput.text(message).withError(true);
  }

  /** Any content blocks. */
  static blocks(blocks: readonly ContentBlock[]): ToolOutput {
    return new ToolOutput([...blocks]);
  }

  /** One image block, from raw bytes or from base64 text. */
  static image(mimeType: string, data: Uint8Array | string): ToolOutput {
    return new ToolOutput([]).withImage(mimeType, data);
  }

  /**
   * A result whose content is the JSON text of `value` and whose
   * `structured_content` is `value` itself: clients that ignore structured
   * content still see it.
   */
  static structured(value: unknown): ToolOutput {
    return ToolOutput.text(JSON.stringify(value)).withStructured(value);
  }

  /** Adds a text block. */
  withText(text: string): this {
    this.content.push({ type: "text", text });
    return this;
  }

  /** Adds an image block, from raw bytes or from base64 text. */
  withImage(mimeType: string, data: Uint8Array | string): this {
    this.content.push({ type: "image", mime_type: mimeType, data: base64(data) });
    return this;
  }

  /** Sets `structured_content` (the content blocks stay as they are). */
  withStructured(value: unknown): this {
    this.structuredContent = value;
    return this;
  }

  /** Names registered deferred tools to activate after this result. */
  activate(...tools: string[]): this {
    this.activateTools.push(...tools);
    return this;
  }

  /** Marks the result as an error (or not). */
  withError(isError = true): this {
    this.isError = isError;
    return this;
  }

  /** @internal The text when this is one text block and nothing else. */
  onlyText(): string | undefined {
    const [first] = this.content;
    return this.content.length === 1 &&
      first?.type === "text" &&
      !this.isError &&
      this.activateTools.length === 0 &&
      this.structuredContent === undefined
      ? first.text
      : undefined;
  }

  /** The wire fields (used by `JSON.stringify`). */
  toJSON(): ToolReply {
    const out: ToolReply = { content: this.content };
    if (this.isError) {
      out.is_error = true;
    }
    if (this.activateTools.length > 0) {
      out.activate_tools = this.activateTools;
    }
    if (this.structuredContent !== undefined) {
      out.structured_content = this.structuredContent;
    }
    return out;
  }
}

/**
 * The response of a command handler. A handler that returns nothing answers
 * `noop`; a handler that throws answers `noop` with the error's message.
 *
 * ```ts
 * ext.command("greet", "Greet someone", (args) => Response.prompt(`Hello, ${args}`));
 * ```
 */
export class Response {
  /** The wire fields. */
  readonly fields: Readonly<CommandReply>;

  private constructor(fields: CommandReply) {
    this.fields = fields;
  }

  /** Sends `prompt` to the agent as a user message. */
  static prompt(prompt: string): Response {
    return new Response({ action: "prompt", prompt });
  }

  /**
   * Runs `toolName` with `args`, then submits `prompt` (§10.3). An empty name
   * or prompt is turned into an error response by the engine.
   */
  static toolPrompt(toolName: string, args: JsonObject, prompt: string): Response {
    return new Response({ action: "tool_prompt", prompt, tool_name: toolName, tool_args: args });
  }

  /** Puts `text` into the editor. */
  static insert(text: string): Response {
    return new Response({ action: "insert", insert: text });
  }

  /** Shows `text` once as a note. */
  static display(text: string): Response {
    return new Response({ action: "display", display: text });
  }

  /** Opens a panel (route its keys with `Extension.onPanelKey`). */
  static openPanel(panel: PanelSpec): Response {
    return new Response({ action: "open_panel", open_panel: panel });
  }

  /** Does nothing. */
  static noop(): Response {
    return new Response({ action: "noop" });
  }

  /** Shows `message` as an error; nothing else happens. */
  static error(message: string): Response {
    return new Response({ action: "noop", error: message });
  }

  /** The wire fields (used by `JSON.stringify`). */
  toJSON(): CommandReply {
    return this.fields;
  }
}

/** The decision of a `tool_call` interceptor. */
export type ToolCallVerdict =
  | { readonly verdict: "allow" }
  | { readonly verdict: "block"; readonly reason: string }
  | { readonly verdict: "modify"; readonly args: JsonObject };

/** Constructors of {@link ToolCallVerdict}. */
export const ToolCallVerdict = {
  /** Lets the call run unchanged (the same as returning nothing). */
  allow: (): ToolCallVerdict => ({ verdict: "allow" }),
  /** Refuses the call; `reason` is shown to the model. */
  block: (reason: string): ToolCallVerdict => ({ verdict: "block", reason }),
  /** Runs the call with `args` instead (must be a JSON object). */
  modify: (args: JsonObject): ToolCallVerdict => ({ verdict: "modify", args }),
} as const;

/** The decision of a `turn_start` interceptor. */
export type TurnVerdict = { readonly verdict: "allow" } | { readonly verdict: "block"; readonly reason: string };

/** Constructors of {@link TurnVerdict}. */
export const TurnVerdict = {
  /** Lets the turn run (the same as returning nothing). */
  allow: (): TurnVerdict => ({ verdict: "allow" }),
  /** Stops the turn. */
  block: (reason: string): TurnVerdict => ({ verdict: "block", reason }),
} as const;

/** The decision of an `assistant_message` interceptor. */
export type MessageVerdict =
  | { readonly verdict: "allow" }
  | { readonly verdict: "block"; readonly reason: string }
  | { readonly verdict: "replace"; readonly text: string };

/** Constructors of {@link MessageVerdict}. */
export const MessageVerdict = {
  /** Shows the message unchanged (the same as returning nothing). */
  allow: (): MessageVerdict => ({ verdict: "allow" }),
  /** Hides the message. */
  block: (reason: string): MessageVerdict => ({ verdict: "block", reason }),
  /** Shows `text` instead (ignored when empty or unchanged). */
  replace: (text: string): MessageVerdict => ({ verdict: "replace", text }),
} as const;

/** The decision of a `before_agent_start` interceptor (it cannot block). */
export type PromptVerdict = { readonly verdict: "keep" } | { readonly verdict: "replace"; readonly prompt: string };

/** Constructors of {@link PromptVerdict}. */
export const PromptVerdict = {
  /** Keeps the system prompt (the same as returning nothing). */
  keep: (): PromptVerdict => ({ verdict: "keep" }),
  /** Replaces the whole system prompt. */
  replace: (prompt: string): PromptVerdict => ({ verdict: "replace", prompt }),
  /** Removes the system prompt (replaces it with the empty string). */
  remove: (): PromptVerdict => ({ verdict: "replace", prompt: "" }),
} as const;

/** Any interception verdict. */
export type Verdict = ToolCallVerdict | TurnVerdict | MessageVerdict | PromptVerdict;

/** The text of the first text block of a result (`""` if there is none). */
export function firstText(result: { content?: ContentBlock[] | undefined }): string {
  for (const block of result.content ?? []) {
    if (block.type === "text") {
      return block.text ?? "";
    }
  }
  return "";
}

/** Whether a handler returned a promise (or any thenable) to wait for. */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === "object" || typeof v === "function") &&
    v !== null &&
    typeof (v as { then?: unknown }).then === "function"
  );
}
