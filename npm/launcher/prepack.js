// `npm pack` / `npm publish` guard: this package is only the launcher; it
// works once ./dev dist has listed the platform packages with the binaries
// (optionalDependencies) and copied the licences in. Packed from here as
// committed, it would install a launcher that can run nothing. This one file
// guards every launcher package (npm/zot-host, mcp/npm), from here and as the
// staged package's scripts/prepack.js (scripts/dist/npm-packages.mjs copies
// it in).

const { existsSync } = require("node:fs");
const { join } = require("node:path");

// npm runs a package's scripts in the package's folder.
const dir = process.cwd();
const pkg = require(join(dir, "package.json"));
const problems = [];
if (Object.keys(pkg.optionalDependencies || {}).length === 0) {
  problems.push(
    "no platform packages in optionalDependencies: build the release packages with `./dev dist` (target/dist/npm)",
  );
}
for (const licence of ["LICENSE-MIT", "LICENSE-APACHE"]) {
  if (!existsSync(join(dir, licence))) problems.push(`${licence} is missing`);
}
if (problems.length > 0) {
  console.error(`${pkg.name}: npm pack refused:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  process.exit(1);
}
