// The shared protocol vectors (tests/vectors/) against the generated types.
//
// Every valid line must parse as a JSON object whose `type` is a known frame
// type of its direction (EXT_FRAME_TYPES / HOST_FRAME_TYPES of the generated
// module) or else be handled as an unknown frame; `event` and
// `event_intercept` frames likewise carry a known event name or an unknown
// one. The invalid cases are checked as far as JSON.parse can tell.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const here = dirname(fileURLToPath(import.meta.url));
const vectors = join(here, "..", "..", "tests", "vectors");
const generated = join(here, "..", "src", "generated", "protocol.ts");

// Node 20 cannot import TypeScript: strip the types of the generated module
// (it is types plus `as const` arrays) and import the rest as an ES module.
async function importGenerated() {
  const { outputText } = ts.transpileModule(readFileSync(generated, "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  });
  return import(`data:text/javascript;base64,${Buffer.from(outputText).toString("base64")}`);
}

const protocol = await importGenerated();

/** The non-empty lines of a vector file, split on LF only (some strings
 * hold raw U+2028, U+2029 and U+0085). */
function lines(path) {
  const text = readFileSync(path, "utf8");
  assert.ok(text.endsWith("\n"), `${path} must end with LF`);
  return text
    .split("\n")
    .map((line, i) => ({ n: i + 1, line }))
    .filter(({ line }) => line !== "");
}

const knownTypes = {
  ext_to_host: new Set(protocol.EXT_FRAME_TYPES),
  host_to_ext: new Set(protocol.HOST_FRAME_TYPES),
};
const knownEvents = {
  event: new Set(protocol.LIFECYCLE_EVENTS),
  event_intercept: new Set(protocol.INTERCEPT_EVENTS),
};

/** `known:<type>`, `known:<type>/<event>`, or why the frame is unknown. */
function classify(direction, frame) {
  assert.equal(typeof frame.type, "string");
  if (!knownTypes[direction].has(frame.type)) return "unknown-frame";
  const events = knownEvents[frame.type];
  if (events === undefined) return `known:${frame.type}`;
  assert.equal(typeof frame.event, "string", `\`${frame.type}\` frame without a string \`event\``);
  return events.has(frame.event) ? `known:${frame.type}/${frame.event}` : "unknown-event";
}

for (const direction of ["ext_to_host", "host_to_ext"]) {
  test(`valid ${direction} lines parse and are classified`, () => {
    const seen = new Set();
    for (const { n, line } of lines(join(vectors, "valid", `${direction}.jsonl`))) {
      const frame = JSON.parse(line);
      assert.ok(
        frame !== null && typeof frame === "object" && !Array.isArray(frame),
        `${direction}:${n}: not an object`,
      );
      seen.add(classify(direction, frame));
    }
    // Each file covers every frame type of its direction (README).
    const covered = new Set([...seen].filter((s) => s.startsWith("known:")).map((s) => s.slice(6).split("/")[0]));
    assert.deepEqual([...covered].sort(), [...knownTypes[direction]].sort());
    assert.ok(seen.has("unknown-frame"));
  });
}

test("every lifecycle event and interception is covered", () => {
  const seen = new Set(
    lines(join(vectors, "valid", "host_to_ext.jsonl")).map(({ line }) => classify("host_to_ext", JSON.parse(line))),
  );
  for (const e of protocol.LIFECYCLE_EVENTS) assert.ok(seen.has(`known:event/${e}`), e);
  for (const e of protocol.INTERCEPT_EVENTS) assert.ok(seen.has(`known:event_intercept/${e}`), e);
  assert.ok(seen.has("unknown-event"));
});

test("tag lists list each value once, in protocol order", () => {
  assert.equal(new Set(protocol.EXT_FRAME_TYPES).size, 18);
  assert.equal(new Set(protocol.HOST_FRAME_TYPES).size, 11);
  assert.equal(new Set(protocol.LIFECYCLE_EVENTS).size, 14);
  // SDK-10: the order SDKs list them in `subscribe.intercept`.
  assert.deepEqual(protocol.INTERCEPT_EVENTS, ["before_agent_start", "tool_call", "turn_start", "assistant_message"]);
  assert.equal(protocol.EXT_FRAME_TYPES[0], "hello");
  assert.equal(protocol.HOST_FRAME_TYPES[0], "hello_ack");
});

/** The raw bytes of an invalid case. */
function rawLine(c) {
  return "line_base64" in c ? Buffer.from(c.line_base64, "base64") : Buffer.from(c.line, "utf8");
}

/** The first rule a line breaks as far as JSON.parse can tell, or `ok` when
 * only a typed decoder can reject it (`invalid_field`); `null` for bad UTF-8,
 * which a JS string cannot hold once decoded. */
function firstError(bytes) {
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return "invalid_utf8";
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return "invalid_json";
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "not_an_object";
  if (!Object.hasOwn(value, "type")) return "missing_type";
  if (typeof value.type !== "string") return "invalid_type_field";
  return "ok";
}

const cases = lines(join(vectors, "invalid", "cases.jsonl")).map(({ line }) => JSON.parse(line));

test("there are invalid cases of every kind", () => {
  const kinds = new Set(cases.map((c) => c.expect));
  for (const k of [
    "invalid_utf8",
    "invalid_json",
    "not_an_object",
    "missing_type",
    "invalid_type_field",
    "invalid_field",
  ]) {
    assert.ok(kinds.has(k), k);
  }
});

for (const c of cases) {
  test(`invalid: ${c.name}`, () => {
    const got = firstError(rawLine(c));
    if (c.expect === "invalid_field") {
      // A JSON object with a string `type`: the error is in a field, which
      // only a typed decoder sees. The frame type must be a known one.
      assert.equal(got, "ok");
      assert.ok(knownTypes[c.direction].has(c.frame_type), c.frame_type);
      assert.equal(JSON.parse(rawLine(c).toString("utf8")).type, c.frame_type);
    } else {
      assert.equal(got, c.expect);
    }
  });
}
