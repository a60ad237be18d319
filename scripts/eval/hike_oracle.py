#!/usr/bin/env python3
"""What any linear smoother could reach on the wide hike set of `geo eval filters` (issue 34 §2).

An oracle that knows what no smoother of a GPX file knows: the error model the evaluation drew
the fixes from (GNSSErrorModel.sparseHike: per axis 4 m of Gauss-Markov noise correlated over
60 s plus 1.5 m of white noise, both scaled to 2 or 10 m horizontal RMS by the noise patterns),
which fixes are the 60-200 m jumps (farther than JUMP_METRES from the truth: left out), and the
truth itself, to pick the process noise. Each axis is a constant-velocity state with white
acceleration q (m²/s³) plus the correlated noise as a first-order Gauss-Markov state
(x_bias' = -x_bias / tau + w; Gelb, *Applied Optimal Estimation*, 1974, §4.5: coloured
measurement noise by state augmentation), Rauch-Tung-Striebel smoothed. For every walk and
pattern it runs each q of Q_GRID on every seed and prints, for the q whose worst seed has the
smallest length error (a q tuned per walk and pattern on the truth), the length error and the
RMSE as a multiple of the raw fixes', mean and worst seed, as `geo eval filters` measures
them: lengths against the truth at the fixes' times, RMSE over the fixes kept against the raw
fixes' over all.

Usage: geo eval filters --cases wide --export DIR; hike_oracle.py DIR [PATTERN-SLUG ...]
(default: every pattern but "every-1-s", whose 2,500 fixes a seed make this slow).
"""
import collections
import glob
import math
import os
import re
import sys

import numpy as np

#: sparseHike's Gauss-Markov and white noise per axis (m) and correlation time (s).
CORRELATED, WHITE, TAU = 4.0, 1.5, 60.0
#: Horizontal RMS (m) of the patterns that rescale both noises (GNSSErrorModel.withNoise).
NOISE_RMS = {"10-s-noise-2-m": 2.0, "10-s-noise-10-m": 10.0}
#: A fix this far from the truth is a jump (sparseHike's jumps are 60-200 m).
JUMP_METRES = 40.0
Q_GRID = (1e-4, 2e-4, 3e-4, 5e-4, 7e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2)


def load(path):
    """A wide-<walk>-<pattern>-<seed>.csv: {pipeline: array of (seconds, east, north)}."""
    rows = collections.defaultdict(list)
    with open(path) as f:
        next(f)
        for line in f:
            name, t, e, n = line.rstrip("\n").split(",")
            rows[name].append((float(t), float(e), float(n)))
    return {k: np.array(v) for k, v in rows.items()}


def noise(pattern):
    """The pattern's (correlated, white) per-axis sigmas, m."""
    rms = NOISE_RMS.get(pattern)
    if rms is None:
        return CORRELATED, WHITE
    scale = rms / math.sqrt(2 * (CORRELATED ** 2 + WHITE ** 2))
    return CORRELATED * scale, WHITE * scale


def smooth(t, z, q, correlated, white):
    """RTS-smoothed positions (n × 2) of fixes z (n × 2, m) at times t (s); state per axis
    (position, velocity, correlated error), the fix measuring position + correlated error."""
    n = len(t)
    out = np.zeros((n, 2))
    h = np.array([1.0, 0.0, 1.0])
    c2, w2 = correlated ** 2, white ** 2
    for axis in range(2):
        filtered, covariances, predicted, predicted_cov, transitions = [], [], [], [], []
        x = np.array([z[0, axis], 0.0, 0.0])
        p = np.diag([1e6, 25.0, c2])
        f = np.eye(3)
        for k in range(n):
            if k > 0:
                dt = t[k] - t[k - 1]
                phi = math.exp(-dt / TAU)
                f = np.array([[1, dt, 0], [0, 1, 0], [0, 0, phi]])
                qm = np.array([[q * dt ** 3 / 3, q * dt ** 2 / 2, 0], [q * dt ** 2 / 2, q * dt, 0],
                               [0, 0, c2 * (1 - phi * phi)]])
                x = f @ x
                p = f @ p @ f.T + qm
            predicted.append(x)
            predicted_cov.append(p)
            transitions.append(f)
            gain = p @ h / (h @ p @ h + w2)
            x = x + gain * (z[k, axis] - h @ x)
            p = p - np.outer(gain, h @ p)
            filtered.append(x)
            covariances.append(p)
        xs = filtered[-1]
        smoothed = [xs]
        for k in range(n - 2, -1, -1):
            c = covariances[k] @ transitions[k + 1].T @ np.linalg.inv(predicted_cov[k + 1])
            xs = filtered[k] + c @ (xs - predicted[k + 1])
            smoothed.append(xs)
        out[:, axis] = np.array(smoothed[::-1])[:, 0]
    return out


def length(points):
    return float(np.sum(np.linalg.norm(np.diff(points, axis=0), axis=1)))


def prepare(path):
    """One seed's file as the oracle needs it: fix times, fixes, the truth at those times (all
    n × 2, m), which fixes are not jumps, the truth's length and the raw fixes' RMSE (m)."""
    d = load(path)
    raw, truth = d["raw"], d["truth"]
    t, z = raw[:, 0], raw[:, 1:3]
    at = np.stack([np.interp(t, truth[:, 0], truth[:, 1]), np.interp(t, truth[:, 0], truth[:, 2])], 1)
    raw_rmse = math.sqrt(np.mean(np.sum((z - at) ** 2, 1)))
    return t, z, at, np.linalg.norm(z - at, axis=1) < JUMP_METRES, length(at), raw_rmse


def run(seed, pattern, q):
    """(length error %, RMSE × raw) of the oracle on one prepared seed."""
    t, z, at, kept, truth_length, raw_rmse = seed
    s = smooth(t[kept], z[kept], q, *noise(pattern))
    rmse = math.sqrt(np.mean(np.sum((s - at[kept]) ** 2, 1)))
    return (length(s) - truth_length) / truth_length * 100, rmse / raw_rmse


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder, wanted = sys.argv[1], set(sys.argv[2:])
    runs = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(folder, "wide-*.csv"))):
        m = re.fullmatch(r"wide-(walk-[a-z]+)-(.+)-(\d+)\.csv", os.path.basename(path))
        if m and (m.group(2) in wanted or (not wanted and m.group(2) != "every-1-s")):
            runs[(m.group(1), m.group(2))].append(path)
    if not runs:
        sys.exit("no wide-*.csv in %s: run geo eval filters --cases wide --export %s" % (folder, folder))
    print("| walk | pattern | seeds | best q m²/s³ | length error % mean (worst) | RMSE × raw mean (worst) |")
    print("|---|---|---:|---:|---:|---:|")
    for (walk, pattern), paths in sorted(runs.items()):
        seeds = [prepare(p) for p in paths]
        best = None
        for q in Q_GRID:
            results = np.array([run(seed, pattern, q) for seed in seeds])
            worst = results[np.argmax(np.abs(results[:, 0])), 0]
            if best is None or abs(worst) < abs(best[1]):
                best = (q, worst, results)
        q, worst, results = best
        print("| %s | %s | %d | %g | %.2f (%.2f) | %.2f (%.2f) |" % (
            walk, pattern, len(paths), q, results[:, 0].mean(), worst, results[:, 1].mean(), results[:, 1].max()),
            flush=True)


if __name__ == "__main__":
    main()
