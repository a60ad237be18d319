#!/usr/bin/env bash
# The test command: set up what is missing, build, run every test.
# Real data is read from $LOCATIONKIT_DATA (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export LOCATIONKIT_DATA="${LOCATIONKIT_DATA:-$(cd .. && pwd)/shared/data}"
swift build --build-tests
swift test --skip-build "$@"
