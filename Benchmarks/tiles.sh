#!/usr/bin/env bash
# `geo tiles build` against tilemaker (Debian 2.2, its OpenMapTiles example config and Lua
# profile less the layers that need shapefiles, as ../shared/checks/map-renderer runs it) on the
# shared extracts, the same zoom range, side by side in one run, interleaved (geo, tilemaker,
# geo, tilemaker …) so machine load hits both alike. Wall time, peak RSS (VmHWM, as GNU time
# reports it: anonymous memory and the resident pages of mapped files), peak anonymous RSS
# (RssAnon polled every 20 ms: the memory the kernel cannot drop) and peak file-backed RSS
# (RssFile: the binary and the mapped on-disk stores both tools keep, pages the kernel may
# write back and drop) for both; the
# median of the rounds is what counts. geo keeps its features in a scratch file
# (MapFeaturePartition) and its nodes and ways in memory-mapped ones past --store-memory.
# COPIES=N adds a larger extract made offline: N×N copies of Monaco side by side (ids offset,
# coordinates shifted 0.15° / 0.07° per copy; osmium and python3), to show memory as input grows
# (COPIES=5: ×25, 4.5 M nodes; COPIES=10: ×100, 18 M nodes, 288 MB of node positions).
# MORE="a.osm.pbf b.osm.pbf" adds extracts already made (e.g. a ×25 from an earlier COPIES run).
# TILEMAKER_LIMIT_MB caps tilemaker's address space on the made-up extracts (ulimit -v), so its
# growth past the machine's memory ends in its own allocation failure, not the OOM killer.
# Usage: [COPIES=5] [MORE=…] Benchmarks/tiles.sh [ROUNDS] [MAXZOOM]   (needs tilemaker: scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-3}"; MAXZOOM="${2:-14}"
DATA="${LOCATIONKIT_DATA:-../shared/data}"
command -v tilemaker >/dev/null || { echo "tilemaker missing (apt-get install tilemaker)" >&2; exit 1; }
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
# measure CMD…: "seconds peakRSS-MB peakAnon-MB peakFile-MB" of one run.
cat > "$tmp/measure.py" <<'PY'
import subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
anon = hwm = mapped = 0
while p.poll() is None:
    try:
        for line in open(f"/proc/{p.pid}/status"):
            if line.startswith("RssAnon:"): anon = max(anon, int(line.split()[1]))
            elif line.startswith("RssFile:"): mapped = max(mapped, int(line.split()[1]))
            elif line.startswith("VmHWM:"): hwm = max(hwm, int(line.split()[1]))
    except OSError:
        pass
    time.sleep(0.02)
print("%.2f %.1f %.1f %.1f" % (time.monotonic() - t0, hwm / 1024, anon / 1024, mapped / 1024))
PY

EXTRACTS="$DATA/osm/monaco.osm.pbf $DATA/osm/andorra.osm.pbf"
if [ -n "${COPIES:-}" ]; then
  osmium cat "$DATA/osm/monaco.osm.pbf" -f opl -o "$tmp/monaco.opl"
  python3 - "$tmp/monaco.opl" "$COPIES" <<'PY' | osmium cat -F opl - -o "$tmp/monaco$COPIES.osm.pbf"
import sys
src, n = sys.argv[1], int(sys.argv[2])
kinds = {"n": [], "w": [], "r": []}
for line in open(src):
    kinds[line[0]].append(line.rstrip("\n").split(" "))
OFF = 10**10  # id offset per copy, so ids stay sorted by type, then id
def refs(field, k):
    if field[:1] == "N":
        return "N" + ",".join("n%d" % (int(r[1:]) + k * OFF) for r in field[1:].split(",") if r)
    members = [m for m in field[1:].split(",") if m]
    return "M" + ",".join("%s%d@%s" % (m[0], int(m[1:].split("@", 1)[0]) + k * OFF, m.split("@", 1)[1]) for m in members)
for kind in "nwr":
    for k in range(n * n):
        ox, oy = (k % n) * 0.15, (k // n) * 0.07
        for f in kinds[kind]:
            out = [kind + str(int(f[0][1:]) + k * OFF)]
            for x in f[1:]:
                c = x[:1]
                if c == "x" and len(x) > 1: x = "x%.7f" % (float(x[1:]) + ox)
                elif c == "y" and len(x) > 1: x = "y%.7f" % (float(x[1:]) + oy)
                elif c in ("N", "M"): x = refs(x, k)
                out.append(x)
            sys.stdout.write(" ".join(out) + "\n")
PY
  EXTRACTS+=" $tmp/monaco$COPIES.osm.pbf"
fi
EXTRACTS+=" ${MORE:-}"

printf "%-10s %-10s %5s %9s %10s %10s %10s %9s\n" extract tool round seconds "RSS MB" "anon MB" "file MB" "out MB"
for SRC in $EXTRACTS; do
  city=$(basename "$SRC" .osm.pbf)
  for round in $(seq "$ROUNDS"); do
    read -r secs rss anon mapped < <(python3 "$tmp/measure.py" "$GEO" tiles build "$SRC" -o "$tmp/$city.pmtiles" --maxzoom "$MAXZOOM")
    printf "%-10s %-10s %5d %9.2f %10.1f %10.1f %10.1f %9.2f\n" "$city" geo "$round" "$secs" "$rss" "$anon" "$mapped" "$(echo "$(stat -c %s "$tmp/$city.pmtiles") / 1048576" | bc -l)"
    rm -f "$tmp/$city-tm.mbtiles"
    # The made-up extract with tilemaker's on-disk store (--store): in memory it grew past 17 GB
    # on Monaco ×25 and was killed; geo keeps its features in a scratch file either way.
    STORE=(); LIMIT=unlimited
    [[ "$SRC" == "$tmp/"* || " ${MORE:-} " == *" $SRC "* ]] && { rm -rf "$tmp/tm-store"; STORE=(--store "$tmp/tm-store"); LIMIT=$(( ${TILEMAKER_LIMIT_MB:-0} * 1024 )); [ "$LIMIT" = 0 ] && LIMIT=unlimited; }
    read -r secs rss anon mapped < <(cd "$tmp" && ulimit -v "$LIMIT" && python3 "$tmp/measure.py" tilemaker --input "$SRC" --output "$tmp/$city-tm.mbtiles" --config config.json --process process.lua "${STORE[@]}")
    printf "%-10s %-10s %5d %9.2f %10.1f %10.1f %10.1f %9.2f\n" "$city" tilemaker "$round" "$secs" "$rss" "$anon" "$mapped" "$(echo "$(stat -c %s "$tmp/$city-tm.mbtiles" 2>/dev/null || echo 0) / 1048576" | bc -l)"
  done
done
