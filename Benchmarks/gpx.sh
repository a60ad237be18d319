#!/bin/sh
# GPX parse benchmark: our streaming reader vs FoundationXML's XMLParser (the XML library
# the pull parser must beat) vs gpxpy, on the same generated 1,000,000-point file.
# Usage: Benchmarks/gpx.sh [POINTS]   (needs: python3 with gpxpy; /usr/bin/time optional)
set -e
cd "$(dirname "$0")"
POINTS=${1:-1000000}
FILE=${TMPDIR:-/tmp}/locationkit-gpxbench-$POINTS.gpx
swift build -c release --package-path . --product GPXBench >/dev/null
BIN=$(swift build -c release --package-path . --show-bin-path)/GPXBench
[ -f "$FILE" ] || "$BIN" generate "$FILE" "$POINTS"
SIZE=$(wc -c < "$FILE")
echo "input: $FILE ($POINTS points, $SIZE bytes)"

ours=$("$BIN" stream "$FILE"); echo "$ours"
doc=$("$BIN" document "$FILE"); echo "$doc"
fx=$("$BIN" foundationxml "$FILE"); echo "$fx"
py=$(python3 - "$FILE" <<'PY'
import resource, sys, time
import gpxpy
def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime
start, cpu0 = time.perf_counter(), cpu()
with open(sys.argv[1], encoding="utf-8") as f:
    gpx = gpxpy.parse(f)
n = gpx.get_track_points_no()
wall, c = time.perf_counter() - start, cpu() - cpu0
import os
size = os.path.getsize(sys.argv[1])
print("gpxpy points=%d wall_s=%.3f cpu_s=%.3f MB/s=%.1f points/s=%.0f peakRSS_MiB=%.1f" % (
    n, wall, c, size / c / 1e6, n / c, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
PY
); echo "$py"

field() { echo "$1" | tr ' ' '\n' | sed -n "s|^$2=||p"; }
ratio() { python3 -c "print('%.1f' % ($1 / $2))"; }
echo "ratio ours-stream / gpxpy (points/s):         $(ratio "$(field "$ours" points/s)" "$(field "$py" points/s)")x   (goal >= 50x)"
echo "ratio ours-document / gpxpy (points/s):       $(ratio "$(field "$doc" points/s)" "$(field "$py" points/s)")x   (both build the whole document)"
echo "ratio ours-stream / gpxpy (wall clock):       $(ratio "$(field "$py" wall_s)" "$(field "$ours" wall_s)")x"
echo "ratio ours-stream / FoundationXML (points/s): $(ratio "$(field "$ours" points/s)" "$(field "$fx" points/s)")x"
echo "ours-stream throughput: $(field "$ours" MB/s) MB/s per CPU second   (goal >= 100 MB/s)"
echo "ratio ours-stream / FoundationXML (MB/s):     $(ratio "$(field "$ours" MB/s)" "$(field "$fx" MB/s)")x"
echo "peak RSS MiB: ours-stream $(field "$ours" peakRSS_MiB), ours-document $(field "$doc" peakRSS_MiB), FoundationXML $(field "$fx" peakRSS_MiB), gpxpy $(field "$py" peakRSS_MiB)"
echo "(rates are per CPU second of each process; wall_s is elapsed time on a possibly shared machine)"
