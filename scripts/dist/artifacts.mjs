// Writes the artifact list of target/dist (ARTIFACTS.md): every file with
// its size and sha256, the platforms built, and the ones this machine does
// not build, with why and where they are built instead (not-built.tsv).
//
// usage: node artifacts.mjs <dist dir> <platform>...

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [out, ...built] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));

function tsv(file) {
  return readFileSync(join(here, file), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"))
    .map((l) => l.split("\t"));
}

function size(bytes) {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

const lines = ["# Release artifacts", "", `Platforms built: ${built.join(", ")}.`, ""];
let total = 0;
for (const kind of ["npm", "pypi", "crates"]) {
  const files = readdirSync(join(out, kind)).sort();
  lines.push(`## ${kind}`, "", "| file | size | sha256 |", "| --- | ---: | --- |");
  for (const f of files) {
    const path = join(out, kind, f);
    const bytes = statSync(path).size;
    total += bytes;
    const sha = createHash("sha256").update(readFileSync(path)).digest("hex");
    lines.push(`| \`${f}\` | ${size(bytes)} | \`${sha}\` |`);
  }
  lines.push("");
}
lines.push(`Total: ${size(total)}.`, "");

const missing = tsv("not-built.tsv").filter(([suffix]) => !built.includes(suffix));
const skipped = tsv("platforms.tsv")
  .filter((row) => row[6] === "here")
  .map(([suffix]) => suffix)
  .filter((s) => !built.includes(s));
if (missing.length + skipped.length > 0) {
  lines.push("## Not built in this run", "");
  for (const s of skipped) lines.push(`- ${s}: not asked for (\`./dev dist\` with no argument builds it).`);
  for (const [suffix, why] of missing) lines.push(`- ${suffix}: ${why}`);
  lines.push("");
}
process.stdout.write(lines.join("\n"));
