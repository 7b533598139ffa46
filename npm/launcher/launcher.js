#!/usr/bin/env node
// The launcher of a zot binary on npm (zot-host, zot-mcp): this one file is
// every such package's bin/<name>.js (scripts/dist/npm-packages.mjs copies
// it in). It runs the binary of this platform, shipped in the package
// <name>-<platform> (one of the package's optionalDependencies; npm installs
// only the one whose os / cpu / libc match the machine), the way esbuild,
// biome and other native CLIs on npm ship theirs. <NAME>_BINARY
// (ZOT_HOST_BINARY, ZOT_MCP_BINARY) overrides the search with an explicit
// path.

const { spawn } = require("node:child_process");
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

const { name, optionalDependencies = {} } = require("../package.json");

function isMusl() {
  try {
    return readFileSync("/usr/bin/ldd", "utf8").includes("musl");
  } catch {
    const report = process.report?.getReport();
    return !report?.header?.glibcVersionRuntime;
  }
}

// The napi-rs platform suffix: linux-x64-gnu, darwin-arm64, win32-x64-msvc...
function platformSuffix() {
  const { platform, arch } = process;
  if (platform === "linux") return `linux-${arch}-${isMusl() ? "musl" : "gnu"}`;
  if (platform === "win32") return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

function binaryPath() {
  const override = process.env[`${name.toUpperCase().replace(/-/g, "_")}_BINARY`];
  if (override) return override;
  const suffix = platformSuffix();
  const pkg = `${name}-${suffix}`;
  const exe = process.platform === "win32" ? `${name}.exe` : name;
  const other = `cargo install ${name}, or pipx install ${name} where a wheel or Rust is available`;
  if (!(pkg in optionalDependencies)) {
    const supported = Object.keys(optionalDependencies).map((p) => p.slice(name.length + 1));
    fail(
      `${name}: no prebuilt binary for this platform (${suffix}); ` +
        `the npm package has ${supported.join(", ")}.\n` +
        `Build it from source instead: ${other}.`,
    );
  }
  try {
    return join(require.resolve(`${pkg}/package.json`), "..", "bin", exe);
  } catch {
    fail(
      `${name}: the package ${pkg} (the binary for ${suffix}) is not installed.\n` +
        `It is an optional dependency of ${name}: reinstall without --omit=optional / --no-optional ` +
        "(and, with a lock file made on another platform, delete it first).",
    );
  }
  return undefined;
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
// The binaries shut their extensions or MCP servers down on SIGINT /
// SIGTERM / SIGHUP: pass them on (a terminal's Ctrl-C reaches the whole
// group anyway, a `kill` of this process would not).
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (e) => fail(`${name}: cannot run ${child.spawnfile}: ${e.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so that callers see what the binary saw.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code === null ? 1 : code);
  }
});
