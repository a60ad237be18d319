#!/usr/bin/env bash
# Map matching on synthetic drives and on GraphHopper's regression traces (issue 15, "Synthetic").
#
# 1. Drives: random car routes across Monaco and Andorra (../shared/data/osm/*.osm.pbf through
#    `geo extract --profile car` and `geo route`), driven by the route simulation source
#    (`geo simulate --route`, 13.9 m/s, Gauss–Markov noise with a 30 s correlation time) at 1, 5,
#    15 and 30 s sampling and 5, 15 and 30 m noise, matched with `geo match --format json`, and
#    scored against the simulated truth: the route from its start to the last fix's true
#    position (fix i is i × interval × speed along it). Both are sampled every 2 m; a matched
#    sample within 5 m of the truth is correct. Reported per sampling × noise, length-weighted
#    over the routes: correct = truth length covered by the match / truth length, and route
#    mismatch fraction RMF = (truth length missed + matched length off the truth) / truth length
#    (Newson & Krumm 2009 §5). Geometric scoring cannot tell the two directions of one road
#    apart; a U-turn detour shows as length off nothing, so it still counts in RMF only when it
#    leaves the truth.
# 2. GraphHopper traces (../shared/data/traces/graphhopper-mm, EXPECTED.md): issue-70 street
#    sequence, issue-13 matched length against the GPX length, issue-127 (two identical points)
#    must not fail, Andorra CG-2 (no times, σ 20 m) matched length / GPX length < 1.5. The Leipzig
#    tours have no map and are skipped.
#
#   scripts/eval/match-synthetic.sh [ROUTES_PER_MAP]     (run from the project root; default 6)
#   GEO=path/to/geo  to use a built geo; LOCATIONKIT_DATA for the data folder.
set -euo pipefail
DATA="${LOCATIONKIT_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/data}"
if [[ -z "${GEO:-}" ]]; then
  swift build -c release --product geo >/dev/null
  GEO="$(swift build -c release --show-bin-path)/geo"
fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
python3 - "$GEO" "$DATA" "$T" "${1:-6}" <<'PY'
import gzip, json, math, os, random, re, subprocess, sys
geo, data, T, per_map = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
SPEED, STEP, TOL = 13.9, 2.0, 5.0

def run(*args):
    return subprocess.run([geo, *args], capture_output=True, text=True)

def xy(p, o):
    """Equirectangular metres of (lon, lat) p around origin o."""
    k = math.cos(math.radians(o[1]))
    return ((p[0] - o[0]) * 111_195.0 * k, (p[1] - o[1]) * 111_195.0)

def length(line):
    return sum(math.dist(a, b) for a, b in zip(line, line[1:]))

def samples(line):
    """Points every STEP metres along a polyline (metres), each standing for STEP metres."""
    out = []
    for a, b in zip(line, line[1:]):
        n = max(1, int(math.dist(a, b) / STEP))
        out += [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(n)]
    return out + line[-1:]

def cut(line, upto):
    """The polyline from its start to `upto` metres along it."""
    out, done = [line[0]], 0.0
    for a, b in zip(line, line[1:]):
        d = math.dist(a, b)
        if done + d >= upto:
            f = (upto - done) / d if d else 0
            out.append((a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f))
            return out
        out.append(b); done += d
    return out

