#!/usr/bin/env bash
# The whole filter evaluation: LocationKit's pipelines and pykalman's RTS smoother on the
# same seeded noisy input, in one table. Usage: scripts/eval/filters.sh [extra geo eval args]
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product geo >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
.build/debug/geo eval filters --export "$dir" "$@" >/dev/null
python3 scripts/eval/pykalman_rts.py "$dir" >/dev/null
.build/debug/geo eval filters --reference "$dir" "$@"
