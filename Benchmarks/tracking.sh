#!/usr/bin/env bash
# The tracking server under `geo loadgen` on loopback (issue 35): N devices at 1 Hz sending
# OsmAnd requests over keep-alive connections to `geo serve-tracking` on a fresh SQLite file,
# for D seconds; prints the generator's report (acknowledged fixes/s, errors, p50/p99/p99.9
# request → ack latency), the server's commit metrics and peak RSS, then `geo loadgen verify`.
# Usage: Benchmarks/tracking.sh [DEVICES] [SECONDS] [GEO]   (GEO: a built geo; default release)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-2000}"; D="${2:-60}"
GEO="${3:-}"
if [ -z "$GEO" ]; then swift build -c release --product geo >/dev/null; GEO="$(swift build -c release --show-bin-path)/geo"; fi
WORK="$(mktemp -d)"; trap 'kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT
ulimit -n 65536 2>/dev/null || true
"$GEO" serve-tracking --db "$WORK/t.sqlite" --port 0 --host 127.0.0.1 --auto-register > "$WORK/url" 2> "$WORK/server.err" &
SERVER=$!
for _ in $(seq 300); do [ -s "$WORK/url" ] && break; sleep 0.1; done
URL="$(head -1 "$WORK/url")"
"$GEO" loadgen --url "$URL" --devices "$N" --duration "$D" --ack-log "$WORK/acks.csv"
curl -s "${URL}metrics" | grep -E '^tracking_(commits|commit_failures|acknowledged_fixes|duplicate_fixes)_total|^tracking_batch_rows_(sum|count)'
echo "server peak RSS: $(grep VmHWM /proc/$SERVER/status | awk '{print $2, $3}')"
kill -TERM "$SERVER"; wait "$SERVER" || true
"$GEO" loadgen verify --db "$WORK/t.sqlite" --ack-log "$WORK/acks.csv"
