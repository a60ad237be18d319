#!/usr/bin/env bash
# The test command: set up what is missing, build, run every test.
# Real data is read from $LOCATIONKIT_DATA (default ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export LOCATIONKIT_DATA="${LOCATIONKIT_DATA:-$(cd .. && pwd)/shared/data}"
swift build --build-tests
# Serial: several tests wait synchronously on real child processes (gpsd, gpsfake, osmium, the
# `geo` binary); run in parallel on a 2-core machine they can hold every thread of the
# cooperative pool while other tests' tasks starve.
swift test --skip-build --no-parallel "$@"
