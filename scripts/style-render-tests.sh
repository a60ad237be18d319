#!/usr/bin/env bash
# The Mapbox GL render test suite (data/maplibre-render) through `geo snapshot --style`, scored
# per property group by the shared check's own scorer (../shared/checks/render_score.py:
# operations applied to the style, pixelmatch threshold 0.13, anti-aliased pixels not counted,
# the test's allowed share, default 0.00015; tests ignored for js left out).
# Usage: scripts/style-render-tests.sh [GEO] [GROUP-PREFIX...]
#   GEO defaults to the debug build's geo; prefixes (e.g. background fill line circle raster)
#   pick groups. Prints "group passed/total (passing tests)" per group, then the sum.
#   Rendered PNGs stay in $OUT (default .build/style-render/) beside their styles.
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
GEO="${1:-$ROOT/.build/debug/geo}"; shift || true
DATA="${LOCATIONKIT_DATA:-$ROOT/../shared/data}/maplibre-render"
CHECKS="${CHECKS:-$ROOT/../shared/checks}"
PY="${PY:-${CHECKS_VENV:-$ROOT/.build/checks-venv}/bin/python}"
OUT="${OUT:-$ROOT/.build/style-render}"
[[ -x "$PY" ]] || PY=python3
mkdir -p "$OUT"
ok=0; total=0
for dir in "$DATA"/render-tests/*/; do
  group="$(basename "$dir")"
  if [[ $# -gt 0 ]]; then
    keep=0; for p in "$@"; do [[ "$group" == "$p"* ]] && keep=1; done
    [[ $keep == 1 ]] || continue
  fi
  # Scored one group at a time: the scorer's categories are then the group's tests.
  read -r o t per <<< "$("$PY" "$CHECKS/render_score.py" "$GEO" "$dir" "$DATA" "$OUT/$group")"
  [[ "${t:-0}" -gt 0 ]] || continue
  passing="$(tr ' ' '\n' <<< "$per" | awk -F'[:/]' '$2 > 0 {printf "%s ", $1}')"
  echo "$group $o/$t ${passing:+($passing)}"
  ok=$((ok + o)); total=$((total + t))
done
echo "total $ok/$total"
