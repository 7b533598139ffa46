// The SDK's errors: one class per kind of failure, all `ZotError`s with a
// stable `code` (the same strings as the Python SDK's `ZotError.code` and
// the Rust SDK's `Error::code()`, docs/api-parity.md), and the error that
// caused them as the standard `cause`. Before this every error the addon
// raised was a plain `Error` with napi's `code: "GenericFailure"`.

import type { CallToolErrorKind as EngineCallToolErrorKind } from "./generated/contract";

/** The kinds of failure, as `ZotError.code`. */
export type ZotErrorCode = "not_running" | "registration" | "send" | "session" | "invalid_arguments" | "call_tool";

/** Something the SDK could not do; `code` says what kind of failure. */
export class ZotError extends Error {
  readonly code: ZotErrorCode;

  constructor(code: ZotErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ZotError";
    this.code = code;
  }
}

/** An action that needs a running session was taken without one. */
export class NotRunningError extends ZotError {
  constructor(message: string) {
    super("not_running", message);
    this.name = "NotRunningError";
  }
}

/** A registration was refused (an invalid name or schema). */
export class RegistrationError extends ZotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("registration", message, options);
    this.name = "RegistrationError";
  }
}

/** The engine refused to send a frame. */
export class SendError extends ZotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("send", message, options);
    this.name = "SendError";
  }
}

/** The session could not start or ended abnormally. */
export class SessionError extends ZotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("session", message, options);
    this.name = "SessionError";
  }
}

/**
 * A tool's arguments were refused by its library schema (the handler never
 * ran). The message starts with `invalid arguments: ` and names the field.
 */
export class ArgumentError extends ZotError {
  constructor(message: string) {
    super("invalid_arguments", message);
    this.name = "ArgumentError";
  }
}

/**
 * Why a `callTool` failed as a call (a failing tool resolves with `is_error`
 * instead): the engine's kinds (the generated contract's), and others a
 * later engine may add.
 */
export type CallToolErrorKind = EngineCallToolErrorKind | (string & {});

/** A `callTool` that failed as a call: see {@link CallToolError.kind}. */
export class CallToolError extends ZotError {
  /** Why: `timeout`, `cancelled`, `closed`, `unsupported`, `invalid_key`, ... */
  readonly kind: CallToolErrorKind;

  constructor(message: string, kind: CallToolErrorKind, options?: { cause?: unknown }) {
    super("call_tool", message, options);
    this.name = "CallToolError";
    this.kind = kind;
  }
}

/**
 * A command or tool name registered before: hosts keep the first
 * registration, so a second could never run. The text is the engine's
 * (`RegisterError::DuplicateCommand` / `DuplicateTool`), as in every SDK.
 */
export function duplicateRegistration(kind: "command" | "tool", name: string, registered: string): RegistrationError {
  return new RegistrationError(
    kind === "command"
      ? `duplicate command name ${JSON.stringify(name)}: command ${JSON.stringify(registered)} is already registered (command names ignore case)`
      : `duplicate tool name ${JSON.stringify(name)}: a tool of this name is already registered`,
  );
}

/** The message of anything thrown. */
export function message(e: unknown): string {
  if (e instanceof Error) {
    return e.message;
  }
  return typeof e === "string" ? e : String(e);
}

/**
 * A failed interceptor's part of its verdict's reason: the error's type,
 * then its message (`TypeError: x is not a function`), as every SDK names
 * it. The type is the error's `name`, or its class when `name` was left
 * `Error`; a thrown non-error is an `Error`.
 */
export function typedMessage(e: unknown): string {
  if (!(e instanceof Error)) {
    return `Error: ${message(e)}`;
  }
  const ctor: unknown = e.constructor?.name;
  const type = e.name !== "Error" || typeof ctor !== "string" || ctor === "" ? e.name : ctor;
  return e.message === "" ? type : `${type}: ${e.message}`;
}

/** Runs `f`, turning an addon error into `make(message, { cause })`. */
export function wrapped<T>(f: () => T, make: (message: string, options: { cause: unknown }) => ZotError): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ZotError) {
      throw e;
    }
    throw make(message(e), { cause: e });
  }
}
