// `npm pack` / `npm publish` guard (the package's `prepack` script): refuse
// to pack a package that could not run. Without it a clean checkout packs
// package.json and the README alone, and npm reports success.
//
// A package runs when it has the TypeScript build (dist/) and a native
// engine: either a zot-ext.<platform>.node beside package.json (a local
// build, `npm run build`) or platform packages in optionalDependencies (the
// release layout that `./dev dist` stages). Inside the repository the
// licence files are copied from its root (they are kept there once).

import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const problems = [];

if (!existsSync(join(pkgDir, "dist", "index.js"))) {
  problems.push("dist/ is not built (the TypeScript facade): run `npm run build:ts`");
}
const binaries = readdirSync(pkgDir).filter((f) => /^zot-ext\..+\.node$/.test(f));
const platformPackages = Object.keys(pkg.optionalDependencies ?? {}).filter((p) => p.startsWith("zot-ext-"));
if (binaries.length === 0 && platformPackages.length === 0) {
  problems.push(
    "no native engine: no zot-ext.<platform>.node beside package.json and no platform packages " +
      "in optionalDependencies: run `npm run build` (this machine's addon) or `./dev dist` (every platform, in target/dist/npm)",
  );
}
const repoRoot = join(pkgDir, "..");
for (const licence of ["LICENSE-MIT", "LICENSE-APACHE"]) {
  const inRepo = join(repoRoot, licence);
  if (existsSync(join(repoRoot, "Cargo.toml")) && existsSync(inRepo)) {
    copyFileSync(inRepo, join(pkgDir, licence));
  }
  if (!existsSync(join(pkgDir, licence))) {
    problems.push(`${licence} is missing`);
  }
}

if (problems.length > 0) {
  console.error(`${pkg.name}: npm pack refused:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  process.exit(1);
}
