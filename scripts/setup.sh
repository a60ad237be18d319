#!/bin/sh
# Tools the tests and benchmarks call (idempotent). GPX cross-readers: xmllint, gpsbabel, gpxpy.
set -e
apt-get install -y --no-install-recommends libxml2-utils gpsbabel python3-pip >/dev/null
pip install --quiet gpxpy geographiclib 2>/dev/null || pip install --quiet --break-system-packages gpxpy geographiclib
