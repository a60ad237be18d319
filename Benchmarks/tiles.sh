#!/usr/bin/env bash
# `geo tiles build` against tilemaker (Debian 2.2, its OpenMapTiles example config and Lua
# profile less the layers that need shapefiles, as ../shared/checks/map-renderer runs it) on the
# shared extracts, the same zoom range, side by side in one run, interleaved (geo, tilemaker,
# geo, tilemaker …) so machine load hits both alike. Wall time and peak RSS (GNU time) for
# both; the best of the rounds is what counts.
# Usage: Benchmarks/tiles.sh [ROUNDS] [MAXZOOM]   (needs tilemaker: scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-3}"; MAXZOOM="${2:-14}"
DATA="${LOCATIONKIT_DATA:-../shared/data}"
command -v tilemaker >/dev/null || { echo "tilemaker missing (apt-get install tilemaker)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time missing (apt-get install time)" >&2; exit 1; }
swift build -c release --product geo >/dev/null
GEO="$(swift build -c release --show-bin-path)/geo"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
EX=/usr/share/doc/tilemaker/examples
python3 - "$EX/config-openmaptiles.json" "$tmp/config.json" "$MAXZOOM" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["layers"] = {k: v for k, v in c["layers"].items() if "source" not in v}   # no shapefiles here
c["settings"]["maxzoom"] = int(sys.argv[3])
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
cp "$EX/process-openmaptiles.lua" "$tmp/process.lua"

printf "%-8s %-10s %5s %9s %10s %9s\n" extract tool round seconds "RSS MB" "out MB"
for city in monaco andorra; do
  SRC="$DATA/osm/$city.osm.pbf"
  for round in $(seq "$ROUNDS"); do
    /usr/bin/time -f "%e %M" -o "$tmp/t" "$GEO" tiles build "$SRC" -o "$tmp/$city.pmtiles" --maxzoom "$MAXZOOM" 2>/dev/null >/dev/null
    read -r secs kb < "$tmp/t"
    printf "%-8s %-10s %5d %9.2f %10.1f %9.2f\n" "$city" geo "$round" "$secs" "$(echo "$kb / 1024" | bc -l)" "$(echo "$(stat -c %s "$tmp/$city.pmtiles") / 1048576" | bc -l)"
    rm -f "$tmp/$city-tm.mbtiles"
    (cd "$tmp" && /usr/bin/time -f "%e %M" -o "$tmp/t" tilemaker --input "$SRC" --output "$tmp/$city-tm.mbtiles" --config config.json --process process.lua >/dev/null 2>&1)
    read -r secs kb < "$tmp/t"
    printf "%-8s %-10s %5d %9.2f %10.1f %9.2f\n" "$city" tilemaker "$round" "$secs" "$(echo "$kb / 1024" | bc -l)" "$(echo "$(stat -c %s "$tmp/$city-tm.mbtiles") / 1048576" | bc -l)"
  done
done
