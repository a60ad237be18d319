#!/usr/bin/env python3
"""Oracle fixture for KalmanSmoother.smoothed: a seeded noisy walk smoothed by pykalman.

Writes Tests/TrackFilteringTests/Fixtures/rts-pykalman.csv: the model in a header comment,
then per fix t,east,north,accuracy,speed,speed_accuracy,course,course_accuracy (the input,
plane metres) and expected_east,expected_north (pykalman's RTS means). The model is the one
scripts/eval/pykalman_rts.py builds (shared code), so the test checks LocationKit's smoother
against an independent implementation of the same equations.

Usage: python3 scripts/oracles/rts_fixture.py
"""
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "eval"))
import pykalman_rts  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "TrackFilteringTests", "Fixtures", "rts-pykalman.csv")
PARAMS = {"acceleration_noise": 0.5, "initial_speed_sigma": 5.0, "assumed_speed_accuracy": 1.0,
          "assumed_course_accuracy": 15.0, "assumed_accuracy": 10.0}


def main():
    rng = np.random.RandomState(20240601)
    rows = []
    e = n = 0.0
    heading = 30.0
    for k in range(240):
        if k:
            heading += 0.0 if (k // 60) % 2 == 0 else 1.5   # straight, then a gentle curve, …
            speed_true = 1.4 + 0.3 * math.sin(k / 20)
            e += speed_true * math.sin(math.radians(heading))
            n += speed_true * math.cos(math.radians(heading))
        else:
            speed_true = 1.4
        sigma = 3.0
        # The first fix sits at the plane origin, so the test's plane and the filter's coincide.
        me, mn = (0.0, 0.0) if k == 0 else (e + sigma * rng.randn(), n + sigma * rng.randn())
        accuracy = sigma / pykalman_rts.RADIUS_TO_SIGMA
        speed = max(0.0, speed_true + 0.2 * rng.randn())
        course = (heading + 4 * rng.randn()) % 360 if k % 7 else None    # some fixes lack a course
        rows.append([float(k), me, mn, accuracy, speed, 0.2, course, 4.0 if course is not None else None])
    tmp = OUT + ".input.csv"
    with open(tmp, "w") as f:
        f.write("# " + ",".join(f"{k}={v}" for k, v in PARAMS.items()) + "\n")
        f.write("t,east,north,accuracy,speed,speed_accuracy,course,course_accuracy\n")
        for r in rows:
            f.write(",".join("" if v is None else repr(float(v)) for v in r) + "\n")
    smoothed, _ = pykalman_rts.smooth(tmp)
    expected = [line.strip().split(",") for line in open(smoothed).readlines()[1:]]
    os.remove(tmp)
    os.remove(smoothed)
    with open(OUT, "w") as f:
        f.write("# " + ",".join(f"{k}={v}" for k, v in PARAMS.items()) + "\n")
        f.write("t,east,north,accuracy,speed,speed_accuracy,course,course_accuracy,expected_east,expected_north\n")
        for r, x in zip(rows, expected):
            f.write(",".join("" if v is None else repr(float(v)) for v in r) + f",{x[1]},{x[2]}\n")
    print(f"wrote {OUT}: {len(rows)} fixes")


if __name__ == "__main__":
    main()
