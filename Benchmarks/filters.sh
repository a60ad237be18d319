#!/usr/bin/env bash
# Rules + Kalman throughput: LocationKit's TrackCleaner (.automotiveNavigation) over a seeded
# 1,000,000-fix noisy drive, one fix at a time, against pykalman's online `filter_update`
# (the same constant-velocity model, position measurements) on the first PEER_N fixes of the
# same input, in the same run. Then the CLI end to end, as a user runs it: the same drive as a
# GPX file through `geo gpx clean` and `geo gpx smooth` (automotiveNavigation; read, filter,
# write GPX to a file), best of 3 (CPU = user + system; offline, so no stale rule).
# Usage: Benchmarks/filters.sh [fixes] [peer fixes]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
PEER_N=${2:-20000}
python3 -c "import pykalman" 2>/dev/null || { echo "pykalman missing (scripts/setup.sh)" >&2; exit 1; }
swift build -c release --package-path Benchmarks --product FilterBench >/dev/null
swift build -c release --product geo >/dev/null
GEO="$(swift build -c release --show-bin-path)/geo"
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/FilterBench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ours=$("$BENCH" "$N" --export "$tmp/fixes.csv" --gpx "$tmp/drive.gpx")
echo "$ours"
ours_rate=$(echo "$ours" | sed -n 's/^rules + Kalman.*CPU [0-9.]* s = \([0-9]*\) fixes\/s.*/\1/p')

peer_rate=$(python3 - "$tmp/fixes.csv" "$PEER_N" <<'PY'
import csv, sys, time
import numpy as np
from pykalman import KalmanFilter
path, n = sys.argv[1], int(sys.argv[2])
rows = []
with open(path) as f:
    for i, r in enumerate(csv.DictReader(f)):
        if i >= n: break
        rows.append((float(r["east"]), float(r["north"]), float(r["accuracy"]) / 1.5096))
q, dt = 2.5 ** 2, 1.0
F = np.eye(4); F[0, 2] = F[1, 3] = dt
Q = np.zeros((4, 4))
for i in range(2):
    Q[i, i] = q * dt ** 3 / 3; Q[i, i + 2] = Q[i + 2, i] = q * dt ** 2 / 2; Q[i + 2, i + 2] = q * dt
H = np.zeros((2, 4)); H[0, 0] = H[1, 1] = 1
kf = KalmanFilter(transition_matrices=F, observation_matrices=H, transition_covariance=Q)
mean = np.array([rows[0][0], rows[0][1], 0.0, 0.0]); cov = np.diag([rows[0][2] ** 2] * 2 + [25.0, 25.0])
best = float("inf")
for _ in range(3):
    m, c = mean, cov
    t0 = time.process_time()
    for e, nn, s in rows[1:]:
        m, c = kf.filter_update(m, c, observation=np.array([e, nn]), observation_covariance=np.eye(2) * s * s)
    best = min(best, time.process_time() - t0)
print(int((len(rows) - 1) / best))
PY
)
echo "pykalman filter_update (online, $PEER_N fixes, best of 3, CPU): $peer_rate fixes/s"
echo "ratio (CPU, LocationKit / pykalman): $(echo "scale=0; $ours_rate / $peer_rate" | bc)x"

for command in clean smooth; do
    best=$(for _ in 1 2 3; do
        /usr/bin/time -f "%e %U %S" "$GEO" gpx "$command" "$tmp/drive.gpx" --preset automotiveNavigation -o "$tmp/out.gpx" 2>&1 >/dev/null | tail -1
    done | awk '{ cpu = $2 + $3; if (NR == 1 || cpu < c) { c = cpu; w = $1 } } END { printf "%.2f %.2f", w, c }')
    set -- $best
    echo "geo gpx $command end to end ($N fixes, GPX file to file, best of 3): wall $1 s, CPU $2 s = $(echo "$N / $2" | bc) fixes/s"
done
