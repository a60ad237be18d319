#!/usr/bin/env bash
# The test command: set up what is missing, build, run every test.
# Real data is read from $LOCATIONKIT_DATA (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export LOCATIONKIT_DATA="${LOCATIONKIT_DATA:-$(cd .. && pwd)/shared/data}"
swift build --build-tests
# Still serial: in parallel (`swift test`) the whole suite passes in about 30 s, but
# gpsdSource_reportsTheFixesGpsdDecodes still gets no fixes from gpsfake in about half the full
# parallel runs (never when run alone or with the other gpsd tests). Child processes are awaited
# without holding a cooperative-pool thread (SystemIO.ChildProcess), and long synchronous or
# gpsfake-racing tests run on threads of their own (GeoTestSupport's `.onOwnThread`).
swift test --skip-build --no-parallel "$@"
