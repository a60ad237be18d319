#!/usr/bin/env bash
# OSRM's answers for the snapping test maps (see snapping_oracle.py). Not a unit test.
#   scripts/osrm/snapping_oracle.sh [MAP ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK="${WORK:-/tmp/locationkit-osrm-snapping}"
mkdir -p "$WORK"
. scripts/osrm/env.sh
python3 scripts/osrm/snapping_oracle.py "$WORK" "$@"
