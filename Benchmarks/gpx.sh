#!/usr/bin/env bash
# GPX parse benchmark: our streaming reader vs FoundationXML's XMLParser (the XML library
# the pull parser must beat) vs gpxpy, on the same generated 1,000,000-point file; in process,
# and end to end as a user runs it: `geo gpx stats FILE` against a Python process that parses
# the file with gpxpy and computes the same summary (lengths, duration, moving time, climb,
# bounds), interleaved, median of RUNS.
# Usage: Benchmarks/gpx.sh [POINTS] [RUNS]   (needs: python3 with gpxpy)
set -e
cd "$(dirname "$0")"
POINTS=${1:-1000000}
RUNS=${2:-3}
FILE=${TMPDIR:-/tmp}/locationkit-gpxbench-$POINTS.gpx
swift build -c release --package-path . --product GPXBench >/dev/null
(cd .. && swift build -c release --product geo >/dev/null)
BIN=$(swift build -c release --package-path . --show-bin-path)/GPXBench
GEO=$(cd .. && swift build -c release --show-bin-path)/geo
[ -f "$FILE" ] || "$BIN" generate "$FILE" "$POINTS"
SIZE=$(wc -c < "$FILE")
echo "input: $FILE ($POINTS points, $SIZE bytes)"

ours=$("$BIN" stream "$FILE"); echo "$ours"
doc=$("$BIN" document "$FILE"); echo "$doc"
fx=$("$BIN" foundationxml "$FILE"); echo "$fx"
# gpxpy as a process: parse (timed inside, CPU seconds) and then the summary `geo gpx stats`
# prints; the process is timed from outside as a user sees it.
PYSTATS=$(mktemp)
trap 'rm -f "$PYSTATS"' EXIT
cat > "$PYSTATS" <<'PY'
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
gpx.length_2d(); gpx.length_3d(); gpx.get_duration(); gpx.get_uphill_downhill(); gpx.get_moving_data(); gpx.get_bounds()
import os
size = os.path.getsize(sys.argv[1])
print("gpxpy points=%d wall_s=%.3f cpu_s=%.3f MB/s=%.1f points/s=%.0f peakRSS_MiB=%.1f" % (
    n, wall, c, size / c / 1e6, n / c, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
PY
# Interleaved runs (geo, gpxpy, geo, …): wall seconds and CPU seconds (user + sys) of each process.
timed() { TIMEFORMAT='%R %U %S'; { time "$@" > /tmp/locationkit-gpxbench-out.txt 2>/dev/null; } 2>&1 | awk '{ print $1, $2 + $3 }'; }
GEO_WALL=""; GEO_CPU=""; PY_WALL=""; PY_CPU=""
for _ in $(seq "$RUNS"); do
  set -- $(timed "$GEO" gpx stats "$FILE"); GEO_WALL="$GEO_WALL $1"; GEO_CPU="$GEO_CPU $2"
  set -- $(timed python3 "$PYSTATS" "$FILE"); PY_WALL="$PY_WALL $1"; PY_CPU="$PY_CPU $2"
  py=$(cat /tmp/locationkit-gpxbench-out.txt)
done
echo "$py"
median() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
gw=$(median "$GEO_WALL"); gc=$(median "$GEO_CPU"); pw=$(median "$PY_WALL"); pc=$(median "$PY_CPU")
echo "geo gpx stats (median of $RUNS): wall_s=$gw cpu_s=$gc points/s=$(python3 -c "print('%.0f' % ($POINTS / $gc))")"
echo "gpxpy parse + stats process (median of $RUNS): wall_s=$pw cpu_s=$pc"

field() { echo "$1" | tr ' ' '\n' | sed -n "s|^$2=||p"; }
ratio() { python3 -c "print('%.1f' % ($1 / $2))"; }
echo "ratio end to end, geo gpx stats / gpxpy parse + stats (process CPU): $(ratio "$pc" "$gc")x, wall $(ratio "$pw" "$gw")x   (goal >= 50x)"
echo "ratio end to end, geo gpx stats / gpxpy parse alone (CPU):          $(ratio "$(field "$py" cpu_s)" "$gc")x"
echo "ratio in process, ours-stream / gpxpy parse (points/s):             $(ratio "$(field "$ours" points/s)" "$(field "$py" points/s)")x"
echo "ratio ours-document / gpxpy (points/s):       $(ratio "$(field "$doc" points/s)" "$(field "$py" points/s)")x   (both build the whole document)"
echo "ratio ours-stream / gpxpy (wall clock):       $(ratio "$(field "$py" wall_s)" "$(field "$ours" wall_s)")x"
echo "ratio ours-stream / FoundationXML (points/s): $(ratio "$(field "$ours" points/s)" "$(field "$fx" points/s)")x"
echo "ours-stream throughput: $(field "$ours" MB/s) MB/s per CPU second   (goal >= 100 MB/s)"
echo "ratio ours-stream / FoundationXML (MB/s):     $(ratio "$(field "$ours" MB/s)" "$(field "$fx" MB/s)")x"
echo "peak RSS MiB: ours-stream $(field "$ours" peakRSS_MiB), ours-document $(field "$doc" peakRSS_MiB), FoundationXML $(field "$fx" peakRSS_MiB), gpxpy $(field "$py" peakRSS_MiB)"
echo "(rates are per CPU second of each process; wall_s is elapsed time on a possibly shared machine)"
