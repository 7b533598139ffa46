// ESM and CommonJS consumers get the same objects; only the public entry
// points are exported.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";

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

test("the npm version is the workspace's (one version for every package)", () => {
  const cargo = readFileSync(join(repo, "Cargo.toml"), "utf8");
  const workspace = cargo.slice(cargo.indexOf("[workspace.package]"));
  const version = /^version = "([^"]+)"/m.exec(workspace)?.[1];
  assert.equal(require("zot-ext/package.json").version, version);
});
