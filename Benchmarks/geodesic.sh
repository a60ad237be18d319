#!/usr/bin/env bash
# Geodesic inverse throughput: `geo distance --batch` against PROJ's `geod -I` (GeographicLib's
# C code, Debian proj-bin) on the same 1,000,000 seeded random pairs, end to end (parse, solve,
# format, write: what a user sees). Also runs the in-process GeodesicBench next to it. Usage: Benchmarks/geodesic.sh [pairs]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}

command -v geod >/dev/null || { echo "geod not found (apt-get install proj-bin)" >&2; exit 1; }
swift build -c release --product geo >/dev/null
swift build -c release --package-path Benchmarks >/dev/null
GEO="$(swift build -c release --show-bin-path)/geo"
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/GeodesicBench"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Seeded pairs, uniform in latitude and longitude, 10 decimals (sub-millimetre).
python3 - "$N" > "$tmp/in.txt" <<'PY'
import random, sys
rng = random.Random(20260521)
n = int(sys.argv[1])
out = sys.stdout
for _ in range(n):
    out.write("%.10f %.10f %.10f %.10f\n" % (rng.uniform(-90, 90), rng.uniform(-180, 180),
                                             rng.uniform(-90, 90), rng.uniform(-180, 180)))
PY
echo "input: $N pairs, $(wc -c < "$tmp/in.txt") bytes"

# Best of 3 runs of a command reading in.txt into the given output file: prints the smallest
# wall-clock time and the smallest CPU time (user + sys; steadier on a shared machine).
best() {
    local out=$1; shift
    local best_wall="" best_cpu="" wall user sys cpu
    for _ in 1 2 3; do
        read -r wall user sys < <(TIMEFORMAT='%R %U %S'; { time "$@" < "$tmp/in.txt" > "$out" 2>/dev/null; } 2>&1)
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
        best_wall=$(awk -v a="$wall" -v b="${best_wall:-$wall}" 'BEGIN { print (a < b ? a : b) }')
        best_cpu=$(awk -v a="$cpu" -v b="${best_cpu:-$cpu}" 'BEGIN { print (a < b ? a : b) }')
    done
    echo "$best_wall $best_cpu"
}

read -r geo_s geo_cpu < <(best "$tmp/geo.txt" "$GEO" distance --batch)
# geod prints azimuths with -f and distances with -F; %.9f keeps distances to the nanometre.
read -r geod_s geod_cpu < <(best "$tmp/geod.txt" geod -I +ellps=WGS84 -f %.15f -F %.9f)

# Spot-check every 997th line: distances within 1e-6 m, forward azimuths within 1e-9 degrees.
paste -d' ' "$tmp/geo.txt" "$tmp/geod.txt" | awk -v tol_m=1e-6 -v tol_deg=1e-9 '
    NR % 997 == 1 {
        checked++
        ds = $1 - $6; if (ds < 0) ds = -ds
        da = ($2 - $4) % 360; if (da < 0) da += 360; if (da > 180) da = 360 - da
        if (ds > tol_m || da > tol_deg) { bad++; if (bad <= 5) print "mismatch line " NR ": " $0 > "/dev/stderr" }
    }
    END { printf "spot check: %d lines compared, %d outside 1e-6 m / 1e-9 deg\n", checked, bad; exit bad > 0 }'

lines_geo=$(wc -l < "$tmp/geo.txt"); lines_geod=$(wc -l < "$tmp/geod.txt")
[[ $lines_geo == "$N" && $lines_geod == "$N" ]] || { echo "line counts differ: geo $lines_geo, geod $lines_geod" >&2; exit 1; }

awk -v n="$N" -v g="$geo_s" -v p="$geod_s" -v gc="$geo_cpu" -v pc="$geod_cpu" 'BEGIN {
    printf "geo distance --batch: %.3f s wall, %.0f pairs/s (CPU %.3f s, %.0f pairs/CPU-s)\n", g, n / g, gc, n / gc
    printf "geod -I:              %.3f s wall, %.0f pairs/s (CPU %.3f s, %.0f pairs/CPU-s)\n", p, n / p, pc, n / pc
    printf "ratio (geo / geod throughput): %.2fx wall, %.2fx CPU\n", p / g, pc / gc
}'
echo "in process (GeodesicBench, the inverse alone on the same number of pairs):"
"$BENCH" "$N"
