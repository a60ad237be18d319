#!/usr/bin/env bash
# The test command: set up what is missing, build, run every test.
# Real data is read from $LOCATIONKIT_DATA (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export LOCATIONKIT_DATA="${LOCATIONKIT_DATA:-$(cd .. && pwd)/shared/data}"
swift build --build-tests
# Parallel (Swift Testing's default): child processes are awaited without holding a thread of
# the cooperative pool (SystemIO.ChildProcess), and tests with seconds of synchronous work run
# on threads of their own (GeoTestSupport's `.onOwnThread`), so time-bounded tests are not
# starved on this 2-core machine.
swift test --skip-build "$@"
