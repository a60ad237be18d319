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
# Usage: [GEO_BEFORE=...] Benchmarks/match.sh (from anywhere; needs python3).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${LOCATIONKIT_DATA:-../shared/data}"
CHECKS="${CHECKS:-../shared/checks}"
swift build -c release --product geo >/dev/null
GEO="$(swift build -c release --show-bin-path)/geo"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
python3 - "$GEO" "$DATA/traces/kubicka" "$CHECKS" "$WORK" "${GEO_BEFORE:-}" <<'PY'
import json, os, re, resource, subprocess, sys, time
geo, base, checks, T, before = sys.argv[1:6]
sys.path.insert(0, checks)
import kubicka
def load(name):
    return {r["id"]: r for r in map(json.loads, open(os.path.join(checks, "baselines", name))) if "correct" in r}
osrm, fmm = load("osrm-kubicka-dev.jsonl"), load("fastmm-kubicka-dev.jsonl")
pts = inproc = e2e = cpu = 0.0
old_inproc = old_e2e = old_cpu = 0.0
differ, ran = [], []
def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def timed(binary):
    """Wall seconds, CPU seconds (user + system), matching seconds (--timing) and the answer of one command."""
    t0, c0 = time.perf_counter(), children_cpu()
    r = subprocess.run([binary, "match", "--graph", T + "/net.graph", T + "/track.gpx", "--timing"], capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, children_cpu() - c0, float(re.search(r"in ([0-9.]+) s", r.stderr).group(1)), r.stdout
for tid in sorted(os.listdir(base)):
    d = os.path.join(base, tid)
    if not os.path.isdir(d): continue
    _, nodes, arcs, track, _ = kubicka.load(d)
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
