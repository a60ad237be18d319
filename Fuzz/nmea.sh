#!/usr/bin/env bash
# Builds the NMEACodec libFuzzer harness (swiftc -sanitize=fuzzer,address) and runs it.
# Usage: Fuzz/nmea.sh [seconds]   (default 600). Crashes land in Fuzz/NMEAFuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-600}"
B=/tmp/nmea-fuzz-build
mkdir -p "$B" Fuzz/NMEAFuzz/artifacts "$B/corpus"
# GeoCore as its own module (NMEACodec imports it), instrumented too.
ROOT="$(pwd)"
# Compile inside the scratch folder so swiftc's side outputs stay out of the repository.
(cd "$B" && swiftc -wmo -parse-as-library -sanitize=fuzzer,address -O -g -module-name GeoCore \
  -emit-module -emit-module-path "$B/GeoCore.swiftmodule" -emit-object -o "$B/GeoCore.o" "$ROOT"/Sources/GeoCore/*.swift)
(cd "$B" && swiftc -wmo -parse-as-library -sanitize=fuzzer,address -O -g -module-name NMEAFuzz -I "$B" \
  "$ROOT"/Sources/NMEACodec/*.swift "$ROOT"/Fuzz/NMEAFuzz/main.swift "$B/GeoCore.o" -o "$B/nmea-fuzz")
# The committed seeds are copied into a scratch corpus so the run never edits the repository.
rm -rf "$B/corpus" && mkdir -p "$B/corpus" && cp Fuzz/NMEAFuzz/seeds/* "$B/corpus/"
"$B/nmea-fuzz" "$B/corpus" -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
  -max_total_time="$SECONDS_TO_RUN" -artifact_prefix=Fuzz/NMEAFuzz/artifacts/ -print_final_stats=1
