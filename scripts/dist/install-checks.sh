# The release artifacts installed as a user would on this machine
# (linux-x64-gnu) and run: the npm packages in an empty project with no Rust,
# the wheels in a fresh venv, the packaged crate cargo install'ed. Sourced by
# scripts/dist/suite.sh after the build, with its $tmp and $version.
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
