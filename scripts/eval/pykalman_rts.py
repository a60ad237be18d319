#!/usr/bin/env python3
"""The outside reference for `geo eval filters`: pykalman's Rauch-Tung-Striebel smoother.

For every DIR/<name>.input.csv written by `geo eval filters --export DIR`, builds the same
constant-velocity model as LocationKit's KalmanSmoother (state east, north, v_east, v_north;
white-acceleration process noise; each fix's accuracy as its position noise, a 68 % radius
being 1.5096 sigma per axis; reported speed and course as a velocity measurement) and writes
pykalman's smoothed positions to DIR/<name>.pykalman.csv (columns t,east,north).

pykalman has no innovation gate and no restart after gaps; where a velocity is not reported
its measurement gets a huge variance (pykalman masks only whole observation vectors).

Usage: pykalman_rts.py DIR
"""
import csv
import glob
import math
import os
import sys

import numpy as np
from pykalman import KalmanFilter

RADIUS_TO_SIGMA = 1 / math.sqrt(-2 * math.log(0.32))
UNINFORMATIVE = 1e8


def number(cell):
    return float(cell) if cell != "" else None


def velocity_measurement(speed, speed_accuracy, course, course_accuracy, params):
    """Mirrors KalmanSmoother.velocityMeasurement: (vector, 2x2 covariance) or None."""
    if speed is None or speed < 0:
        return None
    ss = speed_accuracy if speed_accuracy and speed_accuracy > 0 else params["assumed_speed_accuracy"]
    if course is None:
        if speed > ss:
            return None
        v = ss * ss + speed * speed
        return np.zeros(2), np.diag([v, v])
    c = math.radians(course)
    u = np.array([math.sin(c), math.cos(c)])
    w = np.array([u[1], -u[0]])
    cs = math.radians(course_accuracy if course_accuracy and course_accuracy > 0 else params["assumed_course_accuracy"])
    cross = max(ss, speed * min(cs, math.pi / 2))
    return u * speed, ss * ss * np.outer(u, u) + cross * cross * np.outer(w, w)


def smooth(path):
    with open(path) as f:
        header = f.readline().lstrip("# ").strip()
        params = {k: float(v) for k, v in (kv.split("=") for kv in header.split(","))}
        rows = list(csv.DictReader(f))
    n = len(rows)
    t = np.array([float(r["t"]) for r in rows])
    obs = np.zeros((n, 4))
    obs_cov = np.zeros((n, 4, 4))
    for k, r in enumerate(rows):
        acc = number(r["accuracy"])
        sigma = (acc if acc and acc > 0 else params["assumed_accuracy"]) * RADIUS_TO_SIGMA
        obs[k, :2] = [float(r["east"]), float(r["north"])]
        obs_cov[k, :2, :2] = np.eye(2) * sigma * sigma
        vm = velocity_measurement(number(r["speed"]), number(r["speed_accuracy"]), number(r["course"]),
                                  number(r["course_accuracy"]), params)
        if vm is None:
            obs_cov[k, 2:, 2:] = np.eye(2) * UNINFORMATIVE
        else:
            obs[k, 2:], obs_cov[k, 2:, 2:] = vm
    q = params["acceleration_noise"] ** 2
    dts = np.diff(t)
    trans = np.zeros((n - 1, 4, 4))
    trans_cov = np.zeros((n - 1, 4, 4))
    for k, dt in enumerate(dts):
        trans[k] = np.eye(4)
        trans[k, 0, 2] = trans[k, 1, 3] = dt
        for i in range(2):
            trans_cov[k, i, i] = q * dt ** 3 / 3
            trans_cov[k, i, i + 2] = trans_cov[k, i + 2, i] = q * dt ** 2 / 2
            trans_cov[k, i + 2, i + 2] = q * dt
    s0 = params["initial_speed_sigma"]
    kf = KalmanFilter(transition_matrices=trans, observation_matrices=np.eye(4),
                      transition_covariance=trans_cov, observation_covariance=obs_cov,
                      initial_state_mean=np.array([obs[0, 0], obs[0, 1], 0.0, 0.0]),
                      initial_state_covariance=np.diag([UNINFORMATIVE, UNINFORMATIVE, s0 * s0, s0 * s0]))
    means, _ = kf.smooth(obs)
    out = path.replace(".input.csv", ".pykalman.csv")
    with open(out, "w") as f:
        f.write("t,east,north\n")
        for k in range(n):
            f.write(f"{float(t[k])!r},{float(means[k, 0])!r},{float(means[k, 1])!r}\n")
    return out, n


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    paths = sorted(glob.glob(os.path.join(sys.argv[1], "*.input.csv")))
    if not paths:
        sys.exit(f"no *.input.csv in {sys.argv[1]}; run geo eval filters --export {sys.argv[1]} first")
    for p in paths:
        out, n = smooth(p)
        print(f"{out}: {n} fixes smoothed")


if __name__ == "__main__":
    main()
