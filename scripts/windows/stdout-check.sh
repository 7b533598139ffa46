#!/usr/bin/env bash
# Runs an extension (the command line given) on a hello_ack and one command,
# its stdout to a file, and fails unless every line it wrote there is a
# frame, the command was answered, and what the handler printed reached
# stderr. Its stdout is a file because libuv cannot open a pipe as a stream
# under Wine. Used by `./dev test windows` and the release workflow.
set -euo pipefail
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
out="$dir/out.jsonl"
: >"$out"
{
  printf '%s\n' '{"type":"hello_ack","protocol_version":1}' \
    '{"type":"command_invoked","id":"1","name":"hi","args":"there"}'
  # Input stays open until the command is answered (at most 60 s): its end
  # shuts the extension down, cancelling a handler still queued. A file
  # gives no event to wait on, so this looks every tenth of a second.
  for _ in $(seq 600); do
    if grep -q '"type":"command_response"' "$out"; then
      break
    fi
    sleep 0.1
  done
} | "$@" >"$out" 2>"$dir/err.log"
if grep -qv '^{' "$out" || ! grep -q '"type":"command_response".*"hi there"' "$out" ||
  ! grep -q 'in a handler' "$dir/err.log"; then
  echo "printed output reached the wire, or the command went unanswered:" >&2
  echo "--- stdout" >&2
  cat "$out" >&2
  echo "--- stderr" >&2
  cat "$dir/err.log" >&2
  exit 1
fi
