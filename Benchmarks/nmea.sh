#!/usr/bin/env bash
# NMEA decoding benchmark: LocationKit's NMEADecoder vs Debian's gpsdecode (gpsd-clients)
# on the same >= 100 MB file built by concatenating the shared captures.
# Usage: Benchmarks/nmea.sh            (LOCATIONKIT_DATA overrides ../shared/data)
set -euo pipefail
cd "$(dirname "$0")"
DATA="${LOCATIONKIT_DATA:-$(cd ../.. && pwd)/shared/data}"
INPUT=/tmp/locationkit-nmea-bench.log
TARGET=$((100 * 1024 * 1024))

if [ ! -f "$INPUT" ] || [ "$(stat -c %s "$INPUT")" -lt "$TARGET" ]; then
  : > "$INPUT"
  while [ "$(stat -c %s "$INPUT")" -lt "$TARGET" ]; do cat "$DATA"/nmea/*.log >> "$INPUT"; done
fi
echo "input: $INPUT ($(stat -c %s "$INPUT") bytes)"

swift build -c release --package-path . --product NMEABench >/dev/null
BIN="$(swift build -c release --package-path . --show-bin-path)/NMEABench"
OURS="$("$BIN" "$INPUT" 3)"
echo "$OURS"

command -v gpsdecode >/dev/null || { echo "gpsdecode not found (apt-get install gpsd-clients)"; exit 1; }
best=""
for _ in 1 2 3; do
  start=$(date +%s.%N)
  gpsdecode < "$INPUT" > /dev/null
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc -l)
  if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
done
ON="$(echo "$OURS" | grep 'satellites=on')"
sentences=$(echo "$ON" | sed -E 's/.*sentences=([0-9]+).*/\1/')
bytes=$(stat -c %s "$INPUT")
ours_s=$(echo "$ON" | sed -E 's/.* seconds=([0-9.]+).*/\1/')
printf "gpsdecode seconds=%.4f MB/s=%.1f sentences/s=%.0f\n" "$best" "$(echo "$bytes / 1000000 / $best" | bc -l)" "$(echo "$sentences / $best" | bc -l)"
printf "ratio (LocationKit with satellites / gpsdecode): %.1fx faster\n" "$(echo "$best / $ours_s" | bc -l)"
OFF_S=$(echo "$OURS" | grep 'satellites=off' | sed -E 's/.* seconds=([0-9.]+).*/\1/')
printf "ratio (LocationKit without satellite lists / gpsdecode): %.1fx faster\n" "$(echo "$best / $OFF_S" | bc -l)"
