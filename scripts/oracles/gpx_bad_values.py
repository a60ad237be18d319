#!/usr/bin/env python3
"""Writes Tests/GPXCodecTests/Fixtures/gpx-bad-values.json: what gpxpy and GPSBabel read from
every file in ../shared/data/gpx after one of two real-world damages, for GPXWarningTests.

Variants (the Swift test applies the same regular expressions):
  emptyEle  every <ele>…</ele> becomes <ele/> (a popular cycling service's export)
  badFix    <fix>something_not_in_the_spec</fix> before every </trkpt>

For each: gpxpy's counts and 2D length (or its error), and GPSBabel's reading (gpsbabel -i gpx
… -o gpx, then counted and measured by gpxpy: GPSBabel has no length report of its own).

Usage: scripts/oracles/gpx_bad_values.py [DATA_DIR] > Tests/GPXCodecTests/Fixtures/gpx-bad-values.json
Needs: pip install gpxpy; gpsbabel on PATH.
"""
import json
import os
import re
import subprocess
import sys

import gpxpy

VARIANTS = {
    "emptyEle": (rb"<ele>[^<]*</ele>", b"<ele/>"),
    "badFix": (rb"</trkpt>", b"<fix>something_not_in_the_spec</fix></trkpt>"),
}


def summary(gpx):
    return {
        "points": gpx.get_track_points_no(),
        "tracks": len(gpx.tracks),
        "segments": sum(len(t.segments) for t in gpx.tracks),
        "routes": len(gpx.routes),
        "routePoints": sum(len(r.points) for r in gpx.routes),
        "waypoints": len(gpx.waypoints),
        "length2D_m": gpx.length_2d(),
        "elevations": sum(1 for t in gpx.tracks for s in t.segments for p in s.points if p.elevation is not None),
    }


def with_gpxpy(data):
    try:
        return summary(gpxpy.parse(data.decode("utf-8-sig")))
    except Exception as error:  # gpxpy rejects the file: record why
        return {"error": str(error)}


def with_gpsbabel(data):
    run = subprocess.run(["gpsbabel", "-i", "gpx", "-f", "-", "-o", "gpx", "-F", "-"], input=data,
                         capture_output=True)
    if run.returncode != 0:
        return {"error": run.stderr.decode(errors="replace").strip()}
    return with_gpxpy(run.stdout)


def main():
    data_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/data")
    out = {}
    for sub in ("gpx/gpxpy", "gpx/graphhopper"):
        folder = os.path.join(data_dir, sub)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".gpx"):
                continue
            with open(os.path.join(folder, name), "rb") as f:
                original = f.read()
            entry = {}
            for variant, (pattern, replacement) in VARIANTS.items():
                damaged, count = re.subn(pattern, replacement, original)
                entry[variant] = {"replacements": count, "gpxpy": with_gpxpy(damaged), "gpsbabel": with_gpsbabel(damaged)}
            out[f"{sub}/{name}"] = entry
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
