// docs/api-parity.md against the package's declarations: every TypeScript
// cell names an exported class or interface of `zot-ext` with a member (or a
// constructor) that has an overload of exactly the listed parameters, in
// that order, `?` marking the optional ones. Read with the TypeScript
// compiler from the package's own `.d.ts`, as a user's editor reads them.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, test } from "node:test";

import ts from "typescript";

import { repo } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const declarations = require.resolve("zot-ext").replace(/\.js$/, ".d.ts");

/** [call, TypeScript cell] of every row of the table. */
function rows() {
  const text = readFileSync(join(repo, "docs", "api-parity.md"), "utf8");
  const body = text.split("## The table")[1];
  const out = [];
  for (const line of body.split("\n")) {
    if (!line.startsWith("| ") || line.startsWith("| call | Rust |") || line.startsWith("| ---")) {
      continue;
    }
    const cells = line
      .trim()
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());
    assert.equal(cells.length, 5, `${line}: expected 5 cells`);
    out.push([cells[0], cells[2]]);
  }
  return out;
}

const program = ts.createProgram([declarations], {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.Node16,
  moduleResolution: ts.ModuleResolutionKind.Node16,
  types: [],
});
const checker = program.getTypeChecker();
const exported = new Map(
  checker
    .getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(declarations)))
    .map((s) => [s.getName(), s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s]),
);

const CELL = /^`(?<isNew>new )?(?<owner>[A-Za-z_]\w*)(?:\.(?<member>\w+))?(?:\((?<params>.*)\))?`$/;

/** `a, b?` -> [["a", false], ["b", true]] */
function parseParams(params) {
  return params
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map((p) => [p.replace(/\?$/, ""), p.endsWith("?")]);
}

function shapeOf(signature) {
  return signature.getParameters().map((p) => {
    const decl = p.valueDeclaration;
    const optional = decl !== undefined && ts.isParameter(decl) && checker.isOptionalParameter(decl);
    return [p.getName(), optional];
  });
}

function check(cell) {
  const m = CELL.exec(cell);
  assert.ok(m, `${cell}: not \`Owner.member(params)\``);
  const { isNew, owner, member, params } = m.groups;
  const symbol = exported.get(owner);
  assert.ok(symbol, `${cell}: zot-ext exports no ${owner}`);
  const decl = symbol.valueDeclaration ?? symbol.declarations?.[0];
  let signatures;
  if (isNew !== undefined) {
    signatures = checker.getTypeOfSymbolAtLocation(symbol, decl).getConstructSignatures();
  } else {
    const property = checker.getDeclaredTypeOfSymbol(symbol).getProperty(member);
    assert.ok(property, `${cell}: ${owner} has no ${member}`);
    if (params === undefined) {
      return;
    }
    signatures = checker
      .getTypeOfSymbolAtLocation(property, property.valueDeclaration ?? property.declarations[0])
      .getCallSignatures();
  }
  assert.notEqual(params, undefined, `${cell}: a call needs parentheses`);
  const wanted = JSON.stringify(parseParams(params));
  const found = signatures.map((s) => JSON.stringify(shapeOf(s)));
  assert.ok(found.includes(wanted), `${cell}: no overload ${wanted}; the overloads are ${found.join(" ")}`);
}

describe("docs/api-parity.md", () => {
  const table = rows();

  test("every TypeScript cell is a call of the package's declarations", () => {
    assert.ok(table.length >= 30);
    for (const [, cell] of table) {
      if (cell !== "—") {
        check(cell);
      }
    }
  });

  test("the checks can fail", () => {
    for (const wrong of [
      "`Extension.notify(level?, message)`", // the order
      "`Context.notify(message, level)`", // the optional marker
      "`Extension.noSuchCall()`", // the name
      "`new Extension(name)`", // the arity
    ]) {
      assert.throws(() => check(wrong), assert.AssertionError, wrong);
    }
  });
});
