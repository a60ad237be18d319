#!/usr/bin/env bash
# The test command: set up what is missing, build, run every test.
# Real data is read from $LOCATIONKIT_DATA (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export LOCATIONKIT_DATA="${LOCATIONKIT_DATA:-$(cd .. && pwd)/shared/data}"
swift build --build-tests
# In parallel (Swift Testing's default): child processes are awaited without holding a thread
# of the cooperative pool (SystemIO.ChildProcess), and tests with seconds of synchronous work or
# racing gpsfake run on threads of their own (GeoTestSupport's `.onOwnThread`), so on a 2-core
# machine no bounded wait queues behind another test's work.
swift test --skip-build "$@"
