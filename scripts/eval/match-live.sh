#!/usr/bin/env bash
# The live matcher off the data it was tuned on (issue 34, item 1): `geo match --online` on the 20 dev
# Kubička drives as recorded and in variants derived from them that reproduce the off-road trap —
#   orig      the drive as recorded
#   gap30     30 s of fixes dropped at a quarter, half and three quarters of the drive (a tunnel)
#   gap90     90 s dropped at the middle (a long tunnel: the sub-matching breaks)
#   cut       the true route's arcs from 40 % to 55 % of its length removed from the graph (a road
#             missing from the map: minutes off the graph, then back)
#   startoff  the first 15 % of the true route removed from the graph (a drive that starts off it)
#   noisy     from a fifth of the drive on, correlated noise of 20 m per axis (30 s correlation time)
# Scored per fix by kubicka.py's online_on_route (the segment's OSM nodes on the true route), over
# the fixes whose nearest true-route arc is still in the graph (a fix on a removed road cannot be
# matched to it; a route that drives a removed road again later loses those fixes too). Prints per variant the overall fraction, and per drive sorted, worst five.
#
#   scripts/eval/match-live.sh [VARIANT ...]       (run from the project root; default: all)
#   GEO=path/to/geo  KUBICKA=dir-of-tracks  CHECKS=dir-of-kubicka.py  to override.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
python3 - "$GEO" "$KUBICKA" "$CHECKS" "$T" "$@" <<'PY'
import json, math, os, random, subprocess, sys
geo, base, checks, T = sys.argv[1:5]
variants = sys.argv[5:] or ["orig", "gap30", "gap90", "cut", "startoff", "noisy"]
sys.path.insert(0, checks)
import kubicka

def route_stretch(nodes, arcs, route, f0, f1):
    """The route positions whose arcs lie between fractions f0 and f1 of the route's length."""
    L = [kubicka.hav(nodes[arcs[r][0]], nodes[arcs[r][1]]) for r in route]
    total, acc, out = sum(L), 0.0, set()
    for i, l in enumerate(L):
        if f0 * total <= acc + l / 2 <= f1 * total: out.add(i)
        acc += l
    return out

def nearest_route_pos(nodes, arcs, route, track):
    """Per fix: the position in the route of its nearest true-route arc (equirectangular metres)."""
    lat0 = sum(p[1] for p in nodes) / len(nodes)
    kx, ky = 111320.0 * math.cos(math.radians(lat0)), 110574.0
    segs = [((nodes[arcs[r][0]][0] * kx, nodes[arcs[r][0]][1] * ky), (nodes[arcs[r][1]][0] * kx, nodes[arcs[r][1]][1] * ky)) for r in route]
    cell, grid = 100.0, {}
    for i, ((x1, y1), (x2, y2)) in enumerate(segs):
        for gx in range(int(min(x1, x2) // cell) - 1, int(max(x1, x2) // cell) + 2):
            for gy in range(int(min(y1, y2) // cell) - 1, int(max(y1, y2) // cell) + 2):
                grid.setdefault((gx, gy), []).append(i)
    out = []
    for lo, la, _ in track:
        x, y = lo * kx, la * ky
        best, bi = 1e18, None
        for i in grid.get((int(x // cell), int(y // cell)), []):
            (x1, y1), (x2, y2) = segs[i]
            dx, dy = x2 - x1, y2 - y1; L = dx * dx + dy * dy
            t = 0 if L == 0 else max(0, min(1, ((x - x1) * dx + (y - y1) * dy) / L))
            d = math.hypot(x - x1 - t * dx, y - y1 - t * dy)
            if d < best: best, bi = d, i
        out.append(bi)
    return out

def variant(name, nodes, arcs, track, route):
    """(arcs for the graph, fixes, indices of the fixes that count)."""
    keep = list(range(len(track)))
    cut = set()
    if name == "gap30" or name == "gap90":
        t0, t1 = track[0][2], track[-1][2]
        marks = [0.25, 0.5, 0.75] if name == "gap30" else [0.5]
        width = 30 if name == "gap30" else 90
        drop = lambda t: any(t0 + m * (t1 - t0) <= t < t0 + m * (t1 - t0) + width for m in marks)
        keep = [i for i in keep if not drop(track[i][2])]
    elif name == "cut":
        cut = route_stretch(nodes, arcs, route, 0.40, 0.55)
    elif name == "startoff":
        cut = route_stretch(nodes, arcs, route, 0.0, 0.15)
    elif name == "noisy":
        # From a fifth of the drive on, Gauss–Markov noise of 20 m per axis with a 30 s
        # correlation time (an urban canyon), seeded per drive.
        rng = random.Random(len(track))
        t0 = track[0][2] + 0.2 * (track[-1][2] - track[0][2])
        lat0 = track[0][1]; kx, ky = 111320.0 * math.cos(math.radians(lat0)), 110574.0
        ex = ey = 0.0; last = None; out = []
        for lo, la, t in track:
            if t >= t0:
                a = math.exp(-(t - last) / 30.0) if last is not None else 0.0
                b = 20.0 * math.sqrt(1 - a * a)
                ex, ey = a * ex + b * rng.gauss(0, 1), a * ey + b * rng.gauss(0, 1); last = t
                out.append((lo + ex / kx, la + ey / ky, t))
            else:
                out.append((lo, la, t))
        track = out
    gone = set()
    for i in cut:
        a, b = arcs[route[i]]; gone.add((a, b)); gone.add((b, a))
    graph_arcs = [a for a in arcs if a not in gone]
    fixes = [track[i] for i in keep]
    pos = nearest_route_pos(nodes, arcs, route, fixes) if cut else [None] * len(fixes)
    counts = [k for k in range(len(fixes)) if pos[k] is None or arcs[route[pos[k]]] not in gone]
    return graph_arcs, fixes, counts

for v in variants:
    on_all = n_all = 0; rows = []
    for tid in sorted(os.listdir(base)):
        d = os.path.join(base, tid)
        if not os.path.isdir(d): continue
        _, nodes, arcs, track, route = kubicka.load(d)
        graph_arcs, fixes, counts = variant(v, nodes, arcs, track, route)
        kubicka.write_osm(nodes, graph_arcs, T + "/net.osm"); kubicka.write_gpx(fixes, T + "/track.gpx")
        subprocess.run([geo, "extract", T + "/net.osm", "-o", T + "/net.graph", "--profile", "car"], check=True, capture_output=True)
        r = subprocess.run([geo, "match", "--graph", T + "/net.graph", T + "/track.gpx", "--online"], capture_output=True, text=True)
        lines = [json.loads(l) for l in r.stdout.splitlines()]
        if r.returncode or len(lines) != len(fixes): print("%s %s: geo failed (%d lines of %d)" % (v, tid, len(lines), len(fixes)))
        chosen = [lines[k] for k in counts if k < len(lines)]
        on, n = kubicka.online_on_route(nodes, arcs, route, chosen)
        n = max(n, len(counts))
        on_all += on; n_all += n
        rows.append((on / max(n, 1), tid, n))
    rows.sort()
    print("%-8s online %.4f of %d fixes; worst five: %s" % (v, on_all / max(n_all, 1), n_all,
          ", ".join("%s %.3f" % (t, f) for f, t, _ in rows[:5])), flush=True)
PY
