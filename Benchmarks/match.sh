#!/usr/bin/env bash
# Map-matching throughput (issue 15's numbers): fixes per second matched in process (the time
# `geo match --timing` reports for the matching alone: no graph load, no track parse, no output)
# and end to end through `geo match --format json` (process wall time, and its CPU time: user +
# system, what a shared machine's load disturbs least), on the 20 dev Kubička
# drives, beside the stored peers in ../shared/checks/baselines: OSRM /match over HTTP (CH, one
# request per drive) and fastmm (FMM's C++ core, one core, matching alone and with its UBODT
# build). Then one 1,000,000-fix track (drive 00000021 repeated, times shifted) for the maximum
# resident memory of the whole command.
# With GEO_BEFORE=path/to/an/older/geo, each drive is also run with that binary, alternating with
# the current one (so both see the same machine load), its numbers are printed beside, and the
# two binaries' JSON answers are compared byte for byte (any difference is reported).
# With OSRM=1, OSRM itself runs beside it in the same run (scripts/osrm/env.sh: osrm-bindings from
# PyPI; scripts/osrm/osrm_server.py runs it): per drive osrm-extract (car.lua) and osrm-contract
# on the same OSM XML, osrm-routed (CH) and GET /match with the fixes' timestamps, best of 3 on
# one running server, twice: with OSRM's default options (a GPS standard deviation of 5 m, gaps
# split) and with `tidy=true` (OSRM thins the trace before matching: its fastest set-up, 4.3×
# the default's speed over these drives), against `geo match --format json` end to end (process
# wall time, best of 3), all scored by kubicka.py, per drive and length-weighted as the check
# weighs them. (Neither is the stored baseline's set-up: its answers differ, e.g. drive 00000021
# 0.657 with the defaults, 0.930 with tidy, 0.737 there.)
# Usage: [GEO_BEFORE=...] [OSRM=1] Benchmarks/match.sh (from anywhere; needs python3).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${LOCATIONKIT_DATA:-../shared/data}"
CHECKS="${CHECKS:-../shared/checks}"
swift build -c release --product geo >/dev/null
GEO="$(swift build -c release --show-bin-path)/geo"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
BIN=""
if [ "${OSRM:-0}" = "1" ]; then . scripts/osrm/env.sh; fi
python3 - "$GEO" "$DATA/traces/kubicka" "$CHECKS" "$WORK" "${GEO_BEFORE:-}" "$BIN" <<'PY'
import json, os, re, resource, subprocess, sys, time, urllib.request
geo, base, checks, T, before, osrm_bin = sys.argv[1:7]
sys.path.insert(0, checks)
sys.path.insert(0, "scripts/osrm")
import kubicka
import osrm_server
def load(name):
    return {r["id"]: r for r in map(json.loads, open(os.path.join(checks, "baselines", name))) if "correct" in r}
osrm, fmm = load("osrm-kubicka-dev.jsonl"), load("fastmm-kubicka-dev.jsonl")
pts = inproc = e2e = cpu = 0.0
old_inproc = old_e2e = old_cpu = 0.0
differ, ran = [], []
def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
OSRM_SETUPS = {"default": "", "tidy": "&tidy=true"}
def osrm_match(track):
    """OSRM /match on this drive (T/net.osm) in this run, per set-up of OSRM_SETUPS: best seconds
    of 3 GETs and its answer's node sequences (each leg's `annotation.nodes` overlap the previous
    leg's end: joined once)."""
    answers = {}
    # A drive's GET is up to ~500 KB; osrm-routed's default header limit closes the connection at ~25 KB.
    with osrm_server.serve(osrm_server.build(T + "/net.osm", "car"), ["--max-matching-size", "-1", "--max-header-size", str(1 << 24)]) as base_url:
        for setup, options in OSRM_SETUPS.items():
            url = "%s/match/v1/driving/%s?timestamps=%s&annotations=nodes&overview=false%s" % (
                base_url, ";".join("%.7f,%.7f" % (lo, la) for lo, la, _ in track), ";".join(str(int(t)) for _, _, t in track), options)
            best = 1e9
            for _ in range(3):
                t0 = time.perf_counter(); answer = urllib.request.urlopen(url).read(); best = min(best, time.perf_counter() - t0)
            seqs = []
            for matching in json.loads(answer).get("matchings", []):
                nodes = []
                for leg in matching["legs"]:
                    leg_nodes = leg["annotation"]["nodes"]
                    k = min(len(nodes), len(leg_nodes))
                    while k > 0 and nodes[-k:] != leg_nodes[:k]: k -= 1
                    nodes += leg_nodes[k:]
                seqs.append(nodes)
            answers[setup] = (best, seqs)
    return answers
