#!/bin/sh
# Positioning pipeline benchmark (issue 5 "Numbers"): LocationReplaySource(.asFastAsPossible) →
# PositioningManager → two subscribers, end to end (start() until both subscribers saw the last
# fix), against the goal of 1,000,000 fixes/s, with VmRSS sampled every 100,000 fixes over a
# 24 h replay of 10 Hz fixes (864,000) and a 72 h one (2,592,000) to show memory stays flat.
# There is no peer program that runs this pipeline; the ratio printed is against the goal.
# End to end as users run it: `geo track --source 'gpx:FILE?speed=max'` over the same number of
# 10 Hz fixes (written as GPX first), JSON lines to /dev/null; its rate includes reading the GPX
# file and formatting every update, so it is below the in-process one by that work.
# Rates are wall-clock (the pipeline runs on both cores) and per CPU second (less sensitive to
# other load on a shared machine). RSS includes the replayed fixes themselves (104 B each: the
# stride of the packed `Location`).
# Each run ends with the track filter's report: why the fixes a subscriber did not see were
# dropped (the default preset's accuracy-radius rule drops every other fix of this replay: its
# 1.39 m hops are under half the 3.5 m accuracy radius).
# Usage: Benchmarks/pipeline.sh [FIXES] [LONG_FIXES]
set -e
cd "$(dirname "$0")"
FIXES=${1:-864000}
LONG=${2:-2592000}
swift build -c release --package-path . --product PipelineBench >/dev/null
BIN=$(swift build -c release --package-path . --show-bin-path)/PipelineBench
(cd .. && swift build -c release --product geo >/dev/null)
GEO="$(cd .. && swift build -c release --show-bin-path)/geo"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

run() { out=$("$BIN" "$@"); echo "$out"; }
rate() { echo "$1" | tr ' ' '\n' | sed -n 's|^fixes/s=||p' | head -1; }
ratio() { python3 -c "print('%.2f' % ($1 / 1e6))"; }

echo "== 24 h, airborne preset, unbounded subscribers, NotificationCenter posts on (the default)"
run "$FIXES" 1 airborne unbounded notifications; a=$(rate "$out")
echo "== 24 h, default preset (stationary detection on)"
run "$FIXES" 1 default unbounded notifications; d=$(rate "$out")
echo "== 24 h, airborne, NotificationCenter posts off (postsNotifications = false)"
run "$FIXES" 1 airborne unbounded quiet; q=$(rate "$out")
echo "== 24 h, airborne, the default subscriber policy (bufferingNewest(256)): drops show in dropped=[…]"
run "$FIXES" 1 airborne newest256 notifications
echo "== 72 h, airborne, unbounded subscribers"
run "$LONG" 1 airborne unbounded notifications; l=$(rate "$out")
echo "ratio to the 1,000,000 fixes/s goal: airborne $(ratio "$a")x, default preset $(ratio "$d")x, notifications off $(ratio "$q")x, 72 h $(ratio "$l")x"

echo "== end to end: geo track --source gpx:…?speed=max (airborne preset) over $FIXES fixes to /dev/null"
python3 - "$WORK/fixes.gpx" "$FIXES" <<'PY'
import sys, datetime
path, n = sys.argv[1], int(sys.argv[2])
t0 = datetime.datetime(2026, 9, 21, 12, 0, 0, tzinfo=datetime.timezone.utc)
with open(path, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="pipeline.sh" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\n')
    for i in range(n):
        t = (t0 + datetime.timedelta(seconds=i / 10)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        f.write(f'<trkpt lat="{48.137154 + i * 1e-6:.7f}" lon="{11.575490 + i * 1.5e-6:.7f}"><ele>519.4</ele><time>{t}</time><hdop>0.8</hdop></trkpt>\n')
    f.write("</trkseg></trk></gpx>\n")
PY
s=$(date +%s.%N)
lines=$("$GEO" track --source "gpx:$WORK/fixes.gpx?speed=max" --preset airborne | wc -l)
e=$(date +%s.%N)
python3 -c "w = $e - $s; print('geo track: %d lines in %.3f s = %.0f fixes/s end to end (%.2fx the goal)' % ($lines, w, $FIXES / w, $FIXES / w / 1e6))"
