// `composer`: calling host tools with `ctx.callTool`.
//
// - tool `read_many {paths}` reads several files through the host's `read`
//   tool, concurrently, as children of its own invocation (the engine fills
//   `parent_id`; cancelling this tool cancels the reads), each with a
//   durable key (sent only to hosts that advertise `call_tool_durable`) and
//   a deadline;
// - command `/wc <path>` counts the lines of a file through the host's
//   `read`, with a deadline under the host's 30 s command deadline.
//
// A tool that fails on the host side resolves with `is_error`; a call that
// could not complete (timeout, no `call_tool` support, shutdown) rejects
// with a `CallToolError`.
import { pathToFileURL } from "node:url";

import { Extension, firstText, Response, ToolOutput } from "zot-ext";

const CALL_DEADLINE_MS = 20_000;

export function extension() {
  return new Extension("composer", "0.1.0")
    .tool(
      {
        name: "read_many",
        description: "Read several files through the host's read tool",
        schema: {
          type: "object",
          properties: {
            paths: { type: "array", items: { type: "string" }, description: "Files to read, relative to the project." },
          },
          required: ["paths"],
        },
      },
      async ({ paths }, ctx) => {
        if (!Array.isArray(paths) || paths.length === 0) {
          return ToolOutput.error("no paths");
        }
        // All reads outstanding at once.
        const results = await Promise.allSettled(
          paths.map((path, i) =>
            ctx.callTool("read", { path }, { key: `read-${i}`, timeoutMs: CALL_DEADLINE_MS, signal: ctx.signal }),
          ),
        );
        let failed = 0;
        const out = results.map((r, i) => {
          if (r.status === "fulfilled" && !r.value.is_error) {
            return `== ${paths[i]} ==\n${firstText(r.value)}`;
          }
          failed += 1;
          return r.status === "fulfilled"
            ? `== ${paths[i]} == failed: ${firstText(r.value)}`
            : `== ${paths[i]} == not read: ${r.reason.message}`;
        });
        return ToolOutput.text(out.join("\n")).withError(failed === paths.length);
      },
    )
    .command("wc", "Count the lines of a file", async (path, ctx) => {
      try {
        const r = await ctx.callTool("read", { path }, { timeoutMs: CALL_DEADLINE_MS });
        if (r.is_error) {
          return Response.error(`read failed: ${firstText(r)}`);
        }
        const text = firstText(r);
        const count = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
        return Response.display(`${path}: ${count} lines`);
      } catch (e) {
        return Response.error(`read not done: ${e.message}`);
      }
    });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await extension().run();
}
