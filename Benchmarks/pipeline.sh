#!/bin/sh
# Positioning pipeline benchmark (issue 5 "Numbers"): LocationReplaySource(.asFastAsPossible) →
# PositioningManager → two subscribers, end to end (start() until both subscribers saw the last
# fix), against the goal of 1,000,000 fixes/s, with VmRSS sampled every 100,000 fixes over a
# 24 h replay of 10 Hz fixes (864,000) and a 72 h one (2,592,000) to show memory stays flat.
# There is no peer program that runs this pipeline; the ratio printed is against the goal.
# Rates are wall-clock (the pipeline runs on both cores) and per CPU second (less sensitive to
# other load on a shared machine). RSS includes the replayed fixes themselves (~200 B each).
# Usage: Benchmarks/pipeline.sh [FIXES] [LONG_FIXES]
set -e
cd "$(dirname "$0")"
FIXES=${1:-864000}
LONG=${2:-2592000}
swift build -c release --package-path . --product PipelineBench >/dev/null
BIN=$(swift build -c release --package-path . --show-bin-path)/PipelineBench

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
