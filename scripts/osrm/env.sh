# Sourced by the scripts that run OSRM (scripts/osrm, Benchmarks/routing.sh and match.sh): finds
# (or installs) OSRM from the PyPI package osrm-bindings in its own venv and sets BIN
# (osrm-extract, -contract, -routed) and PROFILES (car.lua, foot.lua, bicycle.lua), exported as
# OSRM_BIN and OSRM_PROFILES for scripts/osrm/osrm_server.py. The wheels are cp312-abi3 only,
# so the venv needs Python >= 3.12; pip on older Pythons falls back to a 38 MB source build.
VENV="${OSRM_VENV:-$HOME/.cache/locationkit/osrm-venv}"
if [ ! -x "$VENV/bin/python" ]; then
  PY=""
  for c in python3.13 python3.12 "$HOME/.pyenv/versions/3.12.1/bin/python3.12" /root/.pyenv/versions/3.12.1/bin/python3.12; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then PY="$c"; break; fi
  done
  [ -n "$PY" ] || { echo "osrm: osrm-bindings needs Python >= 3.12 (its wheels are cp312-abi3); none found" >&2; exit 2; }
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet osrm-bindings || { echo "osrm: 'pip install osrm-bindings' failed" >&2; exit 2; }
fi
OSRM_PKG="$("$VENV/bin/python" -c 'import os, osrm; print(os.path.dirname(osrm.__file__))')"
BIN="$OSRM_PKG/bin"
PROFILES="$OSRM_PKG/share/profiles"
export OSRM_BIN="$BIN" OSRM_PROFILES="$PROFILES"
"$BIN/osrm-extract" --version >/dev/null
