#!/usr/bin/env bash
# Region monitoring: FenceEngine throughput with 100,000 conditions (goal ≥ 100,000 fixes/s),
# then with 2,000 districts of 10–20 km radius besides,
# and the delay between true boundary crossings and events on drives simulated through
# Monaco's boundary polygon ($LOCATIONKIT_DATA/osm/monaco.poly). Usage: Benchmarks/monitor.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${LOCATIONKIT_DATA:-../shared/data}
swift build -c release --package-path Benchmarks --product MonitorBench >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/MonitorBench"
"$BENCH" throughput 100000 500000
"$BENCH" throughput 100000 500000 2000
"$BENCH" monaco "$DATA/osm/monaco.poly" 50
