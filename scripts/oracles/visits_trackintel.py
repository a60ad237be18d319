"""Compares `geo visits` with trackintel's stay points (PyPI trackintel 1.4.2,
`generate_staypoints(method="sliding")`, Li et al. 2008) on the same GPX tracks: seeded
synthetic days (stays of 2-40 min, red lights of 30-180 s, walking and driving, correlated
noise) and any real GPX files given.

    python3 -m venv v && v/bin/pip install trackintel==1.4.2
    v/bin/python scripts/oracles/visits_trackintel.py .build/debug/geo [more.gpx ...]

Both use 75 m and 5 minutes. trackintel measures the distance from a stay's first fix,
LocationKit from the running mean of the stay; so the two differ by seconds at the ends.
"""
import datetime, json, math, os, random, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

import geopandas as gpd
import pandas as pd
import trackintel as ti
from shapely.geometry import Point

DIST, MINUTES = 75.0, 5.0
T0 = datetime.datetime(2026, 7, 14, 6, tzinfo=datetime.timezone.utc)


def synthetic(seed, path):
    """A day of stays joined by drives or walks; returns the true stays (lat, lon, t0, t1)."""
    r = random.Random(seed); lat0, lon0 = 48.0 + r.uniform(-20, 20), r.uniform(-150, 150)
    m_lat = 111132.954; m_lon = m_lat * math.cos(math.radians(lat0))
    ex = ey = 0.0; a = math.exp(-1 / 20.0); i = 0; x = y = 0.0; truth = []; pts = []
    def fix(px, py, sigma):
        nonlocal ex, ey, i
        ex = a * ex + r.gauss(0, sigma * math.sqrt(1 - a * a)); ey = a * ey + r.gauss(0, sigma * math.sqrt(1 - a * a))
        pts.append((lat0 + (py + ey) / m_lat, lon0 + (px + ex) / m_lon, i)); i += 1
    for k in range(r.randint(3, 6)):
        secs = r.choice((120, 200, 420, 900, 1800, 2400))
        start = i
        for _ in range(secs): fix(x, y, r.choice((4.0, 6.0, 10.0)))
        if secs >= MINUTES * 60: truth.append((lat0 + y / m_lat, lon0 + x / m_lon, start, i - 1))
        speed = r.choice((1.4, 12.0)); L = r.uniform(600, 3000); ang = r.uniform(0, 2 * math.pi)
        x2, y2 = x + L * math.cos(ang), y + L * math.sin(ang); steps = int(L / speed)
        light = r.randint(30, 180) if speed > 5 else 0
        for j in range(1, steps + 1):
            fx, fy = x + (x2 - x) * j / steps, y + (y2 - y) * j / steps
            for _ in range(light if j == steps // 2 else 1): fix(fx, fy, 4.0)
        x, y = x2, y2
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?><gpx version="1.1" creator="oracle" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\n')
        for la, lo, t in pts:
            f.write('<trkpt lat="%.8f" lon="%.8f"><time>%s</time></trkpt>\n' % (la, lo, (T0 + datetime.timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%SZ")))
        f.write("</trkseg></trk></gpx>\n")
    return truth


def read_gpx(path):
    ns = {"g": "http://www.topografix.com/GPX/1/1"}
    root = ET.parse(path).getroot()
    tag = root.tag.split("}")[0] + "}" if root.tag.startswith("{") else ""
    rows = []
    for p in root.iter(tag + "trkpt"):
        t = p.find(tag + "time")
        if t is None: continue
        rows.append((float(p.get("lat")), float(p.get("lon")), pd.Timestamp(t.text.strip()).tz_convert("UTC") if pd.Timestamp(t.text.strip()).tzinfo else pd.Timestamp(t.text.strip()).tz_localize("UTC")))
    return rows


def trackintel_stays(path):
    rows = read_gpx(path)
    if not rows: return []
    pfs = gpd.GeoDataFrame({"user_id": 0, "tracked_at": [t for _, _, t in rows]},
                           geometry=[Point(lo, la) for la, lo, _ in rows], crs="EPSG:4326")
    pfs = ti.Positionfixes(pfs)
    _, sp = pfs.generate_staypoints(method="sliding", distance_metric="haversine", dist_threshold=DIST,
                                    time_threshold=MINUTES, gap_threshold=1e9, include_last=True, print_progress=False)
    return [(g.y, g.x, s.timestamp(), e.timestamp()) for g, s, e in zip(sp.geometry, sp.started_at, sp.finished_at)]


def geo_stays(geo, path):
    out = subprocess.run([geo, "visits", path, "--radius", str(DIST), "--min-duration", str(MINUTES * 60)],
                         capture_output=True, text=True, check=True).stdout
    ts = lambda s: None if s is None else datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
    return [(v["latitude"], v["longitude"], ts(v["arrivalDate"]), ts(v["departureDate"]) or ts(v.get("lastFixDate")))
            for v in map(json.loads, out.splitlines())]


def metres(a, b):
    return math.hypot((a[0] - b[0]) * 111133, (a[1] - b[1]) * 111133 * math.cos(math.radians(a[0])))


def compare(name, ours, theirs):
    matched, dt_arr, dt_dep, dist = 0, [], [], []
    for o in ours:
        best = min(theirs, key=lambda t: metres(o, t), default=None)
        if best is None or metres(o, best) > 50: continue
        matched += 1; dist.append(metres(o, best))
        if o[2] is not None: dt_arr.append(o[2] - best[2])
        if o[3] is not None: dt_dep.append(o[3] - best[3])
    fmt = lambda v: "%+.0f..%+.0f s" % (min(v), max(v)) if v else "-"
    print("%-28s ours %2d  trackintel %2d  matched %2d  centre ≤ %4.1f m  arrival %s  departure %s"
          % (name, len(ours), len(theirs), matched, max(dist, default=0), fmt(dt_arr), fmt(dt_dep)))
    return len(ours), len(theirs), matched


def main():
    geo = sys.argv[1]; totals = [0, 0, 0]; truth_found = [0, 0, 0]; errors = ([], [])
    with tempfile.TemporaryDirectory() as d:
        for seed in range(20):
            path = os.path.join(d, "day%02d.gpx" % seed); truth = synthetic(seed, path)
            t0 = T0.timestamp()
            truth = [(la, lo, t0 + s, t0 + e) for la, lo, s, e in truth]
            ours, theirs = geo_stays(geo, path), trackintel_stays(path)
            for k, v in enumerate(compare("synthetic seed %d" % seed, ours, theirs)): totals[k] += v
            for k, found in enumerate((ours, theirs)):
                truth_found[k] += sum(any(metres(t, f) <= 50 for f in found) for t in truth)
                for t in truth:   # end-of-track stays have no departure; a first stay no arrival
                    f = min(found, key=lambda f: metres(t, f), default=None)
                    if f is None or metres(t, f) > 50: continue
                    errors[k].extend(abs(x - y) for x, y in ((f[2], t[2]), (f[3], t[3])) if x is not None and t[2] > T0.timestamp())
            truth_found[2] += len(truth)
    for path in sys.argv[2:]:
        compare(os.path.basename(path), geo_stays(geo, path), trackintel_stays(path))
    print("synthetic totals: ours %d, trackintel %d, matched %d; true stays ≥ 5 min found: ours %d, trackintel %d of %d"
          % (*totals, *truth_found))
    for name, e in zip(("ours", "trackintel"), errors):
        e.sort(); print("%s: |arrival or departure − truth| median %.0f s, 90th percentile %.0f s, max %.0f s"
                        % (name, e[len(e) // 2], e[int(len(e) * 0.9)], e[-1]))


main()
