#!/usr/bin/env bash
# The in-process figures of the GPX, NMEA, OSM and routing benchmarks for an earlier revision
# and for the working tree, interleaved (A B A B …) so machine load hits both alike, and the
# same `geo extract` / `geo route` end to end under hyperfine. For refactors that must not cost
# speed (issue 11: within 5 %). Take the best of each side.
# Usage: Benchmarks/before-after.sh REV [ROUNDS]   (needs osmium-tool and hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
REV="$1"; ROUNDS="${2:-3}"
DATA="${LOCATIONKIT_DATA:-../shared/data}"
WORK="${TMPDIR:-/tmp}/locationkit-before-after"; mkdir -p "$WORK"
BEFORE="$WORK/tree-$(git rev-parse --short "$REV")"
[ -d "$BEFORE" ] || git worktree add --detach "$BEFORE" "$REV" >/dev/null
build() { (cd "$1" && swift build -c release --package-path Benchmarks >/dev/null && swift build -c release --product geo >/dev/null) }
build "$BEFORE"; build .
A=$(cd "$BEFORE" && swift build -c release --package-path Benchmarks --show-bin-path); B=$(swift build -c release --package-path Benchmarks --show-bin-path)
GA="$BEFORE/.build/release/geo"; GB="$(swift build -c release --show-bin-path)/geo"

[ -f "$WORK/points.gpx" ] || "$A/GPXBench" generate "$WORK/points.gpx" 1000000 >/dev/null
if [ ! -f "$WORK/nmea.log" ]; then : > "$WORK/nmea.log"; while [ "$(stat -c %s "$WORK/nmea.log")" -lt 104857600 ]; do cat "$DATA"/nmea/*.log >> "$WORK/nmea.log"; done; fi
[ -f "$WORK/monaco.osm" ] || osmium cat "$DATA/osm/monaco.osm.pbf" -o "$WORK/monaco.osm" -O
# ~100 MB of PBF: monaco's data blocks repeated (osmium merges them into one file).
[ -f "$WORK/big.osm.pbf" ] || { for _ in $(seq 57); do echo "$DATA/osm/monaco.osm.pbf"; done | xargs osmium cat --no-progress -O -o "$WORK/big.osm.pbf" -f pbf; }
[ -f "$WORK/pairs.txt" ] || { "$A/RoutingBench" extract "$DATA/osm/monaco.osm.pbf" car "$WORK/pairs.graph" >/dev/null; "$A/RoutingBench" pairs "$WORK/pairs.graph" 1000 7 > "$WORK/pairs.txt"; }

for round in $(seq "$ROUNDS"); do
  for side in A B; do
    bin=$A; [ $side = B ] && bin=$B
    echo "== round $round $side"
    "$bin/GPXBench" stream "$WORK/points.gpx"
    "$bin/NMEABench" "$WORK/nmea.log" 3 | tail -2
    "$bin/OSMBench" "$WORK/big.osm.pbf" 3
    "$bin/OSMBench" "$WORK/monaco.osm" 3
    "$bin/RoutingBench" extract "$DATA/osm/monaco.osm.pbf" car "$WORK/$side.graph" | head -1
    "$bin/RoutingBench" route "$WORK/$side.graph" "$WORK/pairs.txt" | grep latency
  done
done
echo "== geo end to end (A: $REV, B: working tree)"
hyperfine -N -w 3 -r 20 "$GA extract $DATA/osm/monaco.osm.pbf -o $WORK/ga.graph --profile car" \
                        "$GB extract $DATA/osm/monaco.osm.pbf -o $WORK/gb.graph --profile car"
hyperfine -N -w 3 -r 30 "$GA route --graph $WORK/ga.graph --from 43.73,7.42 --to 43.74,7.43" \
                        "$GB route --graph $WORK/gb.graph --from 43.73,7.42 --to 43.74,7.43"
