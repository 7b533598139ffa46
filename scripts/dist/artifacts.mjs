// Writes the artifact list of target/dist (ARTIFACTS.md): every platform of
// platforms.tsv with whether this run built it, where it is built otherwise
// (not-built.tsv: CI only, and why) and what the checks do with it here; then
// every file with its size and sha256. Only what is in target/dist is listed
// as built: a platform the main packages name but that was built elsewhere
// (ZOT_DIST_EXTRA_PLATFORMS, the release workflow's Windows job) says so.
//
// usage: node artifacts.mjs <dist dir> <platform>...

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [out, ...built] = process.argv.slice(2);
const extra = (process.env.ZOT_DIST_EXTRA_PLATFORMS ?? "").split(/\s+/).filter((s) => s !== "");
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

// What `./dev test dist` (scripts/test.d/70-dist.sh, scripts/dist/suite.sh)
// can do with a platform's binaries on this Linux x86-64 machine.
function checkedHere({ os, cpu, libc }) {
  const statics = "architecture, C library floor, libraries, entry points, auditwheel";
  if (os === "linux" && cpu === "x64" && libc === "glibc") {
    return `${statics}; installed from npm, a fresh venv and cargo install, and run`;
  }
  if (os === "linux" && cpu === "x64") {
    return `${statics}; the host (static) runs the conformance suite natively; addon and module not loaded (no musl Node or CPython here)`;
  }
  if (os === "linux") {
    return `${statics}; under qemu-user the host runs the conformance suite; addon and module not loaded`;
  }
  if (os === "darwin") return "Mach-O architecture, minimum macOS, linked libraries, entry points; never run (no macOS here)";
  return "nothing (not built here)";
}

const [header, ...rows] = tsv("platforms.tsv");
const platforms = rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
const elsewhere = new Map(tsv("not-built.tsv"));

const lines = ["# Release artifacts", ""];
lines.push("## Platforms", "", "| platform | Rust target | in this run | checked here by `./dev test dist` |");
lines.push("| --- | --- | --- | --- |");
for (const p of platforms) {
  let status;
  if (built.includes(p.suffix)) status = "built";
  else if (p.built === "here") status = `not built: not asked for (\`./dev dist ${p.suffix}\`)`;
  else status = `not built: CI only${extra.includes(p.suffix) ? " (listed in the main packages' optionalDependencies)" : ""}`;
  lines.push(`| ${p.suffix} | \`${p.rust}\` | ${status} | ${checkedHere(p)} |`);
}
lines.push("");
const ci = platforms.filter((p) => p.built !== "here");
for (const p of ci) lines.push(`- ${p.suffix}: ${elsewhere.get(p.suffix) ?? "built by CI only (no reason in not-built.tsv)"}`);
if (ci.length > 0) lines.push("");

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
process.stdout.write(lines.join("\n"));
