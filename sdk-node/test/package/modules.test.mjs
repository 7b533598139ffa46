// ESM and CommonJS consumers get the same objects; only the public entry
// points are exported.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import * as esm from "zot-ext";
import * as esmTesting from "zot-ext/testing";

import { repo } from "./helpers.mjs";

const require = createRequire(import.meta.url);

test("import and require share one instance", () => {
  const cjs = require("zot-ext");
  assert.equal(esm.Extension, cjs.Extension);
  assert.equal(esm.ToolOutput, cjs.ToolOutput);
  assert.equal(esmTesting.TestHost, require("zot-ext/testing").TestHost);
  assert.deepEqual(
    Object.keys(esm)
      .filter((k) => k !== "default")
      .sort(),
    Object.keys(cjs).sort(),
  );
  assert.deepEqual(esm.LIFECYCLE_EVENTS.length, 14);
});

test("internals are not exported", () => {
  assert.throws(() => require("zot-ext/dist/extension.js"), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
  assert.equal(require("zot-ext/package.json").name, "zot-ext");
});

test("each entry point is one file of JavaScript (Node reads and compiles each module on its own)", () => {
  // A fresh process: this one has loaded the package already. The answer
  // goes to stderr: protect-stdout moves what is written to stdout there.
  const script = `
    require("zot-ext");
    require("zot-ext/testing");
    require("zot-ext/protect-stdout");
    const path = require("node:path");
    const root = path.dirname(require.resolve("zot-ext/package.json"));
    const ours = Object.keys(require.cache).filter((f) => f.startsWith(root) && f.endsWith(".js"));
    process.stderr.write("loaded " + JSON.stringify(ours.map((f) => path.relative(root, f)).sort()) + "\\n");`;
  const run = spawnSync(process.execPath, ["-e", script], {
    cwd: dirname(fileURLToPath(import.meta.url)),
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  const line = run.stderr.split("\n").find((l) => l.startsWith("loaded "));
  assert.ok(line !== undefined, run.stderr);
  assert.deepEqual(JSON.parse(line.slice("loaded ".length)), [
    "dist/index.js",
    "dist/protect-stdout.js",
    "dist/testing.js",
  ]);
});

test("the npm version is the workspace's (one version for every package)", () => {
  const cargo = readFileSync(join(repo, "Cargo.toml"), "utf8");
  const workspace = cargo.slice(cargo.indexOf("[workspace.package]"));
  const version = /^version = "([^"]+)"/m.exec(workspace)?.[1];
  assert.equal(require("zot-ext/package.json").version, version);
});
