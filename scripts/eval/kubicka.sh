#!/usr/bin/env bash
# Map matching on the Kubička et al. (2015) drives: each network goes through the real import
# path (../shared/checks/kubicka.py writes it as OSM XML → geo extract --profile car), the drive is
# matched with `geo match --format json`, and the matched OSM node ids are scored by kubicka.py's
# arc scorer (length-weighted correct fraction, route mismatch fraction), with `geo match
# --online`'s live matches per fix. Printed per track beside the stored OSRM /match and fastmm
# baselines (../shared/checks/baselines), then overall (length-weighted, as the check does).
#
#   scripts/eval/kubicka.sh [TRACK_ID ...]      (run from the project root; default: all tracks)
#   GEO=path/to/geo  KUBICKA=dir-of-tracks  CHECKS=dir-of-kubicka.py  to override.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
python3 - "$GEO" "$KUBICKA" "$CHECKS" "$T" "$@" <<'PY'
import json, os, subprocess, sys, time
geo, base, checks, T = sys.argv[1:5]
only = set(sys.argv[5:])
sys.path.insert(0, checks)
import kubicka
def load(name):
    p = os.path.join(checks, "baselines", name)
    return {r["id"]: r for r in map(json.loads, open(p)) if "correct" in r} if os.path.exists(p) else {}
osrm, fmm, mm2 = load("osrm-kubicka-dev.jsonl"), load("fastmm-kubicka-dev.jsonl"), load("mm2-kubicka-dev.jsonl")
rows = []
print("%-9s %6s %7s %7s %6s %6s %6s %6s %7s %8s" % ("track", "points", "correct", "RMF", "online", "OSRM", "fastmm", "mm2", "secs", "pts/s"))
for tid in sorted(os.listdir(base)):
    d = os.path.join(base, tid)
    if not os.path.isdir(d) or (only and tid not in only): continue
    _, nodes, arcs, track, route = kubicka.load(d)
    kubicka.write_osm(nodes, arcs, T + "/net.osm"); kubicka.write_gpx(track, T + "/track.gpx")
    subprocess.run([geo, "extract", T + "/net.osm", "-o", T + "/net.graph", "--profile", "car"], check=True, capture_output=True)
    t0 = time.time()
    r = subprocess.run([geo, "match", "--graph", T + "/net.graph", T + "/track.gpx", "--format", "json"], capture_output=True, text=True)
    secs = time.time() - t0
    seqs = [m["nodes"] for m in json.loads(r.stdout)["matchings"]] if r.returncode == 0 else []
    cf, rmf, lo, lt = kubicka.score(nodes, arcs, route, seqs)
    r = subprocess.run([geo, "match", "--graph", T + "/net.graph", T + "/track.gpx", "--online"], capture_output=True, text=True)
    on, n = kubicka.online_on_route(nodes, arcs, route, [json.loads(l) for l in r.stdout.splitlines()])
    rows.append((tid, cf, rmf, lt, on, max(n, len(track)), len(track), secs))
    g = lambda b: b.get(tid, {}).get("correct", float("nan"))
    print("%-9s %6d %7.4f %7.4f %6.3f %6.3f %6.3f %6.3f %7.2f %8.0f" % (tid, len(track), cf, rmf, on / max(n, 1), g(osrm), g(fmm), g(mm2), secs, len(track) / max(secs, 1e-9)), flush=True)
if rows:
    L = sum(r[3] for r in rows)
    W = lambda f: sum(f(r) * r[3] for r in rows) / L
    wb = lambda b: sum(b[r[0]]["correct"] * r[3] for r in rows if r[0] in b) / max(sum(r[3] for r in rows if r[0] in b), 1e-9)
    print("overall (length-weighted): correct %.4f  RMF %.4f  online %.4f  |  OSRM %.4f  fastmm %.4f  map-matching-2 %.4f  |  %.0f pts/s end to end" % (
        W(lambda r: r[1]), W(lambda r: r[2]), sum(r[4] for r in rows) / sum(r[5] for r in rows), wb(osrm), wb(fmm), wb(mm2),
        sum(r[6] for r in rows) / sum(r[7] for r in rows)))
PY
