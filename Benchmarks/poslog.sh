#!/usr/bin/env bash
# PositionLog benchmark: crash-safe per-fix logging (one write(2) per fix), continuing a log
# (recover + rewrite), and reading it back, against gpxpy doing the same work on the same
# points: building and serialising the track once (not crash-safe), parsing + re-serialising
# it to continue it, and parsing it. End to end, as a user reads a log back: `geo gpx stats LOG`
# against a Python process parsing it with gpxpy (process wall and CPU time, median of 3).
# Usage: Benchmarks/poslog.sh [POINTS]   (needs: python3 with gpxpy)
set -e
cd "$(dirname "$0")"
POINTS=${1:-100000}
DIR=${TMPDIR:-/tmp}/locationkit-poslogbench
mkdir -p "$DIR"
FILE=$DIR/ours-$POINTS.gpx
swift build -c release --package-path . --product PositionLogBench >/dev/null
(cd .. && swift build -c release --product geo >/dev/null)
BIN=$(swift build -c release --package-path . --show-bin-path)/PositionLogBench
GEO=$(cd .. && swift build -c release --show-bin-path)/geo

append=$("$BIN" append "$FILE" "$POINTS"); echo "$append"
echo "file: $FILE ($(wc -c < "$FILE") bytes)"
reopen=$("$BIN" reopen "$FILE"); echo "$reopen"
read=$("$BIN" read "$FILE"); echo "$read"
py=$(python3 - "$FILE" "$POINTS" "$DIR/gpxpy-$POINTS.gpx" <<'PY'
import datetime, resource, sys, time
import xml.etree.ElementTree as ET
import gpxpy, gpxpy.gpx
ours, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime
def line(mode, points, wall, c):
    print("%s points=%d wall_s=%.3f cpu_s=%.3f points/s=%.0f peakRSS_MiB=%.1f" % (
        mode, points, wall, c, points / c, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
NS = "urn:locationkit:gpx-log:1"
def ext(tag, value):
    e = ET.Element("{%s}%s" % (NS, tag)); e.text = value; return e
# write: the same points and fields, serialised once
t0, c0 = time.perf_counter(), cpu()
gpx = gpxpy.gpx.GPX(); gpx.nsmap["lk"] = NS
trk = gpxpy.gpx.GPXTrack(); gpx.tracks.append(trk)
seg = gpxpy.gpx.GPXTrackSegment(); trk.segments.append(seg)
epoch = datetime.datetime(2026, 9, 21, 14, 13, 20, tzinfo=datetime.timezone.utc)
for i in range(n):
    p = gpxpy.gpx.GPXTrackPoint(48.137154 + i * 1e-6, 11.575490 + i * 1.5e-6, elevation=519.4 + (i % 100) / 10,
                                time=epoch + datetime.timedelta(seconds=i * 0.1))
    p.type_of_gpx_fix = "3d"; p.satellites = 9
    for tag, v in (("acc", "3.5"), ("vacc", "6.5"), ("speed", "13.9"), ("sacc", "0.3"), ("course", str(float(i % 360))),
                   ("cacc", "1.5"), ("climb", "0.1"), ("hae", "566.9"), ("q", "1.0")):
        p.extensions.append(ext(tag, v))
    seg.points.append(p)
with open(out, "w", encoding="utf-8") as f:
    f.write(gpx.to_xml())
line("gpxpy-write", n, time.perf_counter() - t0, cpu() - c0)
# reopen: parse our log and write it back, which is what continuing it with gpxpy takes
t0, c0 = time.perf_counter(), cpu()
with open(ours, encoding="utf-8") as f:
    doc = gpxpy.parse(f)
doc.tracks[-1].segments.append(gpxpy.gpx.GPXTrackSegment())
with open(out, "w", encoding="utf-8") as f:
    f.write(doc.to_xml())
line("gpxpy-reopen", doc.get_track_points_no(), time.perf_counter() - t0, cpu() - c0)
t0, c0 = time.perf_counter(), cpu()
with open(ours, encoding="utf-8") as f:
    doc = gpxpy.parse(f)
line("gpxpy-read", doc.get_track_points_no(), time.perf_counter() - t0, cpu() - c0)
PY
); echo "$py"

field() { echo "$1" | tr ' ' '\n' | sed -n "s|^$2=||p"; }
mode() { echo "$py" | grep "^$1 "; }
ratio() { python3 -c "print('%.1f' % ($1 / $2))"; }
echo "ratio ours-append (write(2) per fix) / gpxpy-write (one batch) (points/s): $(ratio "$(field "$append" points/s)" "$(field "$(mode gpxpy-write)" points/s)")x"
echo "ratio ours-reopen / gpxpy-reopen (points/s):                             $(ratio "$(field "$reopen" points/s)" "$(field "$(mode gpxpy-reopen)" points/s)")x"
echo "ratio ours-read / gpxpy-read (points/s):                                 $(ratio "$(field "$read" points/s)" "$(field "$(mode gpxpy-read)" points/s)")x"
echo "peak RSS MiB: ours append $(field "$append" peakRSS_MiB), reopen $(field "$reopen" peakRSS_MiB), read $(field "$read" peakRSS_MiB); gpxpy $(field "$(mode gpxpy-read)" peakRSS_MiB)"

# End to end, interleaved: wall and CPU seconds (user + sys) of each process, median of 3.
timed() { TIMEFORMAT='%R %U %S'; { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ print $1, $2 + $3 }'; }
median() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
GW=""; GC=""; PW=""; PC=""
for _ in 1 2 3; do
  set -- $(timed "$GEO" gpx stats "$FILE"); GW="$GW $1"; GC="$GC $2"
  set -- $(timed python3 -c 'import sys, gpxpy; gpxpy.parse(open(sys.argv[1], encoding="utf-8"))' "$FILE"); PW="$PW $1"; PC="$PC $2"
done
echo "end to end: geo gpx stats LOG wall_s=$(median "$GW") cpu_s=$(median "$GC"); python3 gpxpy.parse(LOG) wall_s=$(median "$PW") cpu_s=$(median "$PC")"
echo "ratio end to end, geo gpx stats / gpxpy parse process: $(ratio "$(median "$PC")" "$(median "$GC")")x CPU, $(ratio "$(median "$PW")" "$(median "$GW")")x wall"
echo "(rates are per CPU second of each process; wall_s is elapsed time on a possibly shared machine)"
