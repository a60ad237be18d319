#!/bin/sh
# Idempotent machine setup for building and testing LocationKit on Debian/Ubuntu.
set -e
# OSMImport: zlib headers for the CZlib system library; osmium is the PBF oracle in tests/benchmarks.
apt-get install -y zlib1g-dev osmium-tool
# Optional, only for scripts/osrm/compare.sh and Benchmarks/routing.sh (the OSRM oracle):
# OSRM from PyPI (osrm-bindings ships osrm-extract/-contract/-routed and the Lua profiles;
# cp312-abi3 wheels only, so it goes into its own Python >= 3.12 venv). Set OSRM_SETUP=1.
if [ "${OSRM_SETUP:-0}" = "1" ]; then
  sh -c ". '$(dirname "$0")/osrm/env.sh'"
fi
