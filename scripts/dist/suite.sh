# The release checks for the platforms given as arguments (sourced by
# scripts/test.d/60-release.sh with linux-x64-gnu, by 70-dist.sh with every
# platform). Builds them with ./dev dist first: what ships is what is tested.
#
# usage: source scripts/dist/suite.sh PLATFORM...
source "$ROOT/scripts/dist/checks.sh"
ensure_apt unzip unzip # wheels are zip files (dist.sh and the checks read them)
platforms=("$@")
version="$(workspace_version)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- licences at the root ----------------------------------------------------
grep -q '^Permission is hereby granted, free of charge' "$ROOT/LICENSE-MIT" || die "LICENSE-MIT is not the MIT licence"
grep -q 'Apache License' "$ROOT/LICENSE-APACHE" && grep -q 'Version 2.0, January 2004' "$ROOT/LICENSE-APACHE" ||
  die "LICENSE-APACHE is not the Apache License 2.0"
ok "LICENSE-MIT and LICENSE-APACHE at the root"

# --- npm pack refuses packages that could not run ------------------------------
# sdk-node as a clean checkout has it: no dist/, no addon.
mkdir -p "$tmp/clean/scripts"
cp "$ROOT/sdk-node/package.json" "$ROOT/sdk-node/README.md" "$tmp/clean/"
cp "$ROOT/sdk-node/scripts/prepack.mjs" "$tmp/clean/scripts/"
if (cd "$tmp/clean" && npm pack --pack-destination "$tmp" > "$tmp/pack.log" 2>&1); then
  die "npm pack of zot-ext without dist/ or an addon succeeded"
fi
grep -q 'npm pack refused' "$tmp/pack.log" && grep -q 'dist/ is not built' "$tmp/pack.log" &&
  grep -q 'no native engine' "$tmp/pack.log" || { cat "$tmp/pack.log" >&2; die "npm pack of zot-ext failed without saying why"; }
