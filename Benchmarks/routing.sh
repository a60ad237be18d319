#!/usr/bin/env bash
# Road graph build time against osrm-extract, and route query latency in process against
# osrm-routed's HTTP latency for the same pairs (issue 7's numbers); next to them the same work
# end to end as a user runs it: `geo extract`, `geo route --batch` over the pairs, and one
# `geo route` process per query (start-up and graph load included).
# Usage: Benchmarks/routing.sh [PAIRS] [SEED]. Needs osrm-bindings (see scripts/osrm/env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS="${1:-1000}"
SEED="${2:-7}"
DATA="${LOCATIONKIT_DATA:-../shared/data}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
. scripts/osrm/env.sh

swift build -c release --package-path Benchmarks --product RoutingBench >/dev/null
swift build -c release --product geo >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/RoutingBench"
GEO="$(swift build -c release --show-bin-path)/geo"
now() { python3 -c 'import time; print(time.perf_counter())'; }

for NAME in monaco andorra; do
  PBF="$DATA/osm/$NAME.osm.pbf"
  [ -f "$PBF" ] || { echo "skip $NAME: $PBF not found"; continue; }
  echo "== $NAME"
  cp "$PBF" "$WORK/$NAME.osm.pbf"
  best=""
  for _ in 1 2 3; do
    t0=$(now); "$BIN/osrm-extract" -p "$PROFILES/car.lua" "$WORK/$NAME.osm.pbf" >"$WORK/extract.log" 2>&1; t1=$(now)
    best=$(python3 -c "print(min(float('${best:-1e9}'), $t1 - $t0))")
  done
  "$BIN/osrm-contract" "$WORK/$NAME.osrm" >"$WORK/contract.log" 2>&1
  OURS=$("$BENCH" extract "$PBF" car "$WORK/$NAME.graph")
  echo "$OURS"
  python3 -c "o=float('$OURS'.split()[1]); print(f'osrm-extract: {$best:.3f} s (best of 3, process wall time incl. startup); ratio ours/osrm-extract {o / $best:.2f}')"
  "$BENCH" pairs "$WORK/$NAME.graph" "$PAIRS" "$SEED" >"$WORK/pairs.txt"
  "$BENCH" route "$WORK/$NAME.graph" "$WORK/pairs.txt"
  # End to end: geo extract (best of 3, like osrm-extract above), geo route --batch over all
  # pairs, and the median of one geo route process per pair for the first 21 pairs.
  gbest=""
  for _ in 1 2 3; do
    t0=$(now); "$GEO" extract "$PBF" -o "$WORK/$NAME.geo.graph" --profile car >/dev/null 2>&1; t1=$(now)
    gbest=$(python3 -c "print(min(float('${gbest:-1e9}'), $t1 - $t0))")
  done
  python3 -c "print(f'geo extract (end to end): {$gbest:.3f} s (best of 3, process wall time); ratio geo extract/osrm-extract {$gbest / $best:.2f}')"
  t0=$(now); "$GEO" route --graph "$WORK/$NAME.geo.graph" --batch < "$WORK/pairs.txt" >/dev/null 2>&1; t1=$(now)
  python3 -c "n = sum(1 for l in open('$WORK/pairs.txt') if l.strip()); print(f'geo route --batch (end to end): {n} pairs in {$t1 - $t0:.3f} s = {($t1 - $t0) / n * 1000:.3f} ms per route, graph load included')"
  head -21 "$WORK/pairs.txt" | while read -r a b c d; do
    t0=$(now); "$GEO" route --graph "$WORK/$NAME.geo.graph" --from "$a,$b" --to "$c,$d" >/dev/null 2>&1; t1=$(now)
    python3 -c "print(($t1 - $t0) * 1000)"
  done | sort -g | awk '{ v[NR] = $1 } END { printf "geo route, one process per query (end to end): median %.1f ms over %d queries (start-up + graph load + route + JSON)\n", v[int((NR + 1) / 2)], NR }'
  python3 scripts/osrm/osrm_server.py "$WORK/$NAME.osrm" -- python3 - "$WORK/pairs.txt" "{url}" <<'PY'
import json, sys, time, urllib.request
pairs = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
base = sys.argv[2]
lat = []
for (a, b, c, d) in pairs:
    url = f"{base}/route/v1/driving/{b:.7f},{a:.7f};{d:.7f},{c:.7f}?overview=false&steps=false"
    t0 = time.perf_counter()
    with urllib.request.urlopen(url) as r:
        json.load(r)
    lat.append((time.perf_counter() - t0) * 1000)
lat.sort()
p = lambda q: lat[min(len(lat) - 1, round(q / 100 * (len(lat) - 1)))]
print(f"osrm-routed (CH) HTTP latency over {len(lat)} pairs: p50 {p(50):.3f} ms  p99 {p(99):.3f} ms  (includes HTTP + JSON; ours is in process)")
PY
done
