#!/usr/bin/env python3
"""Writes Tests/GPXCodecTests/Fixtures/gpx-stats.json: gpxpy's statistics of every file in
../shared/data/gpx, plus reference values of LocationKit's own definitions computed with
GeographicLib (WGS84 geodesics), for GPXStatisticsTests.

Usage: scripts/oracles/gpx_stats.py [DATA_DIR] > Tests/GPXCodecTests/Fixtures/gpx-stats.json
Needs: pip install gpxpy geographiclib
"""
import json
import math
import os
import sys

import gpxpy
from geographiclib.geodesic import Geodesic


def segments(gpx):
    for t in gpx.tracks:
        for s in t.segments:
            yield s.points


def reference(gpx):
    """LocationKit's definitions (see GPXStatistics), with GeographicLib distances."""
    g = Geodesic.WGS84
    l2 = l3 = 0.0
    moving = 0.0
    max_speed = None
    timed_pair = False
    for pts in segments(gpx):
        for a, b in zip(pts, pts[1:]):
            d = g.Inverse(a.latitude, a.longitude, b.latitude, b.longitude)["s12"]
            l2 += d
            if a.elevation is not None and b.elevation is not None:
                l3 += math.sqrt(d * d + (b.elevation - a.elevation) ** 2)
            else:
                l3 += d
            if a.time is not None and b.time is not None:
                timed_pair = True
                dt = (b.time - a.time).total_seconds()
                if dt > 0:
                    v = d / dt
                    if v > 1 / 3.6:
                        moving += dt
                    max_speed = v if max_speed is None else max(max_speed, v)
    return {
        "length2D_m": l2,
        "length3D_m": l3,
        "movingTime_s": moving if timed_pair else None,
        "maxSpeed_mps": max_speed,
    }


def stats(path):
    with open(path, encoding="utf-8-sig") as f:
        gpx = gpxpy.parse(f)
    up, down = gpx.get_uphill_downhill()
    has_ele = any(p.elevation is not None for pts in segments(gpx) for p in pts)
    moving = gpx.get_moving_data()
    raw = gpx.get_moving_data(raw=True)
    b = gpx.get_bounds()
    return {
        "gpxpy": {
            "points": gpx.get_track_points_no(),
            "tracks": len(gpx.tracks),
            "segments": sum(len(t.segments) for t in gpx.tracks),
            "routes": len(gpx.routes),
            "waypoints": len(gpx.waypoints),
            "length2D_m": gpx.length_2d(),
            "length3D_m": gpx.length_3d(),
            "duration_s": gpx.get_duration(),
            "movingTime_s": moving.moving_time if moving else None,
            "elevationGain_m": up if has_ele else None,
            "elevationLoss_m": down if has_ele else None,
            "maxSpeed_mps": moving.max_speed if moving else None,
            "maxSpeedRaw_mps": raw.max_speed if raw else None,
            "bounds": [b.min_latitude, b.min_longitude, b.max_latitude, b.max_longitude] if b and b.min_latitude is not None else None,
        },
        "reference": reference(gpx),
    }


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/data")
    out = {}
    for sub in ("gpx/gpxpy", "gpx/graphhopper"):
        folder = os.path.join(data, sub)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".gpx"):
                out[f"{sub}/{name}"] = stats(os.path.join(folder, name))
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
