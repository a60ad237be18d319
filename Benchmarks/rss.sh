#!/bin/sh
# Peak resident memory (RSS, /usr/bin/time -v "Maximum resident set size") of `geo gpx smooth`,
# `geo gpx clean`, `geo gpx stats` and `geo nmea decode` on generated tracks of 10^4, 10^5 and
# 10^6 points (10^7 with RSS_SEVEN=1): a command that runs in bounded memory stays flat as the
# track grows ten-fold. The track is a 1 Hz walk with GPS-like noise, one segment, HDOP per point.
# Then the smoother alone (SmoothBench: a generated walk that is never stored), with the
# standard fixed-lag window and with the whole track in one window, up to 10^7 fixes.
# Usage: Benchmarks/rss.sh [GEO]   (default: the debug build, .build/debug/geo; needs python3)
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GEO=${1:-$ROOT/.build/debug/geo}
DIR=${TMPDIR:-/tmp}/locationkit-rss
mkdir -p "$DIR"
SIZES="10000 100000 1000000"
[ "${RSS_SEVEN:-0}" = 1 ] && SIZES="$SIZES 10000000"

# A seeded walk: GPX (with <hdop>) and the same fixes as NMEA GGA + RMC.
generate() {
    python3 - "$1" "$DIR/track-$1.gpx" "$DIR/track-$1.nmea" <<'PY'
import datetime, math, random, sys
n, gpx_path, nmea_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rng = random.Random(13)
lat, lon, heading = 52.5, 13.4, 0.0
def nmea(body):
    c = 0
    for ch in body: c ^= ord(ch)
    return "$%s*%02X\r\n" % (body, c)
def dm(v, width):
    a = abs(v); d = int(a); return "%0*d%07.4f" % (width, d, (a - d) * 60)
with open(gpx_path, "w") as g, open(nmea_path, "w") as m:
    g.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="rss.sh" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\n')
    for i in range(n):
        heading += rng.gauss(0, 5)
        lat += 1.4 * math.cos(math.radians(heading)) / 111_320
        lon += 1.4 * math.sin(math.radians(heading)) / (111_320 * math.cos(math.radians(lat)))
        nlat, nlon = lat + rng.gauss(0, 3) / 111_320, lon + rng.gauss(0, 3) / 68_000
        t = 1_700_000_000 + i
        when = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
        g.write('<trkpt lat="%.7f" lon="%.7f"><time>%s</time><hdop>1.2</hdop></trkpt>\n'
                % (nlat, nlon, when.strftime("%Y-%m-%dT%H:%M:%SZ")))
        hms = when.strftime("%H%M%S") + ".00"
        ns, ew = ("N" if nlat >= 0 else "S"), ("E" if nlon >= 0 else "W")
        m.write(nmea("GPGGA,%s,%s,%s,%s,%s,1,08,1.2,35.0,M,45.0,M,," % (hms, dm(nlat, 2), ns, dm(nlon, 3), ew)))
        m.write(nmea("GPRMC,%s,A,%s,%s,%s,%s,2.7,%.1f,%s,,,A" % (hms, dm(nlat, 2), ns, dm(nlon, 3), ew,
                                                              heading % 360, when.strftime("%d%m%y"))))
    g.write("</trkseg></trk></gpx>\n")
PY
}

rss() { # prints the peak RSS in MiB of the command given
    /usr/bin/time -v "$@" >/dev/null 2>"$DIR/time.txt" || { echo "failed: $*" >&2; tail -3 "$DIR/time.txt" >&2; }
    awk '/Maximum resident set size/ { printf "%.0f", $6 / 1024 }' "$DIR/time.txt"
}

printf "%-10s %10s %10s %10s %10s   (peak RSS, MiB)\n" points smooth clean stats decode
for n in $SIZES; do
    [ -f "$DIR/track-$n.nmea" ] || generate "$n"
    printf "%-10s %10s %10s %10s %10s\n" "$n" \
        "$(rss "$GEO" gpx smooth "$DIR/track-$n.gpx")" \
        "$(rss "$GEO" gpx clean "$DIR/track-$n.gpx")" \
        "$(rss "$GEO" gpx stats "$DIR/track-$n.gpx")" \
        "$(rss "$GEO" nmea decode "$DIR/track-$n.nmea")"
done

swift build --package-path "$ROOT/Benchmarks" --product SmoothBench >/dev/null
BENCH=$(swift build --package-path "$ROOT/Benchmarks" --show-bin-path)/SmoothBench
printf "\n%-10s %14s %14s   (peak RSS of the smoother alone, MiB)\n" fixes fixed-lag whole-track
for n in 10000 100000 1000000 10000000; do
    whole=-
    [ "$n" -le 1000000 ] && whole=$(rss "$BENCH" "$n" --whole)
    printf "%-10s %14s %14s\n" "$n" "$(rss "$BENCH" "$n")" "$whole"
done
