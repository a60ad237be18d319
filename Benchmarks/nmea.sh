#!/usr/bin/env bash
# NMEA decoding benchmark: LocationKit's NMEADecoder vs Debian's gpsdecode (gpsd-clients)
# on the same >= 100 MB file built by concatenating the shared captures: in process
# (NMEABench) and end to end as a user runs it (`geo nmea decode FILE > out.jsonl` against
# `gpsdecode < FILE > out.json`, interleaved, median of the runs).
# Usage: Benchmarks/nmea.sh [RUNS]     (LOCATIONKIT_DATA overrides ../shared/data; RUNS default 3)
set -euo pipefail
cd "$(dirname "$0")"
DATA="${LOCATIONKIT_DATA:-$(cd ../.. && pwd)/shared/data}"
RUNS="${1:-3}"
INPUT=/tmp/locationkit-nmea-bench.log
TARGET=$((100 * 1024 * 1024))

if [ ! -f "$INPUT" ] || [ "$(stat -c %s "$INPUT")" -lt "$TARGET" ]; then
  : > "$INPUT"
  while [ "$(stat -c %s "$INPUT")" -lt "$TARGET" ]; do cat "$DATA"/nmea/*.log >> "$INPUT"; done
fi
echo "input: $INPUT ($(stat -c %s "$INPUT") bytes)"
command -v gpsdecode >/dev/null || { echo "gpsdecode not found (apt-get install gpsd-clients)"; exit 1; }

swift build -c release --package-path . --product NMEABench >/dev/null
(cd .. && swift build -c release --product geo >/dev/null)
BIN="$(swift build -c release --package-path . --show-bin-path)/NMEABench"
GEO="$(cd .. && swift build -c release --show-bin-path)/geo"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

OURS="$("$BIN" "$INPUT" 3)"
echo "$OURS"

# End to end, interleaved (geo, gpsdecode, geo, …): wall seconds and CPU seconds (user + sys).
timed() { local TIMEFORMAT='%R %U %S'; { time "$@" 2>/dev/null; } 2>&1 | awk '{ print $1, $2 + $3 }'; }
geo_wall=(); geo_cpu=(); gpsd_wall=(); gpsd_cpu=()
for _ in $(seq "$RUNS"); do
  read -r w c < <(timed sh -c '"$1" nmea decode "$2" > "$3"' _ "$GEO" "$INPUT" "$OUT/geo.jsonl"); geo_wall+=("$w"); geo_cpu+=("$c")
  read -r w c < <(timed sh -c 'gpsdecode < "$1" > "$2"' _ "$INPUT" "$OUT/gpsdecode.json"); gpsd_wall+=("$w"); gpsd_cpu+=("$c")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
gw=$(median "${geo_wall[@]}"); gc=$(median "${geo_cpu[@]}"); pw=$(median "${gpsd_wall[@]}"); pc=$(median "${gpsd_cpu[@]}")

ON="$(echo "$OURS" | grep 'satellites=on')"
sentences=$(echo "$ON" | sed -E 's/.*sentences=([0-9]+).*/\1/')
bytes=$(stat -c %s "$INPUT")
ours_s=$(echo "$ON" | sed -E 's/.* seconds=([0-9.]+).*/\1/')
OFF_S=$(echo "$OURS" | grep 'satellites=off' | sed -E 's/.* seconds=([0-9.]+).*/\1/')
printf "gpsdecode (median of %d) seconds=%.4f cpu_s=%.4f MB/s=%.1f sentences/s=%.0f\n" "$RUNS" "$pw" "$pc" "$(echo "$bytes / 1000000 / $pw" | bc -l)" "$(echo "$sentences / $pw" | bc -l)"
printf "geo nmea decode > out.jsonl (median of %d) seconds=%.4f cpu_s=%.4f MB/s=%.1f lines=%d\n" "$RUNS" "$gw" "$gc" "$(echo "$bytes / 1000000 / $gw" | bc -l)" "$(wc -l < "$OUT/geo.jsonl")"
printf "ratio in process (LocationKit with satellites / gpsdecode): %.1fx faster\n" "$(echo "$pw / $ours_s" | bc -l)"
printf "ratio in process (LocationKit without satellite lists / gpsdecode): %.1fx faster\n" "$(echo "$pw / $OFF_S" | bc -l)"
printf "ratio end to end (geo nmea decode / gpsdecode, JSON lines to a file): %.1fx faster wall, %.1fx CPU   (goal >= 10x)\n" \
  "$(echo "$pw / $gw" | bc -l)" "$(echo "$pc / $gc" | bc -l)"
