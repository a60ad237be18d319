#!/usr/bin/env python3
"""Writes Tests/MapCameraTests/Fixtures/globe-nsper.tsv: globe cameras against PROJ.

An untilted MapCamera globe view is the vertical near-side perspective projection (Snyder 1987,
§23) seen from the camera's altitude. For each camera (centre, zoom, view height; MapLibre's
512-px world and 36.87° field of view) this script derives that altitude h in metres the way
MapLibre GL JS 5 sizes its globe (radius worldSize / (2π cos φ0) pixels), then asks PROJ
(+proj=nsper +R=6378137 +h=h, via pyproj) for the projected x, y in metres of points on the
visible side of the sphere. Expected screen offsets are x, y scaled by pixels per metre at the
centre; with an orientation the script rotates them (the only arithmetic here besides h).
Tilted cameras (kind "tpers") are PROJ's tilted perspective (+proj=tpers): MapLibre's camera
stands D = 1.5 · view height pixels from the centre, tilted t towards the viewer; this script
turns that into the camera's nadir, altitude h, tilt ω from the nadir and azimuth γ towards the
centre (spherical trigonometry), asks PROJ for x, y on the image plane (perpendicular to the view
axis, H cos ω from the camera), and scales them by D / (H cos ω) about the centre's image.
Regenerate with: pip install pyproj && python3 scripts/oracles/globe_fixture.py
"""
import math, pathlib, random
from pyproj import Transformer

R = 6378137.0
FOV = 0.6435011087932844  # MapLibre's default, radians
rng = random.Random(20261124)
out = pathlib.Path(__file__).resolve().parents[2] / "Tests/MapCameraTests/Fixtures/globe-nsper.tsv"
rows = ["# kind\tlat0\tlon0\tzoom\torientation\ttilt\twidth\theight\th_m\tlat\tlon\tscreen_dx_px\tscreen_dy_px (see globe_fixture.py)"]
cameras = [(0, 0, 1, 0, 600, 600), (-15, 140, 1.5, 0, 600, 600), (48.85, 2.35, 3, 30, 1280, 720),
           (-60, -70, 2, 200, 800, 800), (70, 100, 0.5, 0, 1024, 768), (35.68, 139.77, 6, 90, 1280, 720)]
cameras += [(rng.uniform(-80, 80), rng.uniform(-180, 180), rng.uniform(0, 9), rng.choice([0, rng.uniform(0, 360)]),
             rng.choice([512, 800, 1280]), rng.choice([512, 600, 720])) for _ in range(14)]
for lat0, lon0, zoom, orient, w, h in cameras:
    world = 512 * 2 ** zoom
    radius_px = world / (2 * math.pi * math.cos(math.radians(lat0)))
    dist_px = 0.5 * h / math.tan(FOV / 2)
    h_m = dist_px * R / radius_px
    nsper = Transformer.from_crs("EPSG:4326", f"+proj=nsper +R={R} +h={h_m!r} +lat_0={lat0!r} +lon_0={lon0!r} +x_0=0 +y_0=0 +type=crs", always_xy=True)
    px_per_m = radius_px / R
    # Points on the visible cap: angular distance c from the centre with cos c > R / (R + h).
    cmax = math.acos(R / (R + h_m))
    n = 0
    while n < 25:
        c, az = rng.uniform(0, 0.98 * cmax), rng.uniform(0, 2 * math.pi)
        p0, l0 = math.radians(lat0), math.radians(lon0)
        lat = math.asin(math.sin(p0) * math.cos(c) + math.cos(p0) * math.sin(c) * math.cos(az))
        lon = l0 + math.atan2(math.sin(az) * math.sin(c) * math.cos(p0), math.cos(c) - math.sin(p0) * math.sin(lat))
        lat, lon = math.degrees(lat), (math.degrees(lon) + 180) % 360 - 180
        if abs(lat) > 89.9:
            continue
        x, y = nsper.transform(lon, lat)
        if not (math.isfinite(x) and math.isfinite(y)):
            continue
        east, south = x * px_per_m, -y * px_per_m
        b = math.radians(orient)
        dx, dy = east * math.cos(b) + south * math.sin(b), -east * math.sin(b) + south * math.cos(b)
        rows.append("nsper\t" + "\t".join(repr(v) for v in (lat0, lon0, zoom, orient, 0.0, w, h, h_m, lat, lon, dx, dy)))
        n += 1


def destination(lat, lon, bearing, distance):
    """The point `distance` radians from (lat, lon) along `bearing`, degrees (great circle)."""
    p0, l0, az = math.radians(lat), math.radians(lon), math.radians(bearing)
    p = math.asin(math.sin(p0) * math.cos(distance) + math.cos(p0) * math.sin(distance) * math.cos(az))
    l = l0 + math.atan2(math.sin(az) * math.sin(distance) * math.cos(p0), math.cos(distance) - math.sin(p0) * math.sin(p))
    return math.degrees(p), (math.degrees(l) + 180) % 360 - 180


def azimuth(lat1, lon1, lat2, lon2):
    p1, l1, p2, l2 = map(math.radians, (lat1, lon1, lat2, lon2))
    return math.degrees(math.atan2(math.sin(l2 - l1) * math.cos(p2), math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(l2 - l1)))


tilted = [(30, 10, 3, 40, 35, 800, 600), (-33.9, 18.4, 5, 0, 20, 1280, 720), (60, -150, 2, 300, 25, 600, 600)]
tilted += [(rng.uniform(-70, 70), rng.uniform(-180, 180), rng.uniform(1, 9), rng.uniform(0, 360), rng.uniform(5, 30),
            rng.choice([600, 1280]), rng.choice([600, 720])) for _ in range(12)]
for lat0, lon0, zoom, orient, tilt, w, h in tilted:
    world = 512 * 2 ** zoom
    radius_px = world / (2 * math.pi * math.cos(math.radians(lat0)))
    d_px = 0.5 * h / math.tan(FOV / 2)
    d_m, t = d_px * R / radius_px, math.radians(tilt)
    back, up = d_m * math.sin(t), d_m * math.cos(t)  # camera: behind the centre and above it
    alpha = math.atan2(back, R + up)  # centre to nadir, radians
    h_m = math.hypot(back, R + up) - R
    omega = t - alpha  # angle at the camera between the nadir and the centre
    nadir = destination(lat0, lon0, orient + 180, alpha)
    gamma = azimuth(nadir[0], nadir[1], lat0, lon0)
    tp = Transformer.from_crs("EPSG:4326", f"+proj=tpers +R={R} +h={h_m!r} +lat_0={nadir[0]!r} +lon_0={nadir[1]!r} "
                              f"+tilt={math.degrees(omega)!r} +azi={gamma!r} +x_0=0 +y_0=0 +type=crs", always_xy=True)
    xc, yc = tp.transform(lon0, lat0)
    k = d_px / (h_m * math.cos(omega))
    n = 0
    while n < 20:
        # Points around the centre within a third of the view, all on the near side.
        p = destination(lat0, lon0, rng.uniform(0, 360), rng.uniform(0, 1) * (h / 3) / radius_px)
        x, y = tp.transform(p[1], p[0])
        if not (math.isfinite(x) and math.isfinite(y)):
            continue
        rows.append("tpers\t" + "\t".join(repr(v) for v in (lat0, lon0, zoom, orient, tilt, w, h, h_m, p[0], p[1], k * (x - xc), -k * (y - yc))))
        n += 1
out.write_text("\n".join(rows) + "\n")
print(f"wrote {len(rows) - 1} cases to {out}")
