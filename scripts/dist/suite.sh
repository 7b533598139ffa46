# The release checks for the platforms given as arguments (sourced by
# scripts/test.d/60-release.sh with linux-x64-gnu, by 70-dist.sh with every
# platform). Builds them with ./dev dist first: what ships is what is tested.
#
# The install checks (scripts/dist/install-checks.sh) need linux-x64-gnu
# among the platforms.
#
# usage: source scripts/dist/suite.sh PLATFORM...
source "$ROOT/scripts/dist/checks.sh"
ensure_apt unzip unzip # wheels are zip files (dist.sh and the checks read them)
platforms=("$@")
version="$(workspace_version)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

source "$ROOT/scripts/dist/static-checks.sh"

# --- build ---------------------------------------------------------------------
bash "$ROOT/scripts/dist.sh" "${platforms[@]}"
ensure_dist_tools # auditwheel
check_artifact_list

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

# --- this machine's platform: install and run ----------------------------------------
# The packages installed as a user would and run (npm, a fresh venv, cargo
# install). Only with linux-x64-gnu among the platforms: the others' binaries
# cannot load here (70-dist.sh runs what can run of them).
if [[ " ${platforms[*]} " == *" linux-x64-gnu "* ]]; then
  source "$ROOT/scripts/dist/install-checks.sh"
else
  note "skipped the install checks (npm, venv, cargo install): they need linux-x64-gnu, not built in this run"
fi
