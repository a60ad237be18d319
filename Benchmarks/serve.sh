#!/usr/bin/env bash
# `geo serve` against nginx on loopback (issue 32): COUNT distinct tiles of a synthetic archive of
# COPIES × Monaco (Monaco's tiles, zooms 0…MAXZOOM, laid side by side in a grid from zoom 12 on:
# the size of a small region with Monaco's tile sizes) requested in a fixed shuffled order over
# 256 keep-alive connections by wrk (Debian), from `geo serve` (the archive) and from nginx (the
# same tiles as static gzip files, in the same run). Prints each server's requests/s and latency
# percentiles, the ratio, and geo's RSS after the first tenth of the run and at its end (flat
# when nothing leaks); then TileJSON requests/s from `geo serve` alone (the issue asks ≥ 20,000);
# then raster tiles of a fill/line style at RZOOMS over Monaco itself, cold (each tile asked once
# in turn by curl: 4 × 4 metatiles drawn, 15 of 16 then cache hits) and warm (again, then wrk), next to
# `geo tiles render --style` of the same tiles with the same style offline; then checks every served tile of both archives
# against PyPI `pmtiles` (scripts/oracles/serve_pmtiles_check.py).
# Needs: wrk, nginx (apt-get install wrk nginx), python3 with pmtiles (pip install pmtiles).
# Usage: Benchmarks/serve.sh [SECONDS] [MAXZOOM] [GEO] [RZOOMS] [COPIES] [COUNT]   (defaults 60,
# 16, a release build, 14-16, 25, 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
D="${1:-60}"; MAXZOOM="${2:-16}"; GEO="${3:-}"; RZOOMS="${4:-14-16}"; COPIES="${5:-25}"; COUNT="${6:-10000}"
DATA="${LOCATIONKIT_DATA:-../shared/data}/osm/monaco.osm.pbf"
if [ -z "$GEO" ]; then swift build -c release --product geo >/dev/null; GEO="$(swift build -c release --show-bin-path)/geo"; fi
WORK="$(mktemp -d)"; SERVER=""; NGINX=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; [ -n "$NGINX" ] && kill "$NGINX" 2>/dev/null; rm -rf "$WORK"' EXIT
ulimit -n 65536 2>/dev/null || echo "serve.sh: cannot raise the open-file limit to 65,536 (hard limit $(ulimit -Hn)); wrk's 256 connections fit anyway" >&2
"$GEO" tiles build "$DATA" -o "$WORK/monaco.pmtiles" --maxzoom "$MAXZOOM" 2>/dev/null
# The copies, written by PyPI `pmtiles` (the reference writer); the tiles wrk asks for, as files
# for nginx; their paths in a fixed shuffled order.
python3 - "$WORK" "$COPIES" "$COUNT" <<'PY'
import math, os, random, sys
from pmtiles.reader import MmapSource, Reader, all_tiles
from pmtiles.tile import zxy_to_tileid
from pmtiles.writer import Writer
work, copies, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(f"{work}/monaco.pmtiles", "rb") as f:
    reader = Reader(MmapSource(f))
    header, metadata = reader.header(), reader.metadata()
    tiles = list(all_tiles(MmapSource(f)))
side = math.isqrt(copies)
assert side * side == copies, "COPIES is a square (a side × side grid)"
base = 12
xs = [x for (z, x, y), _ in tiles if z == base]; ys = [y for (z, x, y), _ in tiles if z == base]
step_x, step_y = max(xs) - min(xs) + 2, max(ys) - min(ys) + 2  # Monaco's extent at zoom 12 and a gap
out = {}
for (z, x, y), data in tiles:
    if z < base:
        out[(z, x, y)] = data
        continue
    k = 1 << (z - base)
    for i in range(side):
        for j in range(side):
            out[(z, x + i * step_x * k, y + j * step_y * k)] = data
