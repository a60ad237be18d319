#!/bin/sh
# Positioning pipeline benchmark (issue 5 "Numbers"): GPXReplaySource(.asFastAsPossible) →
# PositioningManager → two subscribers, end to end, against the goal of 1,000,000 fixes/s, with
# VmRSS sampled every 100,000 fixes over a 24 h replay of 10 Hz fixes (864,000) and the same
# replay run again on the same manager to show memory stays flat. There is no peer program that
# does this pipeline; the ratio printed is against the issue's goal.
# Usage: Benchmarks/pipeline.sh [FIXES] [ROUNDS]
set -e
cd "$(dirname "$0")"
FIXES=${1:-864000}
ROUNDS=${2:-3}
swift build -c release --package-path . --product PipelineBench >/dev/null
BIN=$(swift build -c release --package-path . --show-bin-path)/PipelineBench

run() { out=$("$BIN" "$FIXES" "$@"); echo "$out"; }
best() { echo "$1" | tr ' ' '\n' | sed -n 's|^fixes/s=||p' | sort -n | tail -1; }
ratio() { python3 -c "print('%.2f' % ($1 / 1e6))"; }

echo "== airborne preset, unbounded subscribers, NotificationCenter posts on (the default)"
run "$ROUNDS" airborne unbounded notifications; a=$(best "$out")
echo "== default preset (stationary detection on), unbounded subscribers"
run 1 default unbounded notifications; d=$(best "$out")
echo "== airborne, NotificationCenter posts off (postsNotifications = false)"
run 1 airborne unbounded quiet; q=$(best "$out")
echo "== airborne, default subscriber policy (bufferingNewest(256)): drops show in dropped=[…]"
run 1 airborne newest256 notifications
echo "ratio to the 1,000,000 fixes/s goal: airborne $(ratio "$a")x, default $(ratio "$d")x, notifications off $(ratio "$q")x"
