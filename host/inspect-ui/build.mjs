// Builds the inspector's page into dist/ (committed; the host embeds it
// with include_str!): app.js (esbuild bundle of src/main.ts), app.css and
// index.html (copied). The output depends only on the sources and the
// pinned esbuild, so the inspect suite rebuilds it into a temporary folder
// and fails when the committed dist/ differs.
//
//   node host/inspect-ui/build.mjs [OUTDIR]

import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "dist"));
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, "src/main.ts")],
  outfile: join(out, "app.js"),
  bundle: true,
  format: "iife",
  target: "es2022",
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
  banner: { js: "// Built by host/inspect-ui/build.mjs from host/inspect-ui/src; do not edit." },
});
copyFileSync(join(here, "src/app.css"), join(out, "app.css"));
copyFileSync(join(here, "src/index.html"), join(out, "index.html"));
