// Tool arguments from a validation library (Standard Schema + Standard JSON
// Schema; zod 4 here): the JSON Schema sent to the host, validation before
// the handler, the handler getting the library's output, and clear errors.

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";

import { z } from "zod";
import { Extension, ToolOutput } from "zot-ext";
import { TestHost } from "zot-ext/testing";

import { noUnhandled, text } from "./helpers.mjs";

after(noUnhandled());

async function withHost(ext, body) {
  const host = await TestHost.start(ext);
  try {
    return await body(host);
  } finally {
    await host.shutdown();
  }
}

const forecast = z.object({
  city: z.string().describe("City name"),
  days: z.number().int().min(1).max(7).default(3),
  units: z.enum(["metric", "imperial"]).optional(),
});

describe("tools with a library schema", () => {
  test("register_tool carries the schema's JSON Schema (draft-07, no $schema key)", async () => {
    const ext = new Extension("zod", "1.0.0").tool(
      { name: "forecast", description: "Weather", schema: forecast },
      (args) => `${args.city}`,
    );
    await withHost(ext, async (host) => {
      const [tool] = host.registration.tools;
      assert.equal(tool.name, "forecast");
      assert.deepEqual(tool.schema, {
        type: "object",
        properties: {
          city: { type: "string", description: "City name" },
          days: { type: "integer", minimum: 1, maximum: 7, default: 3 },
          units: { type: "string", enum: ["metric", "imperial"] },
        },
        required: ["city"],
      });
    });
  });

  test("the handler gets the validated output; invalid calls never reach it", async () => {
    const seen = [];
    const ext = new Extension("zod", "1.0.0").tool({ name: "forecast", schema: forecast }, (args, ctx) => {
      seen.push(args);
      return ToolOutput.text(`${args.city} ${args.days} ${ctx.id}`);
    });
    await withHost(ext, async (host) => {
      // The default is filled in by the library.
      assert.equal(text(await host.tool("forecast", { city: "Oslo" })), "Oslo 3 tool-1");
      const wrong = await host.tool("forecast", { city: 7, days: 0 });
      assert.equal(wrong.is_error, true);
      assert.match(text(wrong), /^invalid arguments: field `city`: .+; field `days`: .+$/);
      const missing = await host.tool("forecast", {});
      // Checked by the engine against the JSON Schema first, as in every SDK.
      assert.equal(text(missing), "invalid arguments: missing field `city`");
      assert.deepEqual(seen, [{ city: "Oslo", days: 3 }]);
    });
  });

  test("nested paths name the element; async validators are awaited", async () => {
    const order = z.object({ items: z.array(z.object({ sku: z.string() })) });
    // A hand-written Standard Schema whose validation is asynchronous.
    const later = {
      "~standard": {
        version: 1,
        vendor: "test",
        validate: async (value) =>
          typeof value.n === "number"
            ? { value: { n: value.n * 2 } }
            : { issues: [{ message: "n must be a number", path: [{ key: "n" }] }] },
        jsonSchema: { input: () => ({ type: "object", properties: { n: { type: "number" } } }) },
      },
    };
    const ext = new Extension("zod", "1.0.0")
      .tool({ name: "order", schema: order }, (args) => args.items.map((i) => i.sku).join(","))
      .tool({ name: "double", schema: later }, async (args) => String(args.n));
    await withHost(ext, async (host) => {
      assert.equal(text(await host.tool("order", { items: [{ sku: "a" }, { sku: "b" }] })), "a,b");
      assert.match(
        text(await host.tool("order", { items: [{ sku: "a" }, { sku: 2 }] })),
        /^invalid arguments: field `items\[1\]\.sku`: /,
      );
      assert.equal(text(await host.tool("double", { n: 21 })), "42");
      const bad = await host.tool("double", { n: "x" });
      assert.equal(bad.is_error, true);
      assert.equal(text(bad), 'invalid arguments: field `n`: "x" is not of type "number"');
    });
  });

  test("a schema that cannot give a JSON Schema is refused at registration, naming the tool", () => {
    const validateOnly = { "~standard": { version: 1, vendor: "mylib", validate: (v) => ({ value: v }) } };
    assert.throws(
      () => new Extension("zod", "1.0.0").tool({ name: "t", schema: validateOnly }, () => "x"),
      (e) => e instanceof TypeError && /tool "t": the mylib schema cannot produce a JSON Schema/.test(e.message),
    );
    // zod cannot express a transform's input in JSON Schema when asked for it: its error is passed on.
    const dates = z.object({ when: z.date() });
    assert.throws(
      () => new Extension("zod", "1.0.0").tool({ name: "d", schema: dates }, () => "x"),
      (e) => e instanceof TypeError && /^tool "d": the zod schema has no JSON Schema: /.test(e.message),
    );
  });
});
