#!/usr/bin/env bash
# The main job: set up what is missing, build, and run `geo demo` on the embedded default data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --product geo
exec "$(swift build --show-bin-path)/geo" demo "$@"
