# The release checks that need no release build, sourced by
# scripts/dist/suite.sh (60-release, 70-dist) and scripts/test.d/58-package.sh
# (every ./dev test) after scripts/dist/checks.sh, with a scratch $tmp: the
# licence files at the root, the npm pack guards, and the release workflow.

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
# The launcher packages as committed: no platform packages (their pack
# guard is npm/launcher's, reached by a relative path: copied alike).
mkdir -p "$tmp/launchers/mcp"
cp -R "$ROOT/npm" "$tmp/launchers/npm"
cp -R "$ROOT/mcp/npm" "$tmp/launchers/mcp/npm"
for pkg in npm/zot-host mcp/npm; do
  if (cd "$tmp/launchers/$pkg" && npm pack --pack-destination "$tmp" > "$tmp/pack.log" 2>&1); then
    die "npm pack of $pkg without platform packages succeeded"
  fi
  grep -q 'no platform packages' "$tmp/pack.log" || { cat "$tmp/pack.log" >&2; die "npm pack of $pkg failed without saying why"; }
done
ok "npm pack refuses zot-ext without a build and zot-host and zot-mcp without platform packages, saying why"

# --- the release workflow uploads what it checked --------------------------------
# One step builds and checks (./dev test dist runs ./dev dist): a separate
# `./dev dist` step before it had its target/dist, the one naming the CI-only
# platforms in the main packages, replaced by the test's own build without
# them. The platforms it names are platforms.tsv's CI-only ones.
wf="$ROOT/.github/workflows/release.yml"
ci_only="$(awk -F'\t' '!/^#/ && NF && $7 == "ci" { printf "%s%s", sep, $1; sep = " " }' "$ROOT/scripts/dist/platforms.tsv")"
grep -qE "^ +- run: ZOT_DIST_EXTRA_PLATFORMS=(\"$ci_only\"|$ci_only) \./dev test dist\$" "$wf" ||
  die "$wf: the dist job does not run \`ZOT_DIST_EXTRA_PLATFORMS=\"$ci_only\" ./dev test dist\` (the CI-only platforms of platforms.tsv)"
! grep -qE '^ +- run: .*\./dev dist' "$wf" ||
  die "$wf: runs ./dev dist beside ./dev test dist, whose build replaces target/dist (without ZOT_DIST_EXTRA_PLATFORMS)"
ok "the release workflow builds with the CI-only platforms ($ci_only) listed and uploads what ./dev test dist checked"
