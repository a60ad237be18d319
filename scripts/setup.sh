#!/bin/sh
# Idempotent machine setup for building and testing LocationKit on Debian/Ubuntu.
set -e
# OSMImport: zlib headers for the CZlib system library; osmium is the PBF oracle in tests/benchmarks.
apt-get install -y zlib1g-dev osmium-tool
