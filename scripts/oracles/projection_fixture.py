#!/usr/bin/env python3
"""Writes Tests/GeoCoreTests/Fixtures/projections.tsv from outside oracles.

ECEF and Web Mercator values come from PROJ (pyproj: EPSG:4979 -> EPSG:4978 and
EPSG:4326 -> EPSG:3857); tiles, tile bounds and quadkeys come from mercantile.
Regenerate with: pip install pyproj mercantile && python3 scripts/oracles/projection_fixture.py
"""
import random, pathlib
import mercantile
from pyproj import Transformer

rng = random.Random(20261121)
ecef = Transformer.from_crs("EPSG:4979", "EPSG:4978", always_xy=True)
merc = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
out = pathlib.Path(__file__).resolve().parents[2] / "Tests/GeoCoreTests/Fixtures/projections.tsv"
rows = ["# kind\tinputs...\texpected... (see projection_fixture.py)"]
points = [(0, 0, 0), (90, 0, 0), (-90, 45, 100), (45, 179.999, -50), (-33.8688, 151.2093, 58), (52.52, 13.40, 34)]
points += [(rng.uniform(-90, 90), rng.uniform(-180, 180), rng.uniform(-500, 9000)) for _ in range(300)]
for lat, lon, h in points:
    x, y, z = ecef.transform(lon, lat, h)
    rows.append(f"ecef\t{lat!r}\t{lon!r}\t{h!r}\t{x!r}\t{y!r}\t{z!r}")
for _ in range(300):
    lat, lon = rng.uniform(-85, 85), rng.uniform(-180, 180)
    x, y = merc.transform(lon, lat)
    rows.append(f"mercator\t{lat!r}\t{lon!r}\t{x!r}\t{y!r}")
for _ in range(300):
    lat, lon, z = rng.uniform(-85, 85), rng.uniform(-180, 180), rng.randint(0, 22)
    t = mercantile.tile(lon, lat, z)
    b = mercantile.bounds(t)
    rows.append(f"tile\t{lat!r}\t{lon!r}\t{z}\t{t.x}\t{t.y}\t{b.south!r}\t{b.west!r}\t{b.north!r}\t{b.east!r}\t{mercantile.quadkey(t)}")
out.write_text("\n".join(rows) + "\n")
print(f"wrote {len(rows) - 1} cases to {out}")
