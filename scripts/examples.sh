#!/usr/bin/env bash
# Examples/: builds and runs the example of every seed document (README "Examples"). Each
# example checks the behaviour its document states and exits nonzero when one did not happen;
# this script fails when any example fails. Real data comes from $LOCATIONKIT_DATA.
# CI runs it after the tests with the same GEO_INTERNAL_CHECKS as the test build, so nothing
# is compiled twice.
set -euo pipefail
cd "$(dirname "$0")/.."
export LOCATIONKIT_DATA="${LOCATIONKIT_DATA:-$(cd .. && pwd)/shared/data}"
examples=(HEREPositioningExample LiveUpdatesExample CleanTrackExample LocationDelegateExample HEREMapExample)
if [ $# -gt 0 ]; then examples=("$@"); fi
bin="$(swift build --show-bin-path)"
failed=()
for example in "${examples[@]}"; do
  swift build --product "$example"
  echo "== $example"
  # The replays run in real time (sped up); 5 minutes is far beyond any example's run.
  if ! timeout 300 "$bin/$example"; then failed+=("$example"); fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "examples.sh: failed: ${failed[*]}" >&2
  exit 1
fi
echo "examples.sh: ${#examples[@]} examples showed their documents' behaviour"
