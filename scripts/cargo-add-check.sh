#!/usr/bin/env bash
# The Rust quick start as a new user meets it: `cargo package` zot-protocol,
# zot-ext-engine and zot-ext, then, in a fresh crate outside the repository, run the
# README's `cargo add zot-ext ...` line and build the README's Rust block as
# src/main.rs (for README.md and for sdk-rust/README.md, the page crates.io
# shows), and run it for one handshake. `cargo add` resolves from a registry
# that holds the packaged crates and their dependencies (a directory source:
# `cargo vendor` of the versions in Cargo.lock, plus the packaged .crate files), so
# what is built is what would be published, and nothing is downloaded once
# the cargo cache has the crates. The dependencies build once into
# target/cargo-add-check/ and are reused by later runs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

crates=(zot-protocol zot-ext-engine zot-ext)
version="$(cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "zot-ext"))')"
work="$CARGO_TARGET_DIR/cargo-add-check"
# --allow-dirty: the working tree is what is checked. --no-verify: verifying
# builds each crate against crates.io, where zot-protocol and zot-ext-engine
# are not published yet; the build below is the verification.
CARGO_TARGET_DIR="$work/package" cargo package --quiet --locked --no-verify --allow-dirty \
  "${crates[@]/#/--package=}"

# The registry keeps one path from run to run: cargo rebuilds a registry
# crate whose sources moved. The fresh crates go outside the repository.
registry="$work/registry"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp" "$registry"' EXIT
case "$tmp/" in "$ROOT"/*) fail "$tmp is inside the repository"; exit 1 ;; esac

# The registry: every dependency at its Cargo.lock version, vendored for a
# crate that depends on the unpacked zot-ext, then the packaged crates.
rm -rf "$registry"
for c in "${crates[@]}"; do
  tar -xzf "$work/package/package/$c-$version.crate" -C "$tmp"
done
mkdir -p "$tmp/deps/src"
touch "$tmp/deps/src/lib.rs"
cat > "$tmp/deps/Cargo.toml" <<TOML
[package]
name = "deps"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
zot-ext = { path = "$tmp/zot-ext-$version" }
schemars = "1"
serde = "1"

[patch.crates-io]
zot-protocol = { path = "$tmp/zot-protocol-$version" }
zot-ext-engine = { path = "$tmp/zot-ext-engine-$version" }
TOML
cp Cargo.lock "$tmp/deps/"
(cd "$tmp/deps" && cargo vendor --quiet --versioned-dirs "$registry" >/dev/null)
for c in "${crates[@]}"; do
  mv "$tmp/$c-$version" "$registry/"
  sum="$(sha256sum "$work/package/package/$c-$version.crate" | cut -d' ' -f1)"
  printf '{"files":{},"package":"%s"}' "$sum" >"$registry/$c-$version/.cargo-checksum.json"
done

# The first `cargo add zot-ext ...` of a README (inline code or a sh block).
add_line() {
  grep -o 'cargo add zot-ext[^`]*' "$1" | head -1 | sed 's/[[:space:]]*$//'
}
# The first ```rust block of a README.
rust_block() {
  awk '/^```rust/ { inside = 1; next } /^```/ { if (inside) exit } inside' "$1"
}

export CARGO_TARGET_DIR="$work/target" CARGO_PROFILE_DEV_DEBUG=false
# A registry crate counts as immutable (its version is its fingerprint), but
# these change between runs: the first crate rebuilds them.
clean=("${crates[@]/#/--package=}")
for readme in README.md sdk-rust/README.md; do
  dir="$(dirname "$readme")"
  name="readme-${dir/#./root}"
  add="$(add_line "$readme")"
  if [ -z "$add" ] || [ -z "$(rust_block "$readme")" ]; then
    fail "$readme: no \`cargo add zot-ext ...\` line or no \`\`\`rust block"
    exit 1
  fi
  (cd "$tmp" && cargo new --quiet --bin --vcs none "$name")
  mkdir "$tmp/$name/.cargo"
  cat >"$tmp/$name/.cargo/config.toml" <<TOML
[source.crates-io]
replace-with = "packaged"

[source.packaged]
directory = "$registry"
TOML
  rust_block "$readme" >"$tmp/$name/src/main.rs"
  # shellcheck disable=SC2086 # the README's words, split as a shell would
  (cd "$tmp/$name" && $add --quiet --offline)
  if [ "${#clean[@]}" -gt 0 ]; then
    (cd "$tmp/$name" && cargo clean --quiet --offline "${clean[@]}")
    clean=()
  fi
  if ! (cd "$tmp/$name" && cargo build --quiet --offline); then
    fail "$readme: its Rust quick start does not build after \`$add\`"
    exit 1
  fi
  # One session: the tool registers with the schema derived from its
  # argument type, and the extension answers shutdown and exits 0.
  if ! out="$(printf '%s\n' '{"type":"hello_ack","protocol_version":1}' '{"type":"shutdown"}' |
    "$CARGO_TARGET_DIR/debug/$name")"; then
    fail "$readme: its Rust quick start exits with an error"
    exit 1
  fi
  if ! grep -q '"type":"register_tool".*"schema":{.*"properties"' <<<"$out"; then
    printf '%s\n' "$out" >&2
    fail "$readme: no register_tool frame with a derived schema"
    exit 1
  fi
  ok "$readme: \`$add\`, then its Rust quick start builds and runs in a fresh crate"
done
