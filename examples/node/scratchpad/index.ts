// `scratchpad`: TypeScript run from source — commands and a tool sharing a
// scratchpad that persists in the extension's data directory.
//
// Only erasable TypeScript syntax (type annotations, interfaces, `import
// type`), so it runs unchanged with Node's own type stripping (Node 22.6+:
// `node --experimental-strip-types index.ts`) or with a TS runner on older
// Node (extension.json: `node --import tsx index.ts`).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { type Context, Extension, type HostInfo, Response, ToolOutput } from "zot-ext";

interface ScratchpadArgs {
  /** `read` the scratchpad or `append` a line to it. */
  action: "read" | "append";
  /** The line to append. */
  text?: string;
}

const ext = new Extension("scratchpad", "0.1.0");
let lines: string[] = [];
let file: string | undefined;

async function load(host: HostInfo): Promise<void> {
  if (host.data_dir === undefined || host.data_dir === "") {
    return;
  }
  file = join(host.data_dir, "scratchpad.txt");
  try {
    lines = (await readFile(file, "utf8")).split("\n").filter((l) => l !== "");
  } catch {
    lines = []; // first run
  }
}

async function save(ctx: Context): Promise<void> {
  if (file !== undefined) {
    await writeFile(file, lines.map((l) => `${l}\n`).join(""));
    ctx.log(`saved ${lines.length} line(s) to ${file}`);
  }
}

const show = (): string =>
  lines.length === 0 ? "(the scratchpad is empty)" : lines.map((l, i) => `${i + 1}. ${l}`).join("\n");

ext
  .onHello(load)
  .command("jot", "Add a line to the scratchpad", async (args: string, ctx: Context) => {
    if (args.trim() === "") {
      return Response.error("usage: /jot <text>");
    }
    lines.push(args.trim());
    await save(ctx);
    return Response.display(`noted (${lines.length})`);
  })
  .command("pad", "Show the scratchpad", () => Response.display(show()))
  .command("wipe", "Empty the scratchpad", async (_args: string, ctx: Context) => {
    lines = [];
    await save(ctx);
    ctx.notify("scratchpad wiped", "success");
  })
  .tool<ScratchpadArgs>(
    {
      name: "scratchpad",
      description: "Read the user's scratchpad, or append a line to it",
      schema: {
        type: "object",
        properties: {
          action: { type: "string", enum: ["read", "append"] },
          text: { type: "string", description: "The line to append." },
        },
        required: ["action"],
      },
    },
    async (args, ctx) => {
      if (args.action === "read") {
        return ToolOutput.text(show());
      }
      if (args.action === "append" && typeof args.text === "string" && args.text.trim() !== "") {
        lines.push(args.text.trim());
        await save(ctx);
        return ToolOutput.text(`appended line ${lines.length}`);
      }
      return ToolOutput.error('expected {"action":"read"} or {"action":"append","text":"..."}');
    },
  );

await ext.run();
