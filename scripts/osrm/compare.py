#!/usr/bin/env python3
"""Compare `geo route --batch` with OSRM (osrm-routed over HTTP on loopback).

Samples seeded random origin-destination pairs inside the extract's bounding box, snaps
each point with OSRM's /nearest (so both engines get the same on-road positions; with --raw
the random points themselves are routed, kept only when /nearest finds a road within 200 m,
so each engine snaps them by its own rules, as a user's taps are), routes
every pair through both engines, and reports the distribution of relative differences in
distance and duration, every pair above the threshold with an explanation category, and
osrm-routed's HTTP latency. Not a unit test: run it through scripts/osrm/compare.sh.
"""
import argparse
import json
import random
import statistics
import subprocess
import sys
import time
import urllib.request


def osrm_get(base, path):
    t0 = time.perf_counter()
    with urllib.request.urlopen(base + path, timeout=30) as r:
        body = json.load(r)
    return body, time.perf_counter() - t0


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(p / 100 * (len(s) - 1)))))
    return s[k]


def categorize(d_ours, t_ours, d_osrm, t_osrm, dd, td, threshold):
    if d_osrm < 300:
        return "short route (<300 m): phantom/snapping position and turn costs dominate"
    if dd > threshold and td <= threshold:
        return "near-tie: a different path of similar travel time (weight tie-break)"
    if dd <= 0.01 and td > threshold:
        return "same path, timing model differs (turn penalties, signals, speed rounding)"
    if dd > threshold and td > threshold:
        if t_ours > t_osrm:
            return "different path, ours slower: a path OSRM uses is missing or forbidden here (access/restriction/profile)"
        return "different path, ours faster: we allow a path OSRM forbids (access/restriction/profile)"
    return "duration only, different path or timing (see numbers)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geo", required=True)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--osrm-url", required=True)
    ap.add_argument("--bbox", required=True, help="minlon,minlat,maxlon,maxlat")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threshold", type=float, default=0.05)
    ap.add_argument("--name", default="extract")
    ap.add_argument("--pairs-out", help="write the snapped pairs here (lat1 lon1 lat2 lon2)")
    ap.add_argument("--raw", action="store_true", help="route the random points, not their /nearest snaps")
    args = ap.parse_args()

    minlon, minlat, maxlon, maxlat = map(float, args.bbox.split(","))
    rng = random.Random(args.seed)

    def snapped_point():
        for _ in range(2000):
            lon = rng.uniform(minlon, maxlon)
            lat = rng.uniform(minlat, maxlat)
            body, _ = osrm_get(args.osrm_url, f"/nearest/v1/driving/{lon:.7f},{lat:.7f}?number=1")
            if body.get("code") == "Ok" and body["waypoints"] and body["waypoints"][0]["distance"] < 200:
                if args.raw:
                    return lat, lon
                lon2, lat2 = body["waypoints"][0]["location"]
                return lat2, lon2
        raise SystemExit("could not find points near roads inside the bounding box")

    pairs = []
    while len(pairs) < args.pairs:
        a = snapped_point()
        b = snapped_point()
        pairs.append((a[0], a[1], b[0], b[1]))
    if args.pairs_out:
        with open(args.pairs_out, "w") as f:
            for p in pairs:
                f.write("%.7f %.7f %.7f %.7f\n" % p)

    # Ours: one batch run.
    stdin = "".join("%.7f %.7f %.7f %.7f\n" % p for p in pairs)
    t0 = time.perf_counter()
    out = subprocess.run([args.geo, "route", "--graph", args.graph, "--batch"], input=stdin,
                         capture_output=True, text=True, check=True).stdout
    ours_wall = time.perf_counter() - t0
    ours = []
    for line in out.splitlines():
        d, t = line.split()
        ours.append((float(d), float(t)))
    assert len(ours) == len(pairs), (len(ours), len(pairs))

    # OSRM: one HTTP request per pair, timed.
    theirs, latencies = [], []
    for (lat1, lon1, lat2, lon2) in pairs:
        body, dt = osrm_get(args.osrm_url, f"/route/v1/driving/{lon1:.7f},{lat1:.7f};{lon2:.7f},{lat2:.7f}"
                                           "?overview=false&steps=false&alternatives=false")
        latencies.append(dt)
        if body.get("code") == "Ok" and body["routes"]:
            r = body["routes"][0]
            theirs.append((r["distance"], r["duration"]))
        else:
            theirs.append((float("nan"), float("nan")))

    dd_all, td_all, outliers = [], [], []
    both_none = only_ours_none = only_osrm_none = 0
    for i, (p, o, t) in enumerate(zip(pairs, ours, theirs)):
        o_none = o[0] != o[0]
        t_none = t[0] != t[0]
        if o_none and t_none:
            both_none += 1
            continue
        if o_none or t_none:
            if o_none:
                only_ours_none += 1
            else:
                only_osrm_none += 1
            outliers.append((i, p, o, t, float("inf"), float("inf"),
                             "no route in " + ("ours" if o_none else "OSRM") + " (component/snapping or access difference)"))
            continue
        dd = abs(o[0] - t[0]) / max(t[0], 1.0)
        td = abs(o[1] - t[1]) / max(t[1], 1.0)
        dd_all.append(dd)
        td_all.append(td)
        if dd > args.threshold or td > args.threshold:
            outliers.append((i, p, o, t, dd, td, categorize(o[0], o[1], t[0], t[1], dd, td, args.threshold)))

    def pct(x):
        return "%.2f %%" % (100 * x)

    print(f"== {args.name}: {len(pairs)} {'raw random' if args.raw else '/nearest-snapped'} pairs (seed {args.seed}) ==")
    print(f"compared: {len(dd_all)}; no route in both: {both_none}; only ours: {only_ours_none}; only OSRM: {only_osrm_none}")
    print(f"distance diff: median {pct(statistics.median(dd_all))}  p95 {pct(percentile(dd_all, 95))}  max {pct(max(dd_all))}")
    print(f"duration diff: median {pct(statistics.median(td_all))}  p95 {pct(percentile(td_all, 95))}  max {pct(max(td_all))}")
    lat_ms = [1000 * x for x in latencies]
    print(f"osrm-routed HTTP latency: p50 {percentile(lat_ms, 50):.3f} ms  p99 {percentile(lat_ms, 99):.3f} ms")
    print(f"geo route --batch wall time for all pairs (incl. graph load): {ours_wall * 1000:.1f} ms")
    cats = {}
    for x in outliers:
        cats[x[6]] = cats.get(x[6], 0) + 1
    print(f"pairs above {pct(args.threshold)}: {len(outliers)}")
    for c, n in sorted(cats.items(), key=lambda kv: -kv[1]):
        print(f"  {n:4d}  {c}")
    for (i, p, o, t, dd, td, cat) in outliers:
        print(f"  #{i:4d} {p[0]:.6f},{p[1]:.6f} -> {p[2]:.6f},{p[3]:.6f}  ours {o[0]:.1f} m {o[1]:.1f} s  "
              f"osrm {t[0]:.1f} m {t[1]:.1f} s  d {pct(dd)} t {pct(td)}  [{cat}]")


if __name__ == "__main__":
    main()
