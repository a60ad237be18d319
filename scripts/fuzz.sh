#!/usr/bin/env bash
# Builds LocationKit's libFuzzer harnesses (the nested package in Fuzz/) with
# -sanitize=fuzzer,address and runs them.
# Usage: scripts/fuzz.sh [TARGET|all] [SECONDS]
#   TARGET   one of the targets below, or all (default); SECONDS per target (default 600).
#   FUZZ_BUILD=0 runs the harnesses as last built (several runs at once need one build only).
# Each target's corpus: its committed seeds (Fuzz/TARGET/seeds), the shared real-world files of
# its format ($LOCATIONKIT_DATA, read in place), and what `geo` writes of the sample city: a PBF,
# a road-graph file, PMTiles and MBTiles archives (zooms 10-12) and a PNG snapshot. What a run finds stays in .build/fuzz/corpus/TARGET for the next run on this machine; it
# is not committed, because libFuzzer builds it from pieces of the shared files, which must never
# be copied into the repository. Crashes, leaks and hangs are written to
# Fuzz/TARGET/artifacts/ (ignored by git) and make the script exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
DATA="${LOCATIONKIT_DATA:-$(cd .. && pwd)/shared/data}"
ALL=(NMEAFuzz GPXFuzz OSMXMLFuzz PBFFuzz GeoJSONFuzz RoadGraphFileFuzz MVTFuzz PMTilesFuzz MBTilesFuzz PNGFuzz TrackingFuzz)
want="${1:-all}"
seconds="${2:-600}"
if [ "$want" = all ]; then targets=("${ALL[@]}"); else targets=("$want"); fi
for t in "${targets[@]}"; do
  [ -d "Fuzz/$t" ] || { echo "fuzz.sh: no target '$t' (targets: ${ALL[*]})" >&2; exit 64; }
done

OUT="$ROOT/.build/fuzz"
mkdir -p "$OUT/generated"
# The sample city through the real writers, as seeds: a PBF, a road-graph file, small tile
# archives and a snapshot, each made once per machine by `geo` (GEO=path: that binary, else
# the debug build).
G="$OUT/generated"
generated() { # FILE: prints the path of the sample city's FILE, writing it first if missing
  if [ ! -s "$G/$1" ]; then
    if [ -z "${GEO:-}" ]; then swift build --product geo >/dev/null; GEO="$(swift build --show-bin-path)/geo"; fi
    case "$1" in
      city.osm.pbf) "$GEO" sample-city -o "$G/city.osm.pbf" ;;
      city.graph) "$GEO" extract "$(generated city.osm.pbf)" -o "$G/city.graph" --profile car ;;
      city.pmtiles|city.mbtiles) "$GEO" tiles build "$(generated city.osm.pbf)" -o "$G/$1" --minzoom 10 --maxzoom 12 ;;
      city.png) "$GEO" snapshot --data "$(generated city.osm.pbf)" --size 64x48 -o "$G/city.png" ;;
    esac >/dev/null 2>&1
  fi
  echo "$G/$1"
}

# Shared files of a target's format, one per line (read in place as a second corpus).
shared_inputs() {
  case "$1" in
    NMEAFuzz) ls "$DATA"/nmea/*.log ;;
    GPXFuzz) ls "$DATA"/gpx/*/*.gpx ;;
    OSMXMLFuzz) ls "$DATA"/osm/*.osm ;;
    PBFFuzz) generated city.osm.pbf ;;
    GeoJSONFuzz) ls "$DATA"/tiles/mvt-fixtures/fixtures/*/tile.json ;;
    RoadGraphFileFuzz) generated city.graph ;;
    MVTFuzz) ls "$DATA"/tiles/mvt-fixtures/fixtures/*/tile.mvt "$DATA"/tiles/real-world/*/*.mvt* ;;
    PMTilesFuzz) generated city.pmtiles ;;
    MBTilesFuzz) ls "$DATA"/tiles/*.mbtiles; generated city.mbtiles ;;
    PNGFuzz) generated city.png ;;
  esac
}
# Longest input a target's mutations grow to, bytes: a few records of its format.
max_len() {
  case "$1" in
    PBFFuzz|RoadGraphFileFuzz|MVTFuzz|PMTilesFuzz|MBTilesFuzz|PNGFuzz) echo 65536 ;;
    *) echo 16384 ;;
  esac
}

status=0
summary=""
for t in "${targets[@]}"; do
  echo "== $t: building" >&2
  # lld: SwiftPM defines `main` through a symbol alias to the target's entry point, and gold then
  # also pulls libFuzzer's own `main` and fails; lld resolves the alias first.
  if [ "${FUZZ_BUILD:-1}" = 1 ]; then
    GEO_INTERNAL_CHECKS=1 swift build -c release --package-path Fuzz --scratch-path "$OUT/build" \
      -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld --product "$t" >&2
  fi
  bin="$OUT/build/release/$t"
  # SwiftPM links build/release to the platform's folder when a build ends; mid-build, that folder.
  [ -x "$bin" ] || bin="$(echo "$OUT"/build/*-*/release/"$t")"
  corpus="$OUT/corpus/$t"
  shared="$OUT/shared/$t"
  rm -rf "$shared"; mkdir -p "$corpus" "$shared" "Fuzz/$t/seeds" "Fuzz/$t/artifacts"
  while read -r f; do d="${f%/*}"; [ -n "$f" ] && ln -sf "$f" "$shared/${d##*/}-${f##*/}"; done < <(shared_inputs "$t")
  log="$OUT/$t.log"
  echo "== $t: fuzzing for $seconds s (log: $log)" >&2
  set +e
  # libFuzzer reports a crash itself (stack, the input as an artifact); Swift's backtracer would
  # only delay it. A hang is an input running 60 s: at `nice -n 19` on a busy machine a fuzzer can
  # wait 10 s for the CPU, and an input that ran 1 ms was once reported as a 12 s "timeout".
  SWIFT_BACKTRACE=enable=no "$bin" "$corpus" "Fuzz/$t/seeds" "$shared" -max_len="$(max_len "$t")" -rss_limit_mb=2048 -timeout=60 \
    -max_total_time="$seconds" -artifact_prefix="Fuzz/$t/artifacts/" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  if [ "$rc" -eq 0 ]; then result="ok"; else result="FAILED (exit $rc; see $log and Fuzz/$t/artifacts/)"; status=1; fi
  summary+="$(printf '%-18s %6s s  %12s executions  %s' "$t" "$seconds" "${execs:-?}" "$result")"$'\n'
done
printf '%s' "$summary"
exit "$status"
