#!/usr/bin/env bash
# Fuzzing with cargo-fuzz (libFuzzer). Everything stays inside the
# repository except the pinned nightly toolchain (rustup's own directory):
# cargo-fuzz in target/tools, the targets of fuzz/ built into
# target/fuzz/build (never the workspace's target dirs: they are built with
# sanitizer flags), corpora in target/fuzz/corpus/<target> (seeded from
# tests/vectors and kept between runs), crashers in
# target/fuzz/artifacts/<target>. See fuzz/README.md.
#
#   scripts/fuzz.sh smoke [SECONDS]              every target for SECONDS (default 30) each
#                                                (FUZZ_TARGETS="codec engine": only those)
#   scripts/fuzz.sh run TARGET SECONDS [FLAGS]   one target; FLAGS go to libFuzzer
#
# Exit status: 0 no crash, 1 a crash, timeout or out-of-memory (or a failed
# build), 3 skipped because the nightly or cargo-fuzz cannot be installed
# here (no network).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

# Pinned: a dated nightly and an exact cargo-fuzz (and libfuzzer-sys in
# fuzz/Cargo.toml), so that a run means the same on every machine.
FUZZ_TOOLCHAIN=nightly-2026-05-20
CARGO_FUZZ_VERSION=0.13.2
TARGETS=(codec engine host_intake manifest)
read -r -a SMOKE_TARGETS <<<"${FUZZ_TARGETS:-${TARGETS[*]}}"
FUZZ_DIR="$CARGO_TARGET_DIR/fuzz"
TOOLS="$CARGO_TARGET_DIR/tools"

# Longest input per target: 16 KiB holds the longest vector line (12 KiB)
# and sessions of dozens of frames; longer ones only make runs slower.
max_len() {
  case "$1" in
    manifest) echo 4096 ;;
    *) echo 16384 ;;
  esac
}

skip() {
  note "fuzz: SKIPPED: $*"
  exit 3
}

# The nightly and cargo-fuzz, installed if missing; skips (exit 3) when
# they cannot be.
ensure_tools() {
  command -v rustup >/dev/null || skip "rustup is not installed, so $FUZZ_TOOLCHAIN cannot be"
  if ! rustup run "$FUZZ_TOOLCHAIN" rustc --version >/dev/null 2>&1; then
    note "installing $FUZZ_TOOLCHAIN (minimal profile)"
    if ! rustup toolchain install "$FUZZ_TOOLCHAIN" --profile minimal >"$FUZZ_DIR/rustup.log" 2>&1; then
      skip "cannot install $FUZZ_TOOLCHAIN (no network? rustup's output: $FUZZ_DIR/rustup.log); fuzzing needs a nightly toolchain"
    fi
  fi
  if [ "$("$TOOLS/bin/cargo-fuzz" --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
    note "installing cargo-fuzz $CARGO_FUZZ_VERSION into $TOOLS"
    if ! cargo install --locked --quiet --version "$CARGO_FUZZ_VERSION" --root "$TOOLS" \
      --target-dir "$FUZZ_DIR/install" cargo-fuzz >"$FUZZ_DIR/install.log" 2>&1; then
      skip "cannot install cargo-fuzz $CARGO_FUZZ_VERSION (no network? cargo's output: $FUZZ_DIR/install.log)"
    fi
    rm -rf "$FUZZ_DIR/install" # 100+ MB of build products, not needed again
  fi
  export PATH="$TOOLS/bin:$PATH"
}

# Everything a run needs: tools, the targets, the seeded corpora and the
# dictionary. The seeds come from zot-fuzz-seeds, a workspace binary built
# with the others (same features, no second tokio build).
prepare() {
  mkdir -p "$FUZZ_DIR"
  ensure_tools
  cargo "+$FUZZ_TOOLCHAIN" fetch --locked --quiet --manifest-path fuzz/Cargo.toml
  # An optimised build with debug assertions and overflow checks (-a), and
  # no sanitizer: the code under test is safe Rust, where AddressSanitizer
  # finds nothing the borrow checker has not, at 2-3x the time per run; and
  # its quarantine of freed memory (up to 256 MB) would hide the RSS growth
  # a run is meant to show.
  # Only the targets asked for: host_intake and manifest need the host
  # (fuzz/Cargo.toml's `host` feature, most of the build time), codec and
  # engine do not.
  local t
  for t in "$@"; do
    local features=()
    case "$t" in host_intake | manifest) features=(--features host) ;; esac
    # Coverage instrumentation for this repository's crates only
    # (scripts/fuzz-rustc.sh; fuzz/README.md, "Instrumentation").
    RUSTC_WRAPPER="$ROOT/scripts/fuzz-rustc.sh" \
      cargo "+$FUZZ_TOOLCHAIN" fuzz build -a --sanitizer none --target-dir "$FUZZ_DIR/build" "${features[@]}" "$t"
  done
  build_rust_bins
  "$CARGO_TARGET_DIR/debug/zot-fuzz-seeds" "$FUZZ_DIR/corpus" >/dev/null
}