def near_fraction(points, line):
    """How many of `points` lie within TOL of the polyline `line` (grid of 10 m cells)."""
    cells = {}
    for p in samples(line):
        cells.setdefault((int(p[0] // 10), int(p[1] // 10)), []).append(p)
    hit = 0
    for p in points:
        cx, cy = int(p[0] // 10), int(p[1] // 10)
        if any(math.dist(p, q) <= TOL for dx in (-1, 0, 1) for dy in (-1, 0, 1) for q in cells.get((cx + dx, cy + dy), ())):
            hit += 1
    return hit

BOXES = {"monaco": (43.7260, 43.7500, 7.4100, 7.4370, 800), "andorra": (42.4400, 42.6300, 1.4400, 1.7300, 3000)}
rng = random.Random(20261124)
table = {}
for name, (s, n, w, e, minimum) in BOXES.items():
    graph = f"{T}/{name}.graph"
    r = run("extract", f"{data}/osm/{name}.osm.pbf", "-o", graph, "--profile", "car")
    if r.returncode: sys.exit(f"extract {name}: {r.stderr}")
    routes = 0
    while routes < per_map:
        a = (rng.uniform(s, n), rng.uniform(w, e)); b = (rng.uniform(s, n), rng.uniform(w, e))
        r = run("route", "--graph", graph, "--from", "%f,%f" % a, "--to", "%f,%f" % b, "--format", "geojson")
        if r.returncode: continue
        feature = json.loads(r.stdout)
        coords = (feature.get("geometry") or feature["features"][0]["geometry"])["coordinates"]
        o = coords[0]
        truth = [xy(c, o) for c in coords]
        if length(truth) < minimum: continue
        routes += 1
        path = f"{T}/route.geojson"
        open(path, "w").write(r.stdout)
        for interval in (1, 5, 15, 30):
            for noise in (5, 15, 30):
                sim = run("simulate", "--route", path, "--speed", str(SPEED), "--interval", str(interval), "--noise", str(noise), "--fast")
                if sim.returncode: sys.exit(f"simulate: {sim.stderr}")
                open(f"{T}/drive.nmea", "w").write(sim.stdout)
                m = run("match", "--graph", graph, f"{T}/drive.nmea", "--format", "json")
                row = table.setdefault((interval, noise), {"truth": 0.0, "covered": 0.0, "off": 0.0, "fail": 0, "runs": 0, "pieces": 0})
                row["runs"] += 1
                if m.returncode:
                    row["fail"] += 1; row["truth"] += length(truth); continue
                result = json.loads(m.stdout)
                fixes = len(result["tracepoints"])
                true = cut(truth, (fixes - 1) * interval * SPEED)
                d0 = length(true)
                matched = [[xy(c, o) for c in g["geometry"]["coordinates"]] for g in result["matchings"]]
                pts = [p for line in matched if len(line) > 1 for p in samples(line)]
                covered = near_fraction(samples(true), sum(matched, [])) if pts else 0
                on = near_fraction(pts, true) if pts else 0
                row["truth"] += d0
                row["covered"] += min(d0, covered * STEP)
                row["off"] += (len(pts) - on) * STEP
                row["pieces"] += len(result["matchings"])
    print(f"{name}: {routes} routes", file=sys.stderr)

print("Synthetic drives (%d routes per map, Monaco + Andorra; correct = truth covered, RMF = (missed + off) / truth)" % per_map)
print("%9s %7s %8s %7s %9s %6s" % ("sampling", "noise", "correct", "RMF", "pieces", "fails"))
for (interval, noise), r in sorted(table.items()):
    missed = r["truth"] - r["covered"]
    print("%7d s %5d m %8.4f %7.4f %9.2f %6d" % (interval, noise, r["covered"] / r["truth"], (missed + r["off"]) / r["truth"],
                                                r["pieces"] / max(1, r["runs"] - r["fail"]), r["fail"]))
total = [sum(r[k] for r in table.values()) for k in ("truth", "covered", "off")]
print("%17s %8.4f %7.4f" % ("all", total[1] / total[0], (total[0] - total[1] + total[2]) / total[0]))

# GraphHopper regression traces.
gh = f"{data}/traces/graphhopper-mm"
def way_names(osm_gz):
    names, way = {}, None
    for line in gzip.open(osm_gz, "rt", encoding="utf-8"):
        if m := re.search(r"<way id=\"(-?\d+)\"", line): way = int(m.group(1))
        elif way is not None and (m := re.search(r"<tag k=\"name\" v=\"([^\"]*)\"", line)): names.setdefault(way, m.group(1))
        if "</way>" in line: way = None
    return names

def gpx_length(path):
    pts = [(float(lon), float(lat)) for lat, lon in re.findall(r"<trkpt lat=\"([-\d.]+)\" lon=\"([-\d.]+)\"", open(path).read())]
    return length([xy(p, pts[0]) for p in pts]) if pts else 0.0

def match(graph, gpx, *extra):
    r = run("match", "--graph", graph, gpx, "--format", "json", *extra)
    return (json.loads(r.stdout) if r.returncode == 0 else None), r

print("\nGraphHopper regression traces (EXPECTED.md)")
for osm, cases in ((f"{gh}/issue-70.osm.gz", ["issue-70"]), (f"{gh}/map-issue13.osm.gz", ["issue-13", "issue-127"])):
    graph = f"{T}/gh.graph"
    r = run("extract", osm, "-o", graph, "--profile", "car")
    if r.returncode: print(f"  {osm}: extract failed: {r.stderr.strip()}"); continue
    names = way_names(osm)
    for case in cases:
        result, r = match(graph, f"{gh}/{case}.gpx")
        if result is None: print(f"  {case}: geo match failed ({r.returncode}): {r.stderr.strip()}"); continue
        streets = []
        for m in result["matchings"]:
            for w in m.get("ways", []):
                n = names.get(w, "")
                if n and (not streets or streets[-1] != n): streets.append(n)
        dist = sum(m["distance"] for m in result["matchings"])
        print(f"  {case}: {len(result['matchings'])} matching(s), {sum(p is not None for p in result['tracepoints'])}/{len(result['tracepoints'])} "
              f"points matched, matched {dist:.1f} m, GPX {gpx_length(f'{gh}/{case}.gpx'):.1f} m; streets: {', '.join(streets)}")
graph = f"{T}/andorra.graph"
result, r = match(graph, f"{gh}/andorra_for_map_matching.gpx", "--accuracy", "20")
if result is None: print(f"  andorra CG-2: geo match failed ({r.returncode}): {r.stderr.strip()}")
else:
    dist = sum(m["distance"] for m in result["matchings"]); g = gpx_length(f"{gh}/andorra_for_map_matching.gpx")
    print(f"  andorra CG-2 (car graph, σ 20 m): {len(result['matchings'])} matching(s), matched {dist:.1f} m / GPX {g:.1f} m = {dist / g:.3f} (expected < 1.5)")
PY
