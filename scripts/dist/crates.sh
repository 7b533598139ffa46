# The crates, in publish order, packaged together by `cargo package`: each is
# verified (built from its packaged sources against the others, cargo's local
# overlay of the ones not yet published). Sourced by scripts/dist.sh and
# scripts/test.d/58-package.sh after scripts/lib.sh; scripts/publish.sh
# publishes them in this order.
#
# usage: package_crates OUT_DIR   (copies the .crate files there)
CRATES=(zot-protocol zot-ext-engine zot-ext zot-host zot-mcp)

package_crates() {
  local out="$1" version c args=()
  version="$(workspace_version)"
  # Cargo unpacks the packaged crates it verifies against (its local overlay)
  # into CARGO_HOME/registry/src/-<hash>/ and never again once there: a crate
  # changed since an earlier run at the same version would be verified
  # against its old sources (it failed so: a zot-protocol of before schemars 1).
  rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/zot-*-"$version"
  # Nor does it rebuild a registry crate it built before at the same version:
  # the verification of zot-ext reused a zot-protocol compiled from the
  # sources of before a merge ("no EventPayload in the root"). Our crates'
  # compiled units go too (the dependencies' stay).
  local units="$ROOT/target/dist-build/crates/debug"
  rm -rf "$units"/.fingerprint/zot-* "$units"/build/zot-* "$units"/deps/libzot_* "$units"/deps/zot_*
  for c in "${CRATES[@]}"; do args+=(-p "$c"); done
  CARGO_TARGET_DIR="$ROOT/target/dist-build/crates" nice -n 10 cargo package --quiet --locked "${args[@]}"
  mkdir -p "$out"
  for c in "${CRATES[@]}"; do
    cp "$ROOT/target/dist-build/crates/package/$c-$version.crate" "$out/"
  done
}
