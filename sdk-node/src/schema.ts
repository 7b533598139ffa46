// Tool argument schemas from validation libraries.
//
// A tool's `schema` may be a plain JSON Schema object, or a schema object
// of any library that implements the two community interfaces Standard
// Schema (a `~standard.validate` function) and Standard JSON Schema
// (`~standard.jsonSchema.input({ target })`): zod 4 schemas do (tested with
// 4.6), other libraries where they implement both. From such a schema the
// tool's JSON Schema is derived once, at registration, and every call's
// arguments are validated before the handler runs; the handler gets the
// library's output value, typed by the schema. No library is a dependency
// of this package: only the shape of those interfaces is used.

import { ArgumentError } from "./errors";
import type { JsonObject } from "./results";

/** A path step of a validation issue: a key, or an object holding one. */
type PathStep = PropertyKey | { readonly key: PropertyKey };

/** What a Standard Schema's `validate` returns. */
export type SchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PathStep> | undefined }>;
    };

/**
 * A schema of a validation library implementing Standard Schema v1 and
 * Standard JSON Schema v1 (e.g. a zod 4 `z.object(...)`). `Output` is what
 * the tool handler receives.
 */
export interface StandardSchema<Output = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => SchemaResult<Output> | Promise<SchemaResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
    readonly jsonSchema?:
      | { readonly input: (options: { readonly target: string }) => Record<string, unknown> }
      | undefined;
  };
}

/** The handler's argument type of a tool whose schema is `S`. */
export type SchemaOutput<S> = S extends StandardSchema<infer O> ? O : JsonObject;

/** Whether `schema` is a library schema (not a plain JSON Schema). */
export function isStandardSchema(schema: unknown): schema is StandardSchema {
  if (schema === null || (typeof schema !== "object" && typeof schema !== "function")) {
    return false;
  }
  const std = (schema as { "~standard"?: unknown })["~standard"];
  return typeof std === "object" && std !== null && typeof (std as { validate?: unknown }).validate === "function";
}

/**
 * The JSON Schema of a library schema, for `register_tool` (draft-07, the
 * dialect of the protocol's own schema; the `$schema` key is dropped: a
 * tool schema is a fragment of a frame, not a document). Throws a
 * `TypeError` naming the tool when the library cannot produce one.
 */
export function jsonSchemaOf(tool: string, schema: StandardSchema): JsonObject {
  const std = schema["~standard"];
  const convert = std.jsonSchema?.input;
  if (typeof convert !== "function") {
    throw new TypeError(
      `tool ${JSON.stringify(tool)}: the ${std.vendor} schema cannot produce a JSON Schema ` +
        "(it implements Standard Schema but not Standard JSON Schema): upgrade the library " +
        "or pass a JSON Schema object as `schema`",
    );
  }
  let json: Record<string, unknown>;
  try {
    json = convert.call(std.jsonSchema, { target: "draft-07" });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new TypeError(`tool ${JSON.stringify(tool)}: the ${std.vendor} schema has no JSON Schema: ${why}`);
  }
  const { $schema: _dialect, ...rest } = json;
  return rest as JsonObject;
}

/** `a.b[0].c` from an issue's path. */
function pathText(path: ReadonlyArray<PathStep>): string {
  let out = "";
  for (const step of path) {
    const key = typeof step === "object" && step !== null ? step.key : step;
    if (typeof key === "number") {
      out += `[${key}]`;
    } else {
      const name = String(key);
      out += out === "" ? name : `.${name}`;
    }
  }
  return out;
}

/** The error a handler never sees: the arguments did not validate. */
function invalid(result: Extract<SchemaResult<unknown>, { issues: ReadonlyArray<unknown> }>): ArgumentError {
  const parts = result.issues.map((issue) => {
    const path = issue.path === undefined ? "" : pathText(issue.path);
    return path === "" ? issue.message : `field \`${path}\`: ${issue.message}`;
  });
  return new ArgumentError(`invalid arguments: ${parts.length === 0 ? "rejected by the schema" : parts.join("; ")}`);
}

/**
 * Wraps a handler so that it receives the validated (and possibly
 * transformed) arguments. A synchronous validator keeps a synchronous
 * handler synchronous (no extra turn of the event loop per call).
 */
