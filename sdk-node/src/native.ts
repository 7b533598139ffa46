// Loads the native addon (the Rust engine) built for this platform.
//
// napi-rs convention: the package ships `zot-ext.<platform>-<arch>[-abi].node`
// next to `package.json` (what `npm pack` of a local build contains), and a
// published release moves each binary to its own package
// `zot-ext-<platform>-<arch>[-abi]`, listed in `optionalDependencies` so that
// npm installs only the one matching the machine. Both places are tried, in
// that order. `NAPI_RS_NATIVE_LIBRARY_PATH` (napi-rs's variable) overrides
// the search with an explicit path.
//
// The binding's typings (`binding.d.ts`) are written by `napi build` from
// the Rust sources, so they cannot drift from the compiled module.

import { readFileSync } from "node:fs";
import { join } from "node:path";

import type * as Binding from "./binding";

/** The native module. */
export type NativeBinding = typeof Binding;
/** One running engine. */
export type NativeEngine = Binding.NativeEngine;
export type FeedOutput = Binding.FeedOutput;
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

let loaded: NativeBinding | undefined;

/** The native module, loaded once. */
export function native(): NativeBinding {
  if (loaded !== undefined) {
    return loaded;
  }
  const suffix = platformSuffix();
  const override = process.env["NAPI_RS_NATIVE_LIBRARY_PATH"];
  const candidates =
    override !== undefined && override !== ""
      ? [override]
      : [join(__dirname, "..", `zot-ext.${suffix}.node`), `zot-ext-${suffix}`];
  const errors: string[] = [];
  for (const candidate of candidates) {
    try {
      loaded = require(candidate) as NativeBinding;
      return loaded;
    } catch (e) {
      errors.push(`  ${candidate}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
    }
  }
  throw new Error(
    `zot-ext: no native engine for ${suffix}. Tried:\n${errors.join("\n")}\n` +
      "Install the package on a supported platform, or build it from source (see the package README).",
  );
}