osrm_secs = {setup: 0.0 for setup in OSRM_SETUPS}
# Per set-up ("geo" and OSRM's): the true routes' length and their length found, for the
# length-weighted correct fraction (the check's weighting).
true_length = 0.0
found_length = {setup: 0.0 for setup in ["geo", *OSRM_SETUPS]}
def timed(binary):
    """Wall seconds, CPU seconds (user + system), matching seconds (--timing) and the answer of one command."""
    t0, c0 = time.perf_counter(), children_cpu()
    r = subprocess.run([binary, "match", "--graph", T + "/net.graph", T + "/track.gpx", "--timing"], capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, children_cpu() - c0, float(re.search(r"in ([0-9.]+) s", r.stderr).group(1)), r.stdout
for tid in sorted(os.listdir(base)):
    d = os.path.join(base, tid)
    if not os.path.isdir(d): continue
    _, nodes, arcs, track, route = kubicka.load(d)
    kubicka.write_osm(nodes, arcs, T + "/net.osm"); kubicka.write_gpx(track, T + "/track.gpx")
    subprocess.run([geo, "extract", T + "/net.osm", "-o", T + "/net.graph", "--profile", "car"], check=True, capture_output=True)
    best_e2e = best_in = best_cpu = old_best_e2e = old_best_in = old_best_cpu = 1e9
    for _ in range(3):
        wall, seconds, matching, out = timed(geo)
        best_e2e, best_in, best_cpu = min(best_e2e, wall), min(best_in, matching), min(best_cpu, seconds)
        if before:
            wall, seconds, matching, old_out = timed(before)
            old_best_e2e, old_best_in, old_best_cpu = min(old_best_e2e, wall), min(old_best_in, matching), min(old_best_cpu, seconds)
            if old_out != out and tid not in differ: differ.append(tid)
    pts += len(track); inproc += best_in; e2e += best_e2e; cpu += best_cpu; ran.append(tid)
    line = "%s %6d fixes  in process %9.0f fixes/s  end to end %8.0f fixes/s" % (tid, len(track), len(track) / best_in, len(track) / best_e2e)
    if before:
        old_inproc += old_best_in; old_e2e += old_best_e2e; old_cpu += old_best_cpu
        line += "  (before: %9.0f, %8.0f)" % (len(track) / old_best_in, len(track) / old_best_e2e)
    if osrm_bin:
        ours = kubicka.score(nodes, arcs, route, [m.get("nodes", []) for m in json.loads(out).get("matchings", [])])
        true_length += ours[3]; found_length["geo"] += ours[0] * ours[3]
        line += "  correct %.3f" % ours[0]
        for setup, (seconds, seqs) in osrm_match(track).items():
            correct = kubicka.score(nodes, arcs, route, seqs)[0]
            osrm_secs[setup] += seconds; found_length[setup] += correct * ours[3]
            line += "  OSRM %s %8.0f fixes/s (correct %.3f)" % (setup, len(track) / seconds, correct)
    print(line, flush=True)
ids = [i for i in osrm if i in fmm]
opps = sum(osrm[i]["points"] for i in ids) / sum(osrm[i]["seconds"] for i in ids)
fpps = sum(fmm[i]["points"] for i in ids) / sum(fmm[i]["seconds"] for i in ids)
fbpps = sum(fmm[i]["points"] for i in ids) / sum(fmm[i]["seconds"] + fmm[i]["build_seconds"] for i in ids)
print("all %d fixes (best of 3 per drive): in process %.0f fixes/s, geo match end to end %.0f fixes/s, %.3f CPU s for the %d commands (%.0f fixes per CPU second)" % (
    pts, pts / inproc, pts / e2e, cpu, len(ran), pts / cpu))
if before:
    print("before (%s, same run): in process %.0f fixes/s, end to end %.0f fixes/s, %.3f CPU s (%.0f fixes per CPU second); JSON answers %s" % (
        before, pts / old_inproc, pts / old_e2e, old_cpu, pts / old_cpu, "byte-identical on every drive" if not differ else "DIFFER on " + ",".join(differ)))
if osrm_bin:
    version = subprocess.run([os.path.join(osrm_bin, "osrm-routed"), "--version"], capture_output=True, text=True).stdout.strip()
    print("geo match: length-weighted correct %.4f" % (found_length["geo"] / true_length))
    for setup, options in OSRM_SETUPS.items():
        print("OSRM %s /match over HTTP in this run (CH, %s): %.0f fixes/s, length-weighted correct %.4f; geo match end to end is %.2f× as fast" % (
            version, options.lstrip("&") or "default options", pts / osrm_secs[setup], found_length[setup] / true_length, osrm_secs[setup] / e2e))
print("stored peers: OSRM /match over HTTP %.0f fixes/s; fastmm matching alone %.0f fixes/s, with its UBODT build %.0f fixes/s" % (opps, fpps, fbpps))
# 1,000,000 fixes: drive 00000021 repeated with times shifted (each repetition jumps back to the start: a new sub-matching).
_, nodes, arcs, track, _ = kubicka.load(os.path.join(base, "00000021"))
kubicka.write_osm(nodes, arcs, T + "/net.osm")
subprocess.run([geo, "extract", T + "/net.osm", "-o", T + "/net.graph", "--profile", "car"], check=True, capture_output=True)
span = track[-1][2] - track[0][2] + 1000
big = []
k = 0
while len(big) < 1_000_000:
    big += [(lo, la, t + k * span) for lo, la, t in track]; k += 1
kubicka.write_gpx(big[:1_000_000], T + "/big.gpx")
r = subprocess.run(["/usr/bin/time", "-v", geo, "match", "--graph", T + "/net.graph", T + "/big.gpx", "--timing", "--format", "json", "-o", "/dev/null"], capture_output=True, text=True)
rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr)
m = re.search(r"matched .*", r.stderr)
print("1,000,000 fixes: %s; maximum resident memory %.0f MB (the whole command: track, graph and the answer held for JSON)" % (
    m.group(0) if m else r.stderr.strip()[-200:], int(rss.group(1)) / 1024 if rss else float("nan")))
PY