export function validating<C, R>(
  schema: StandardSchema,
  handler: (args: never, ctx: C) => R,
): (args: JsonObject, ctx: C) => R | Promise<Awaited<R>> {
  const std = schema["~standard"];
  const call = handler as (args: unknown, ctx: C) => R;
  return (args, ctx) => {
    const result = std.validate(args);
    if (result instanceof Promise) {
      return result.then((r) => {
        if (r.issues !== undefined) {
          throw invalid(r);
        }
        return call(r.value, ctx) as Awaited<R>;
      });
    }
    if (result.issues !== undefined) {
      throw invalid(result);
    }
    return call(result.value, ctx);
  };
}

/**
 * A raw shape, as MCP users write it: a plain object whose values are
 * library schemas (`{ name: z.string(), days: z.number().optional() }`).
 * It stands for the object schema with those properties.
 */
export type Shape = { readonly [key: string]: StandardSchema };

type OutputOf<S> = S extends StandardSchema<infer O> ? O : never;

/** The handler's argument type of a raw shape: optional where `undefined` is accepted. */
export type ShapeOutput<S extends Shape> = {
  [K in keyof S as undefined extends OutputOf<S[K]> ? never : K]: OutputOf<S[K]>;
} & {
  [K in keyof S as undefined extends OutputOf<S[K]> ? K : never]?: OutputOf<S[K]>;
};

/**
 * Whether `schema` is a raw shape: a plain object with at least one key,
 * every value a library schema. (`{}` stays the JSON Schema that accepts
 * anything.)
 */
export function isShape(schema: unknown): schema is Shape {
  if (schema === null || typeof schema !== "object" || isStandardSchema(schema)) {
    return false;
  }
  const proto = Object.getPrototypeOf(schema) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    return false;
  }
  const values = Object.values(schema);
  return values.length > 0 && values.every((v) => isStandardSchema(v));
}

/** Whether a field accepts a missing value (its schema takes `undefined`). */
function optional(field: StandardSchema): boolean {
  const r = field["~standard"].validate(undefined);
  return !(r instanceof Promise) && r.issues === undefined;
}

type Issue = { readonly message: string; readonly path?: ReadonlyArray<PathStep> | undefined };

/**
 * The object schema of a raw shape, as one library schema: its JSON Schema
 * lists the properties (required unless the field accepts `undefined`,
 * no others: `additionalProperties: false`, so that the engine names an
 * unexpected key instead of it being dropped), and it validates each field
 * with its own schema, issues prefixed with the field's name.
 */
export function shapeSchema(tool: string, shape: Shape): StandardSchema<object> {
  const entries = Object.entries(shape);
  const vendor = entries[0]?.[1]["~standard"].vendor ?? "shape";
  const finish = (results: Array<[string, SchemaResult<unknown>]>, input: JsonObject): SchemaResult<object> => {
    const issues: Issue[] = [];
    const value: Record<string, unknown> = {};
    for (const [key, r] of results) {
      if (r.issues !== undefined) {
        for (const issue of r.issues) {
          issues.push({ message: issue.message, path: [key, ...(issue.path ?? [])] });
        }
      } else if (r.value !== undefined || key in input) {
        value[key] = r.value;
      }
    }
    for (const key of Object.keys(input)) {
      if (!(key in shape)) {
        issues.push({ message: "unexpected key", path: [key] });
      }
    }
    return issues.length > 0 ? { issues } : { value };
  };
  return {
    "~standard": {
      version: 1,
      vendor,
      validate(input: unknown): SchemaResult<object> | Promise<SchemaResult<object>> {
        if (input === null || typeof input !== "object" || Array.isArray(input)) {
          return { issues: [{ message: "expected a JSON object" }] };
        }
        const args = input as JsonObject;
        const results = entries.map(([key, field]) => [key, field["~standard"].validate(args[key])] as const);
        if (results.some(([, r]) => r instanceof Promise)) {
          return Promise.all(results.map(async ([key, r]) => [key, await r] as [string, SchemaResult<unknown>])).then(
            (settled) => finish(settled, args),
          );
        }
        return finish(results as Array<[string, SchemaResult<unknown>]>, args);
      },
      jsonSchema: {
        input(): Record<string, unknown> {
          const properties: Record<string, unknown> = {};
          const required: string[] = [];
          for (const [key, field] of entries) {
            properties[key] = jsonSchemaOf(`${tool}.${key}`, field);
            if (!optional(field)) {
              required.push(key);
            }
          }
          return {
            type: "object",
            properties,
            ...(required.length > 0 ? { required } : {}),
            additionalProperties: false,
          };
        },
      },
    },
  };
}
