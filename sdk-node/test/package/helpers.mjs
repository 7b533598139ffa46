// Shared by the package suites. They import `zot-ext` as a user would: in
// the repository that resolves to the workspace package (sdk-node/), in
// scripts/test.d/30-node.sh to the packed tarball installed into a fresh
// temporary project (ZOT_EXT_REPO and ZOT_CONFORMANCE_DIR then say where the
// repository files are).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The repository root. */
export const repo = process.env.ZOT_EXT_REPO ?? resolve(here, "..", "..", "..");

/** The Node conformance extension's directory. */
export const conformanceDir = process.env.ZOT_CONFORMANCE_DIR ?? join(repo, "tests", "conformance", "node");

/** The Node examples. */
export const examplesDir = process.env.ZOT_EXAMPLES_DIR ?? join(repo, "examples", "node");

/** Test fixtures (extensions run as child processes). */
export const fixtures = join(here, "fixtures");

/** Fails the test file on any unhandled rejection or uncaught exception. */
export function noUnhandled() {
  const seen = [];
  process.on("unhandledRejection", (e) => seen.push(e));
  process.on("uncaughtException", (e) => seen.push(e));
  return () => assert.deepEqual(seen, [], "unhandled rejections or exceptions");
}

/** Resolves after `ms` milliseconds. */
export const delay = (ms) => new Promise((r) => setTimeout(r, ms));

/** The first text of a result's content. */
export const text = (r) => r.content?.find((b) => b.type === "text")?.text;

/** The conformance registration lines listed in the Rust README, byte for byte. */
export function readmeLines() {
  const readme = readFileSync(join(repo, "tests", "conformance", "rust", "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## What it registers, byte for byte"));
  const open = section.indexOf("```\n") + 4;
  return section.slice(open, section.indexOf("\n```", open)).split("\n");
}
