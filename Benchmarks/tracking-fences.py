#!/usr/bin/env python3
"""Fences for Benchmarks/tracking.sh FENCES=N (issue 35): N fences where `geo loadgen`'s devices
start (48–49° N, 2–3° E), half OSM polygons and half circles, written as the GeoJSON that
`geo serve-tracking --fences` reads and as a tab-separated file (id, WKT, radius in metres or
\\N) that PostGIS loads for the comparison.

The polygons are the closed ways tagged building, landuse, leisure, natural, amenity or
boundary of the OSM extracts in ../shared/data/osm that are XML (monaco-gh.osm.gz,
bautzen.osm: about 1,000 shapes; the .pbf extracts need a PBF reader Python lacks here), each
shape used many times, moved by a random longitude/latitude offset into the devices' square (its
vertices keep their relative degrees, so GeoJSON and WKT are one shape).
Rings with fewer than 3 distinct vertices or that cross themselves are skipped (PostGIS and
Monitoring would disagree on what they mean). Circles: radius 20–500 m, uniformly placed.

`settle URL LATEST.tsv` (device, latitude, longitude, fix time in ms a line) then sends each
device two more fixes where it last was, 30 s and 60 s after its latest, with 0.5 m accuracy
(OsmAnd requests, 16 keep-alive connections): decisive everywhere farther than about 1 m from
an edge and 20 s or more after the fix before, so each decides at once (`FencePolicy`) and
every device's fence state is its membership there, for PostGIS to check.

Usage: tracking-fences.py COUNT OSM_DIR OUT_DIR [SEED]
       tracking-fences.py settle URL LATEST.tsv
"""
import gzip
import json
import os
import random
import sys
import xml.etree.ElementTree as ET

TAGS = ("building", "landuse", "leisure", "natural", "amenity", "boundary")


def osm_rings(path):
    """Closed tagged ways of an OSM XML file as rings of (lon, lat), closed."""
    opener = gzip.open if path.endswith(".gz") else open
    nodes, rings = {}, []
    for _, el in ET.iterparse(opener(path, "rb")):
        if el.tag == "node":
            nodes[el.get("id")] = (float(el.get("lon")), float(el.get("lat")))
        elif el.tag == "way":
            refs = [n.get("ref") for n in el.findall("nd")]
            tags = {t.get("k") for t in el.findall("tag")}
            if len(refs) >= 4 and refs[0] == refs[-1] and tags.intersection(TAGS) and all(r in nodes for r in refs):
                rings.append([nodes[r] for r in refs])
            el.clear()
    return rings


def simple(ring):
    """Whether a closed ring has ≥ 3 distinct vertices and no two non-adjacent edges meet."""
    if len({p for p in ring[:-1]}) < 3 or len(ring) - 1 != len(set(ring[:-1])):
        return False

    def cross(a, b, c, d):
        def orient(p, q, r):
            v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
            return (v > 0) - (v < 0)
        o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
        return o1 != o2 and o3 != o4 and 0 not in (o1, o2, o3, o4)

    n = len(ring) - 1
    if n > 200:  # a long ring: checked by PostGIS's ST_IsValid instead (the caller drops invalid ones)
        return True
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue
            if cross(ring[i], ring[i + 1], ring[j], ring[j + 1]):
                return False
    return True


def settle(url, latest):
    import http.client
    import threading
    host, port = url.split("//")[1].rstrip("/").split(":")
    rows = [line.split("\t") for line in open(latest).read().splitlines() if line]
    failures = []

    def send(part):
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        for name, lat, lon, fix_time in part:
            for later in (30_000, 60_000):
                connection.request("GET", f"/?id={name}&lat={lat}&lon={lon}&timestamp={int(fix_time) + later}&accuracy=0.5")
                response = connection.getresponse()
                response.read()
                if response.status != 200:
                    failures.append((name, response.status))
        connection.close()

    threads = [threading.Thread(target=send, args=(rows[k::16],)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        sys.exit(f"settle: {len(failures)} fixes refused, e.g. {failures[:3]}")
    print(f"settle: {len(rows)} devices sent two fixes each where they last were (0.5 m accuracy, +30 s and +60 s)")


def main():
    if sys.argv[1] == "settle":
        return settle(sys.argv[2], sys.argv[3])
    count, osm_dir, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 35)
    shapes = []
    for name in ("monaco-gh.osm.gz", "bautzen.osm"):
        path = os.path.join(osm_dir, name)
        if os.path.exists(path):
            shapes += [r for r in osm_rings(path) if simple(r)]
    if not shapes:
        sys.exit("tracking-fences.py: no OSM polygons in " + osm_dir)
    features, rows = [], []
    for i in range(count):
        if i % 2 == 0:
            ring = shapes[(i // 2) % len(shapes)]
            lon0 = min(p[0] for p in ring); lat0 = min(p[1] for p in ring)
            dlon = 2 + rng.random() * 0.98 - lon0
            dlat = 48 + rng.random() * 0.98 - lat0
            moved = [(round(lon + dlon, 9), round(lat + dlat, 9)) for lon, lat in ring]
            fid = f"p{i}"
            features.append({"type": "Feature", "properties": {"identifier": fid},
                             "geometry": {"type": "Polygon", "coordinates": [[list(p) for p in moved]]}})
            rows.append(f"{fid}\tPOLYGON(({','.join(f'{x} {y}' for x, y in moved)}))\t\\N")
        else:
            lon, lat, radius = round(2 + rng.random(), 9), round(48 + rng.random(), 9), round(rng.uniform(20, 500), 3)
            fid = f"c{i}"
            features.append({"type": "Feature", "properties": {"identifier": fid, "radius": radius},
                             "geometry": {"type": "Point", "coordinates": [lon, lat]}})
            rows.append(f"{fid}\tPOINT({lon} {lat})\t{radius}")
    with open(os.path.join(out, "fences.geojson"), "w") as f:
        json.dump({"type": "FeatureCollection", "features": features}, f, separators=(",", ":"))
    with open(os.path.join(out, "fences.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print(f"fences: {count} ({(count + 1) // 2} polygons from {len(shapes)} OSM shapes, {count // 2} circles of 20–500 m)")


if __name__ == "__main__":
    main()
