#!/usr/bin/env bash
# Compare LocationKit routing with OSRM on Monaco and Andorra (issue 7's oracle).
# Not a unit test. Needs osrm-bindings (PyPI), which ships osrm-extract/-contract/-routed
# and the car/foot/bicycle profiles; its wheels are cp312-abi3 only, so Python >= 3.12.
#
#   scripts/osrm/compare.sh [PAIRS] [SEED]
#
# Environment: LOCATIONKIT_DATA (default ../shared/data), OSRM_VENV (default
# ~/.cache/locationkit/osrm-venv), GEO (a built geo binary; default: swift build debug),
# WORK (scratch folder; default /tmp/locationkit-osrm), PROFILE (car, foot or bicycle;
# default car: OSRM's <PROFILE>.lua against geo extract --profile <PROFILE>), RAW=1 (route the
# random points themselves instead of OSRM's /nearest snaps of them, so snapping is compared too),
# BBOX (minlon,minlat,maxlon,maxlat: sample inside this box instead of the extract's; e.g. Monaco's
# harbour, where the Bateau Bus ferry crosses), NAMES (default "monaco andorra").
set -euo pipefail
cd "$(dirname "$0")/../.."
PAIRS="${1:-1000}"
SEED="${2:-7}"
DATA="${LOCATIONKIT_DATA:-../shared/data}"
WORK="${WORK:-/tmp/locationkit-osrm}"
PROFILE="${PROFILE:-car}"
RAW_FLAG=""
[ -n "${RAW:-}" ] && RAW_FLAG="--raw"
mkdir -p "$WORK"

# 1. OSRM from PyPI, in its own Python 3.12 venv.
. scripts/osrm/env.sh

# 2. Our CLI.
if [ -z "${GEO:-}" ]; then
  swift build --product geo >/dev/null
  GEO="$(swift build --show-bin-path)/geo"
fi

now() { python3 -c 'import time; print(time.perf_counter())'; }
for NAME in ${NAMES:-monaco andorra}; do
  PBF="$DATA/osm/$NAME.osm.pbf"
  [ -f "$PBF" ] || { echo "skip $NAME: $PBF not found"; continue; }
  cp "$PBF" "$WORK/$NAME.osm.pbf"
  t0=$(now); "$BIN/osrm-extract" -p "$PROFILES/$PROFILE.lua" "$WORK/$NAME.osm.pbf" >"$WORK/$NAME.extract.log" 2>&1; t1=$(now)
  "$BIN/osrm-contract" "$WORK/$NAME.osrm" >"$WORK/$NAME.contract.log" 2>&1; t2=$(now)
  "$GEO" extract "$PBF" -o "$WORK/$NAME.graph" --profile "$PROFILE" 2>"$WORK/$NAME.geo-extract.log"; t3=$(now)
  python3 - "$NAME" "$t0" "$t1" "$t2" "$t3" <<'PY'
import sys
n, t0, t1, t2, t3 = sys.argv[1], *map(float, sys.argv[2:])
print(f"== {n}: build time: osrm-extract {t1 - t0:.3f} s (+ osrm-contract {t2 - t1:.3f} s), geo extract {t3 - t2:.3f} s, ratio geo/osrm-extract {(t3 - t2) / (t1 - t0):.2f}")
PY
  # The header's box (where the extract was cut), else the nodes' box.
  BOX="${BBOX:-$(osmium fileinfo -g header.boxes "$PBF" | head -1 | tr -d '()' | tr ' ' ',')}"
  [ -n "$BOX" ] || BOX="$(osmium fileinfo -e -g data.bbox "$PBF" | tr -d '()' | tr ' ' ',')"
  python3 scripts/osrm/osrm_server.py "$WORK/$NAME.osrm" -- \
    python3 scripts/osrm/compare.py --geo "$GEO" --graph "$WORK/$NAME.graph" --osrm-url "{url}" \
    --bbox "$BOX" --pairs "$PAIRS" --seed "$SEED" --name "$NAME ($PROFILE)" --pairs-out "$WORK/$NAME.pairs" $RAW_FLAG
done