# run_target TARGET SECONDS [FLAGS...]: fuzzes one target; prints a
# one-line summary (and libFuzzer's report on failure).
run_target() {
  local target="$1" seconds="$2"
  shift 2
  local bin="$FUZZ_DIR/build/x86_64-unknown-linux-gnu/release/$target"
  local log="$FUZZ_DIR/$target.log"
  mkdir -p "$FUZZ_DIR/artifacts/$target" "$FUZZ_DIR/corpus/$target"
  local status=0
  # One process (-jobs unset): the machine's cores are shared. nice, so
  # that a long run does not slow down everything else. The target's stderr
  # is closed (-close_fd_mask=2): the SDK logs every failed handler there,
  # which over millions of runs would fill the disk; libFuzzer still reports
  # a crash with its stack, and replaying the input under cargo test shows
  # the panic message.
  nice -n 19 "$bin" "$FUZZ_DIR/corpus/$target" \
    -dict="$FUZZ_DIR/corpus/protocol.dict" \
    -max_len="$(max_len "$target")" \
    -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=1024 \
    -artifact_prefix="$FUZZ_DIR/artifacts/$target/" \
    -close_fd_mask=2 -print_final_stats=1 "$@" >"$log" 2>&1 || status=$?
  summarize "$target" "$log" "$status"
  return "$status"
}

# One line from libFuzzer's log: executions, rate, corpus, RSS at the first
# and the last status line, and the verdict.
summarize() {
  local target="$1" log="$2" status="$3"
  local execs rate rss first_rss last_rss corpus
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
  rss="$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")"
  first_rss="$(grep -o 'rss: [0-9]*Mb' "$log" | head -1 | tr -dc 0-9)"
  last_rss="$(grep -o 'rss: [0-9]*Mb' "$log" | tail -1 | tr -dc 0-9)"
  corpus="$(find "$FUZZ_DIR/corpus/$target" -type f | wc -l)"
  local line="$target: ${execs:-?} executions (${rate:-?}/s), corpus $corpus inputs, RSS ${first_rss:-?} -> ${last_rss:-?} MB (peak ${rss:-?} MB)"
  if [ "$status" -eq 0 ]; then
    ok "$line, no crash, no timeout"
  else
    grep -E '^(==[0-9]+==ERROR|thread .* panicked|.*panicked at|SUMMARY|ALARM|Test unit written|artifact_prefix|MS: )' "$log" | head -20 >&2 || true
    fail "$line: FAILED (exit $status, log $log). Keep the input the log names: copy it to fuzz/regressions/$target/ and \`cargo test -p zot-fuzz-harness\` replays it"
  fi
}

cmd="${1:-}"
case "$cmd" in
  smoke)
    seconds="${2:-${FUZZ_SECONDS:-30}}"
    for t in "${SMOKE_TARGETS[@]}"; do
      [[ " ${TARGETS[*]} " == *" $t "* ]] || { echo "unknown target $t in FUZZ_TARGETS (${TARGETS[*]})" >&2; exit 2; }
    done
    prepare "${SMOKE_TARGETS[@]}"
    failed=0
    for t in "${SMOKE_TARGETS[@]}"; do
      run_target "$t" "$seconds" || failed=1
    done
    du -sh "$FUZZ_DIR" | sed 's/^/disk: /'
    exit "$failed"
    ;;
  run)
    [ "$#" -ge 3 ] || { echo "usage: $0 run TARGET SECONDS [libFuzzer flags or an input to replay]" >&2; exit 2; }
    target="$2" seconds="$3"
    shift 3
    [[ " ${TARGETS[*]} " == *" $target "* ]] || { echo "unknown target $target (${TARGETS[*]})" >&2; exit 2; }
    prepare "$target"
    run_target "$target" "$seconds" "$@"
    ;;
  *)
    echo "usage: $0 smoke [SECONDS] | run TARGET SECONDS [libFuzzer flags]" >&2
    exit 2
    ;;
esac
