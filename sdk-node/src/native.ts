// Finds and loads the native addon (the Rust engine) built for this platform.
//
// napi-rs convention: a local build has `zot-ext.<platform>-<arch>[-abi].node`
// next to `package.json` (`npm run build`); a release moves each binary to
// its own package `zot-ext-<platform>-<arch>[-abi]`, listed in
// `optionalDependencies` with its os / cpu / libc, so that npm installs only
// the one matching the machine (`./dev dist` builds them). Both places are
// tried, in that order. `NAPI_RS_NATIVE_LIBRARY_PATH` (napi-rs's variable)
// overrides the search with an explicit path.
//
// The binary is found when this module is first imported, so that a
// platform with no binary fails `import "zot-ext"` at once, saying which
// platform and what to do; it is loaded on first use.
//
// The binding's typings (`binding.d.ts`) are written by `napi build` from
// the Rust sources, so they cannot drift from the compiled module.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import type * as Binding from "./binding";

/** The native module. */
export type NativeBinding = typeof Binding;
/** One running engine. */
export type NativeEngine = Binding.NativeEngine;
/** The in-process host of a memory engine. */
export type NativeTestHost = Binding.NativeTestHost;
/** Engine settings tests may shorten. */
export type EngineOptions = Binding.EngineOptions;

function isMusl(): boolean {
  try {
    return readFileSync("/usr/bin/ldd", "utf8").includes("musl");
  } catch {
    // No ldd: ask Node which C library it runs on.
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    return report?.header?.glibcVersionRuntime === undefined;
  }
}

/** The napi-rs platform suffix of this process, e.g. `linux-x64-gnu`. */
export function platformSuffix(): string {
  const { platform, arch } = process;
  switch (platform) {
    case "linux":
      return `linux-${arch}-${isMusl() ? "musl" : "gnu"}`;
    case "win32":
      return `win32-${arch}-msvc`;
    default:
      return `${platform}-${arch}`;
  }
}

/** The prebuilt platforms of this package: its optional platform packages. */
function prebuiltPlatforms(): string[] {
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as {
      optionalDependencies?: Record<string, string>;
    };
    return Object.keys(pkg.optionalDependencies ?? {})
      .filter((name) => name.startsWith("zot-ext-"))
      .map((name) => name.slice("zot-ext-".length));
  } catch {
    return [];
  }
}

/** Where this platform's addon is: a file path or a package name. */
function locate(): string {
  const suffix = platformSuffix();
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH;
  if (override !== undefined && override !== "") {
    if (!existsSync(override)) {
      throw new Error(`zot-ext: NAPI_RS_NATIVE_LIBRARY_PATH names ${override}, which does not exist`);
    }
    return override;
  }
  const local = join(__dirname, "..", `zot-ext.${suffix}.node`);
  if (existsSync(local)) {
    return local;
  }
  const pkg = `zot-ext-${suffix}`;
  try {
    require.resolve(pkg);
    return pkg;
  } catch {
    // Not installed: say why below.
  }
  const prebuilt = prebuiltPlatforms();
  if (prebuilt.includes(suffix)) {
    throw new Error(
      `zot-ext: the native engine for ${suffix} (the package ${pkg}) is not installed. ` +
        "It is an optional dependency of zot-ext: reinstall without --omit=optional / --no-optional " +
        "(and, if the lock file was made on another platform, without it).",
    );
  }
  throw new Error(
    `zot-ext: no native engine for this platform (${suffix}): ` +
      (prebuilt.length > 0
        ? `zot-ext ships binaries for ${prebuilt.join(", ")}. `
        : "this copy of zot-ext has no binary. ") +
      "Build the addon from source (Rust 1.88+: clone the repository, `npm run build` in sdk-node/) " +
      "and point NAPI_RS_NATIVE_LIBRARY_PATH at it, or write the extension with the Rust or Python SDK.",
  );
}

const location = locate();
let loaded: NativeBinding | undefined;

/** The native module, loaded once. */
export function native(): NativeBinding {
  if (loaded === undefined) {
    try {
      loaded = require(location) as NativeBinding;
    } catch (e) {
      const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
      throw new Error(`zot-ext: cannot load the native engine ${location} (${platformSuffix()}): ${why}`);
    }
  }
  return loaded;
}
