#!/usr/bin/env python3
"""Prints every point gpxpy reads from a GPX file, as JSON, for the cross-reader tests.

Usage: gpx_points.py FILE
Output: {"waypoints": [P...], "routes": [[P...]...], "tracks": [[[P...]...]...]}
with P = [lat, lon, ele or null, POSIX time (float) or null, name or null].
"""
import json
import sys

import gpxpy


def point(p):
    t = p.time.timestamp() if p.time is not None else None
    return [p.latitude, p.longitude, p.elevation, t, p.name]


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        gpx = gpxpy.parse(f)
    out = {
        "waypoints": [point(p) for p in gpx.waypoints],
        "routes": [[point(p) for p in r.points] for r in gpx.routes],
        "tracks": [[[point(p) for p in s.points] for s in t.segments] for t in gpx.tracks],
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
