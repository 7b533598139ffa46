// Stages the npm packages of a release (scripts/dist.sh), the napi-rs way:
// a main package with the JavaScript and one package per platform with its
// binary, listed in the main package's optionalDependencies and carrying
// os / cpu / libc, so that npm installs only the one the machine can run.
//
//   node npm-packages.mjs platform <zot-ext|zot-host|zot-mcp> <suffix> <binary> <stage>
//       zot-ext-<suffix>/  zot-ext.<suffix>.node, package.json, README, licences
//       zot-host-<suffix>/ bin/zot-host, package.json, README, licences (zot-mcp alike)
//   node npm-packages.mjs main <zot-ext|zot-host|zot-mcp> <stage> <suffix>...
//       zot-ext/  sdk-node's package (dist/, README) with optionalDependencies
//       zot-host/ npm/zot-host with optionalDependencies, and npm/launcher's
//                 launcher (bin/zot-host.js) and pack guard
//       zot-mcp/  mcp/npm alike
//
// Every package gets the workspace version (scripts/dist.sh checks that the
// committed package.json files agree with it) and LICENSE-MIT/-APACHE.

import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const licences = ["LICENSE-MIT", "LICENSE-APACHE"];

/** The rows of platforms.tsv, by suffix. */
function platforms() {
  const rows = readFileSync(join(root, "scripts", "dist", "platforms.tsv"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"))
    .map((l) => l.split("\t"));
  const [header, ...body] = rows;
  return new Map(body.map((r) => [r[0], Object.fromEntries(header.map((h, i) => [h, r[i]]))]));
}

function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

function writePackage(dir, pkg) {
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  for (const l of licences) copyFileSync(join(root, l), join(dir, l));
}

function fresh(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

function sdkPackage() {
  return readJson(join(root, "sdk-node", "package.json"));
}

/** The launcher package of a binary: npm/zot-host, mcp/npm. */
const launchers = { "zot-host": join(root, "npm", "zot-host"), "zot-mcp": join(root, "mcp", "npm") };

function launcherDir(kind) {
  const dir = launchers[kind];
  if (dir === undefined) throw new Error(`unknown package ${kind} (zot-ext, ${Object.keys(launchers).join(", ")})`);
  return dir;
}

function launcherPackage(kind) {
  return readJson(join(launcherDir(kind), "package.json"));
}

function platformPackage(kind, suffix, binary, stage) {
  const p = platforms().get(suffix);
  if (p === undefined) throw new Error(`unknown platform ${suffix} (scripts/dist/platforms.tsv)`);
  const main = kind === "zot-ext" ? sdkPackage() : launcherPackage(kind);
  const name = `${kind}-${suffix}`;
  const dir = fresh(join(stage, name));
  let files;
  let entry = {};
  if (kind === "zot-ext") {
    const file = `zot-ext.${suffix}.node`;
    copyFileSync(binary, join(dir, file));
    files = [file];
    entry = { main: file };
  } else {
    const exe = p.os === "win32" ? `${kind}.exe` : kind;
    mkdirSync(join(dir, "bin"));
    copyFileSync(binary, join(dir, "bin", exe));
    chmodSync(join(dir, "bin", exe), 0o755);
    files = [`bin/${exe}`];
  }
  const pkg = {
    name,
    version: main.version,
    description: `The ${suffix} binary of ${kind} (installed by the package ${kind}; not meant to be used directly).`,
    license: main.license,
    repository: main.repository,
    ...entry,
    files: [...files, "README.md", ...licences],
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc === "-" ? {} : { libc: [p.libc] }),
    ...(main.engines ? { engines: main.engines } : {}),
  };
  writePackage(dir, pkg);
  writeFileSync(
    join(dir, "README.md"),
    `# ${name}\n\nThe ${suffix} binary of [\`${kind}\`](https://www.npmjs.com/package/${kind}). ` +
      `Install \`${kind}\`: npm picks this package on ${suffix} machines by itself.\n`,
  );
}

function mainPackage(kind, stage, suffixes) {
  const dir = fresh(join(stage, kind));
  let pkg;
  if (kind === "zot-ext") {
    pkg = sdkPackage();
    const src = join(root, "sdk-node");
    cpSync(join(src, "dist"), join(dir, "dist"), { recursive: true });
    copyFileSync(join(src, "README.md"), join(dir, "README.md"));
    // The prepack guard comes along: `npm pack` of the staged package runs it.
    mkdirSync(join(dir, "scripts"));
    copyFileSync(join(src, "scripts", "prepack.mjs"), join(dir, "scripts", "prepack.mjs"));
    pkg.scripts = { prepack: pkg.scripts.prepack };
    delete pkg.devDependencies;
    // The binaries are in the platform packages, not in this one.
    pkg.files = pkg.files.filter((f) => !f.endsWith(".node"));
  } else {
    pkg = launcherPackage(kind);
    cpSync(launcherDir(kind), dir, { recursive: true });
    // One launcher and one pack guard serve every binary (npm/launcher).
    const shared = join(root, "npm", "launcher");
    mkdirSync(join(dir, "bin"), { recursive: true });
    copyFileSync(join(shared, "launcher.js"), join(dir, "bin", `${kind}.js`));
    chmodSync(join(dir, "bin", `${kind}.js`), 0o755);
    mkdirSync(join(dir, "scripts"), { recursive: true });
    copyFileSync(join(shared, "prepack.js"), join(dir, "scripts", "prepack.js"));
    pkg.scripts = { ...pkg.scripts, prepack: "node scripts/prepack.js" };
    // mcp/npm has no README of its own: the crate's (mcp/README.md) is it.
    if (!existsSync(join(dir, "README.md"))) copyFileSync(join(launcherDir(kind), "..", "README.md"), join(dir, "README.md"));
  }
  pkg.optionalDependencies = Object.fromEntries(suffixes.map((s) => [`${kind}-${s}`, pkg.version]));
  writePackage(dir, pkg);
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "platform" && args.length === 4) {
  platformPackage(...args);
} else if (cmd === "main" && args.length >= 3) {
  const [kind, stage, ...suffixes] = args;
  mainPackage(kind, stage, suffixes);
} else {
  console.error("usage: npm-packages.mjs platform <zot-ext|zot-host|zot-mcp> <suffix> <binary> <stage>");
  console.error("       npm-packages.mjs main <zot-ext|zot-host|zot-mcp> <stage> <suffix>...");
  process.exit(2);
}
