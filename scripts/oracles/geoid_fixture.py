#!/usr/bin/env python3
"""Writes Tests/GeoCoreTests/Fixtures/geoid-egm96.tsv: EGM96 geoid heights from PROJ.

Each row is latitude, longitude (degrees), the geoid height N above WGS84 (metres) that
PROJ's cct computes with `+proj=vgridshift +grids=egm96_15.gtx +multiplier=1` (bilinear
interpolation in Debian proj-data's 15' EGM96 grid) for an ellipsoidal height of 0, and
whether the point is a named place or a random one.
Points: named places (poles, the antimeridian, the steepest geoid on land, the gpsd test
log's river), then seeded uniform random ones.
Regenerate with: apt-get install proj-bin && python3 scripts/oracles/geoid_fixture.py
"""
import pathlib, random, subprocess

rng = random.Random(20261123)
named = [
    (90, 0), (-90, 0), (0, 0), (0, -180), (0, 179.9), (45.1, 179.99), (-12.3, -179.99),
    (44.435216667, -71.675993333),  # humminbird-M37.log, Connecticut River (gpsd test data)
    (10.75, -73.75), (28.25, -16.75), (19.75, -155.25), (30.25, 79.75), (-2.25, -78.25),  # steep geoid on land
    (11.35, 142.2), (-4.5, 140.0), (52.52, 13.40), (-33.8688, 151.2093), (35.6762, 139.6503),
]
points = named + [(rng.uniform(-90, 90), rng.uniform(-180, 180)) for _ in range(400)]
stdin = "".join(f"{lon!r} {lat!r} 0 0\n" for lat, lon in points)
out = subprocess.run(["cct", "-d", "6", "+proj=vgridshift", "+grids=egm96_15.gtx", "+multiplier=1"],
                     input=stdin, capture_output=True, text=True, check=True).stdout.split("\n")
version = subprocess.run(["proj"], capture_output=True, text=True).stderr.split(",")[0].strip()  # "Rel. 9.1.1"
rows = [f"# latitude\tlongitude\tN metres\tkind (PROJ cct vgridshift egm96_15.gtx; {version}; see scripts/oracles/geoid_fixture.py)"]
for i, ((lat, lon), line) in enumerate(zip(points, out)):
    n = float(line.split()[2])
    assert abs(n) < 200, f"PROJ gave no geoid height at {lat}, {lon}: {line}"
    rows.append(f"{lat!r}\t{lon!r}\t{n!r}\t{'named' if i < len(named) else 'random'}")
path = pathlib.Path(__file__).resolve().parents[2] / "Tests/GeoCoreTests/Fixtures/geoid-egm96.tsv"
path.write_text("\n".join(rows) + "\n")
print(f"wrote {len(rows) - 1} points to {path}")