[ -z "$(compgen -G "$tmp/*.tgz")" ] || die "npm pack refused but left a tarball"
# The host's launcher package as committed: no platform packages.
cp -R "$ROOT/npm/zot-host" "$tmp/host-template"
if (cd "$tmp/host-template" && npm pack --pack-destination "$tmp" > "$tmp/pack.log" 2>&1); then
  die "npm pack of npm/zot-host without platform packages succeeded"
fi
grep -q 'no platform packages' "$tmp/pack.log" || { cat "$tmp/pack.log" >&2; die "npm pack of npm/zot-host failed without saying why"; }
ok "npm pack refuses zot-ext without a build and zot-host without platform packages, saying why"

# --- build ---------------------------------------------------------------------
bash "$ROOT/scripts/dist.sh" "${platforms[@]}"
ensure_dist_tools # auditwheel

# --- licences inside every artifact ---------------------------------------------
n=0
for a in "$DIST"/npm/*.tgz "$DIST"/pypi/* "$DIST"/crates/*.crate; do
  check_licences "$a"
  n=$((n + 1))
done
ok "LICENSE-MIT and LICENSE-APACHE inside all $n artifacts (npm, wheels, sdists, crates), equal to the root's"

# --- every platform's binaries ---------------------------------------------------
for p in "${platforms[@]}"; do
  check_platform_artifacts "$p"
done

# --- the npm SDK in an empty project on this machine (linux-x64-gnu) -------------
# The project lists every platform package as an optional dependency, as
# zot-ext does: npm must install the one for this machine and skip the rest.
bare_path "$tmp"
proj="$tmp/npm-sdk"
mkdir -p "$proj"
node -e '
  const [dir, version, ...tgz] = process.argv.slice(1);
  const deps = {}, optional = {};
  for (const t of tgz) {
    const name = require("path").basename(t).slice(0, -`-${version}.tgz`.length);
    if (name === "zot-ext" || name === "zot-host") deps[name] = `file:${t}`;
    else optional[name] = `file:${t}`;
  }
  require("fs").writeFileSync(`${dir}/package.json`, JSON.stringify(
    { name: "zot-dist-check", private: true, dependencies: deps, optionalDependencies: optional }, null, 2));
' "$proj" "$version" "$DIST"/npm/*.tgz
(cd "$proj" && PATH="$BARE" npm install --no-audit --no-fund --loglevel=error --prefer-offline > "$tmp/npm.log" 2>&1) ||
  { cat "$tmp/npm.log" >&2; die "npm install of the packed packages failed"; }
installed="$(cd "$proj/node_modules" && ls -d zot-ext-* zot-host-* | tr '\n' ' ')"
[ "$installed" = "zot-ext-linux-x64-gnu zot-host-linux-x64-gnu " ] ||
  die "npm installed the platform packages $installed, expected only the linux-x64-gnu ones"
skipped=$(($(compgen -G "$DIST/npm/zot-*-*-*.tgz" | wc -l) - 2))
ok "npm install picks zot-ext-linux-x64-gnu and zot-host-linux-x64-gnu (and skips the $skipped packages of the other platforms)"
write_node_extension "$proj/ext"
(cd "$proj" && PATH="$BARE" check_host_runs zot-host "$proj/ext" "npm: npx zot-host (Node extension on the packed zot-ext)" npx --no-install)

# A platform with no binary: `require("zot-ext")` fails at once, naming it
# and what to do (the same for the host's launcher).
printf 'Object.defineProperty(process, "arch", { value: "riscv64" });\n' > "$tmp/riscv.cjs"
for how in 'require("zot-ext")' 'import("zot-ext").catch((e) => { console.error(e.message); process.exit(1); })'; do
  if (cd "$proj" && PATH="$BARE" node -r "$tmp/riscv.cjs" -e "$how" > "$tmp/riscv.log" 2>&1); then
    die "zot-ext loaded on a platform without a binary ($how)"
  fi
  grep -q 'no native engine for this platform (linux-riscv64-gnu)' "$tmp/riscv.log" && grep -q 'ships binaries for' "$tmp/riscv.log" ||
    { cat "$tmp/riscv.log" >&2; die "$how on linux-riscv64-gnu failed without naming the platform"; }
done
if (cd "$proj" && PATH="$BARE" node -r "$tmp/riscv.cjs" node_modules/.bin/zot-host --version > "$tmp/riscv.log" 2>&1); then
  die "the zot-host launcher ran on a platform without a binary"
fi
grep -q 'no prebuilt binary for this platform (linux-riscv64-gnu)' "$tmp/riscv.log" && grep -q 'cargo install zot-host' "$tmp/riscv.log" ||
  { cat "$tmp/riscv.log" >&2; die "the zot-host launcher failed without naming the platform"; }
ok "on linux-riscv64 (no binary) require/import of zot-ext and npx zot-host fail at once, naming the platform and what to do"
# The platform's package left out (--omit=optional): say which one.
rm -rf "$proj/node_modules/zot-ext-linux-x64-gnu"
if (cd "$proj" && PATH="$BARE" node -e 'require("zot-ext")' > "$tmp/omit.log" 2>&1); then
  die "zot-ext loaded without its platform package"
fi
grep -q 'the package zot-ext-linux-x64-gnu) is not installed' "$tmp/omit.log" ||
  { cat "$tmp/omit.log" >&2; die "zot-ext without its platform package failed without naming it"; }
ok "without zot-ext-linux-x64-gnu, require(\"zot-ext\") names the missing package"

# --- the host wheel in a fresh venv, with the SDK wheel ----------------------------
venv="$tmp/venv"
python3 -m venv "$venv"
env PATH=/usr/bin:/bin "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index \
  "$(artifact pypi "zot_host-$version-py3-none-*manylinux_2_17_x86_64*.whl")" \
  "$(artifact pypi "zot_ext-$version-cp39-abi3-*manylinux_2_17_x86_64*.whl")"
mkdir -p "$tmp/pip-project"
write_python_extension "$tmp/pip-project/ext" "$venv/bin/python"
(cd "$tmp/pip-project" && PATH=/usr/bin:/bin check_host_runs "$venv/bin/zot-host" "$tmp/pip-project/ext" "PyPI: zot-host wheel in a fresh venv (Python extension on the zot-ext wheel)")

# --- the packaged crate, cargo install'ed from its unpacked sources ----------------
# zot-protocol is not on crates.io yet: the packaged one stands in for it.
# A debug build in the target directory where `cargo package` verified the
# crates (./dev dist): the dependencies are built already, and what this
# checks is that the packaged sources build and run, not the optimiser.
crates="$tmp/crates"
mkdir -p "$crates"
for c in zot-protocol zot-host; do tar xzf "$(artifact crates "$c-$version.crate")" -C "$crates"; done
nice -n 10 cargo install --quiet --locked --debug --path "$crates/zot-host-$version" --root "$tmp/cargo-root" \
  --target-dir "$ROOT/target/dist-build/crates" \
  --config "patch.crates-io.zot-protocol.path=\"$crates/zot-protocol-$version\""
mkdir -p "$tmp/cargo-project"
(cd "$tmp/cargo-project" && check_host_runs "$tmp/cargo-root/bin/zot-host" "$proj/ext" "crates: cargo install --path of the packaged zot-host (Node extension on the packed zot-ext)" env PATH="$BARE")
