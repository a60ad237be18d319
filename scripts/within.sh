#!/usr/bin/env bash
# Runs a command with a time limit, and when it is still running at the limit shows where it
# hangs before ending it: for the command and each process under it, its state (a "T" is a
# stopped process) and every thread's stack (gdb, when installed), then SIGTERM and, 10 s later,
# SIGKILL. Exits with the command's status, or 124 at the limit (as timeout(1) does).
# Usage: scripts/within.sh SECONDS COMMAND [ARGUMENT...]
# The command keeps this shell's process group and output; its standard input is /dev/null (it
# runs as a background job of a non-interactive shell).
set -uo pipefail
limit="$1"; shift
"$@" &
pid=$!

# The process and its descendants, parents first.
tree() {
  echo "$1"
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do tree "$child"; done
}

show() {
  local p
  echo "within.sh: '$*' still runs after $limit s; its processes:" >&2
  for p in $(tree "$pid"); do
    [ -r "/proc/$p/status" ] || continue
    echo "--- process $p: $(tr '\0' ' ' < "/proc/$p/cmdline" | cut -c1-200)" >&2
    grep -E '^(State|Threads|VmRSS):' "/proc/$p/status" | sed 's/^/    /' >&2
    if command -v gdb >/dev/null 2>&1; then
      timeout 120 gdb -p "$p" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 25' 2>/dev/null \
        | grep -E '^(Thread|#)' | sed 's/^/    /' >&2
    else
      for t in /proc/"$p"/task/*; do
        echo "    thread ${t##*/}: $(cut -d' ' -f3 "$t/stat") in $(cat "$t/wchan" 2>/dev/null)" >&2
      done
    fi
  done
}

waited=0
while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$limit" ]; do
  sleep 1
  waited=$((waited + 1))
done
if kill -0 "$pid" 2>/dev/null; then
  show "$@"
  processes="$(tree "$pid")"
  kill -TERM $processes 2>/dev/null
  sleep 10
  kill -KILL $processes 2>/dev/null
  wait "$pid" 2>/dev/null
  exit 124
fi
wait "$pid"