def lon(x, z): return x / (1 << z) * 360 - 180
def lat(y, z): return math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / (1 << z)))))
top = max(z for z, _, _ in out)
deep = [(x, y) for z, x, y in out if z == top]
header["min_lon_e7"] = int(lon(min(x for x, _ in deep), top) * 1e7); header["max_lon_e7"] = int(lon(max(x for x, _ in deep) + 1, top) * 1e7)
header["min_lat_e7"] = int(lat(max(y for _, y in deep) + 1, top) * 1e7); header["max_lat_e7"] = int(lat(min(y for _, y in deep), top) * 1e7)
with open(f"{work}/copies.pmtiles", "wb") as f:
    writer = Writer(f)
    for key in sorted(out, key=lambda t: zxy_to_tileid(*t)):
        writer.write_tile(zxy_to_tileid(*key), out[key])
    writer.finalize(header, metadata)
chosen = random.Random(32).sample(sorted(out), min(count, len(out)))
paths = []
for z, x, y in chosen:
    path = f"/copies/{z}/{x}/{y}.pbf"
    os.makedirs(os.path.dirname(f"{work}/www{path}"), exist_ok=True)
    with open(f"{work}/www{path}", "wb") as o: o.write(out[(z, x, y)])
    paths.append(path)
open(f"{work}/paths.txt", "w").write("\n".join(paths) + "\n")
print(f"{copies} × Monaco: {len(out)} tiles ({len(tiles)} in Monaco), {len(paths)} asked for", file=sys.stderr)
PY
cat > "$WORK/paths.lua" <<'LUA'
local paths = {}
for line in io.lines(os.getenv("PATHS")) do paths[#paths + 1] = line end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], { ["Accept-Encoding"] = "gzip" })
end
LUA
PORT_GEO=18080; PORT_NGINX=18081
cat > "$WORK/nginx.conf" <<NGX
worker_processes 2; daemon off; pid $WORK/nginx.pid; error_log $WORK/nginx.err;
events { worker_connections 4096; }
http { access_log off; sendfile on; keepalive_requests 1000000;
  client_body_temp_path $WORK; proxy_temp_path $WORK; fastcgi_temp_path $WORK; uwsgi_temp_path $WORK; scgi_temp_path $WORK;
  server { listen 127.0.0.1:$PORT_NGINX; root $WORK/www;
    location ~ \.pbf\$ { default_type application/vnd.mapbox-vector-tile; add_header Content-Encoding gzip; etag on; } } }
NGX
nginx -c "$WORK/nginx.conf" & NGINX=$!
cat > "$WORK/fills.json" <<'STYLE'
{"version":8,"sources":{"v":{"type":"vector","url":"pmtiles://monaco.pmtiles"}},"layers":[
{"id":"bg","type":"background","paint":{"background-color":"#f8f4f0"}},
{"id":"landuse","type":"fill","source":"v","source-layer":"landuse","paint":{"fill-color":"#ece4dc"}},
{"id":"park","type":"fill","source":"v","source-layer":"park","paint":{"fill-color":"#c8e6b4"}},
{"id":"water","type":"fill","source":"v","source-layer":"water","paint":{"fill-color":"#a0c8f0"}},
{"id":"building","type":"fill","source":"v","source-layer":"building","paint":{"fill-color":"#d9d0c9"}},
{"id":"road","type":"line","source":"v","source-layer":"transportation","paint":{"line-color":"#ffffff","line-width":3}}]}
STYLE
"$GEO" serve "$WORK/monaco.pmtiles" "$WORK/copies.pmtiles" --style "$WORK/fills.json" --host 127.0.0.1 --port "$PORT_GEO" --quiet > "$WORK/url" 2> "$WORK/server.err" & SERVER=$!
for _ in $(seq 300); do [ -s "$WORK/url" ] && break; sleep 0.1; done
sleep 0.5
export PATHS="$WORK/paths.txt"
run() { wrk -t2 -c256 -d"${D}s" --latency -s "$WORK/paths.lua" "http://127.0.0.1:$1" | tee "$WORK/$2.txt" | grep -E "Requests/sec|Non-2xx|Socket errors|  (50|99)%"; }
rss() { awk '/VmRSS/ {print $2, $3}' "/proc/$SERVER/status"; }
echo "== geo serve"; (sleep "$(( D / 10 ))"; echo "geo serve RSS after $(( D / 10 )) s: $(rss)" > "$WORK/rss.txt") & run "$PORT_GEO" geo; wait $!
cat "$WORK/rss.txt"; echo "geo serve RSS at the end: $(rss)"
echo "== nginx";     run "$PORT_NGINX" nginx
g=$(awk '/Requests\/sec/ {print $2}' "$WORK/geo.txt"); n=$(awk '/Requests\/sec/ {print $2}' "$WORK/nginx.txt")
echo "geo serve / nginx requests/s: $(python3 -c "print(round($g / $n, 2))")"
echo "geo serve peak RSS: $(grep VmHWM /proc/$SERVER/status | awk '{print $2, $3}')"
echo "== geo serve TileJSON (/monaco.json)"
wrk -t2 -c64 -d"${D}s" --latency "http://127.0.0.1:$PORT_GEO/monaco.json" | grep -E "Requests/sec|Non-2xx|Socket errors|  (50|99)%"
echo "== raster tiles, zooms $RZOOMS"
t0=$(date +%s.%N); "$GEO" tiles render "$WORK/monaco.pmtiles" --zoom "$RZOOMS" -o "$WORK/render" --style "$WORK/fills.json" 2>/dev/null; t1=$(date +%s.%N)
(cd "$WORK/render" && find . -name '*.png' | sed 's#^\./#/styles/fills/#' | sort) > "$WORK/raster.txt"
echo "geo tiles render --style offline: $(wc -l < "$WORK/raster.txt") tiles, $(python3 -c "print(round($(wc -l < "$WORK/raster.txt") / ($t1 - $t0), 1))") tiles/s"
# Cold, then warm: every tile once in turn over one keep-alive connection by curl (C; Python's
# http.client added 0.3 ms a request, a tenth of a cold tile), the wall time per pass and each
# request's time.
for pass in cold warm; do
  awk -v base="http://127.0.0.1:$PORT_GEO" '{ print "url = \"" base $0 "\""; print "output = \"/dev/null\"" }' "$WORK/raster.txt" > "$WORK/curl.cfg"
  t0=$(date +%s.%N); curl -s -K "$WORK/curl.cfg" -w '%{http_code} %{time_total}\n' > "$WORK/$pass.txt"; t1=$(date +%s.%N)
  python3 - "$pass" "$WORK/$pass.txt" "$t0" "$t1" <<'PY'
import sys
name, lines, t0, t1 = sys.argv[1], open(sys.argv[2]).read().split("\n")[:-1], float(sys.argv[3]), float(sys.argv[4])
assert all(l.startswith("200 ") for l in lines), [l for l in lines if not l.startswith("200 ")][:3]
times = sorted(float(l.split()[1]) for l in lines)
print(f"geo serve {name}: {len(times)} tiles, {len(times) / (t1 - t0):.1f} tiles/s, p50 {times[len(times) // 2] * 1e3:.2f} ms, p99 {times[int(len(times) * 0.99)] * 1e3:.2f} ms")
PY
done
PATHS="$WORK/raster.txt" wrk -t2 -c64 -d"${D}s" --latency -s "$WORK/paths.lua" "http://127.0.0.1:$PORT_GEO" | grep -E "Requests/sec|Non-2xx|Socket errors|  (50|99)%"
curl -s "http://127.0.0.1:$PORT_GEO/metrics" | grep -E "^tileserver_raster_cache_(hits|misses|evictions)_total|^tileserver_raster_cache_bytes"
python3 scripts/oracles/serve_pmtiles_check.py "$WORK/monaco.pmtiles" "http://127.0.0.1:$PORT_GEO"
python3 scripts/oracles/serve_pmtiles_check.py "$WORK/copies.pmtiles" "http://127.0.0.1:$PORT_GEO"
