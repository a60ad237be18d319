#!/usr/bin/env bash
# `geo serve` against nginx on loopback (issue 32): the tiles of a Monaco archive (zooms 0…MAXZOOM)
# requested in turn over 256 keep-alive connections by wrk (Debian), from `geo serve` (the
# archive) and from nginx (the same tiles as static gzip files, in the same run). Prints each
# server's requests/s and latency percentiles, the ratio, and geo's peak RSS; then TileJSON
# requests/s from `geo serve` alone (the issue asks ≥ 20,000); then raster tiles of a fill/line
# style at RZOOMS over Monaco, cold (each tile asked once in turn: 4 × 4 metatiles drawn, 15 of 16
# then cache hits) and warm (again, then wrk), next to `geo tiles render` of the same tiles
# offline; then checks every served tile against PyPI `pmtiles` (scripts/oracles/serve_pmtiles_check.py).
# Needs: wrk, nginx (apt-get install wrk nginx), python3 with pmtiles (pip install pmtiles).
# Usage: Benchmarks/serve.sh [SECONDS] [MAXZOOM] [GEO] [RZOOMS]   (GEO: a built geo; default
# release; RZOOMS: raster zooms, default 14-16)
set -euo pipefail
cd "$(dirname "$0")/.."
D="${1:-30}"; MAXZOOM="${2:-16}"; GEO="${3:-}"; RZOOMS="${4:-14-16}"
DATA="${LOCATIONKIT_DATA:-../shared/data}/osm/monaco.osm.pbf"
if [ -z "$GEO" ]; then swift build -c release --product geo >/dev/null; GEO="$(swift build -c release --show-bin-path)/geo"; fi
WORK="$(mktemp -d)"; SERVER=""; NGINX=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; [ -n "$NGINX" ] && kill "$NGINX" 2>/dev/null; rm -rf "$WORK"' EXIT
ulimit -n 65536 2>/dev/null || true
"$GEO" tiles build "$DATA" -o "$WORK/monaco.pmtiles" --maxzoom "$MAXZOOM" 2>/dev/null
# The tiles as files for nginx, and the list of paths wrk cycles through.
python3 - "$WORK" <<'PY'
import os, sys
from pmtiles.reader import MmapSource, all_tiles
work = sys.argv[1]
paths = []
with open(f"{work}/monaco.pmtiles", "rb") as f:
    for (z, x, y), data in all_tiles(MmapSource(f)):
        path = f"/monaco/{z}/{x}/{y}.pbf"
        os.makedirs(os.path.dirname(f"{work}/www{path}"), exist_ok=True)
        with open(f"{work}/www{path}", "wb") as out: out.write(data)
        paths.append(path)
open(f"{work}/paths.txt", "w").write("\n".join(paths) + "\n")
print(f"{len(paths)} tiles", file=sys.stderr)
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
"$GEO" serve "$WORK/monaco.pmtiles" --style "$WORK/fills.json" --host 127.0.0.1 --port "$PORT_GEO" --quiet > "$WORK/url" 2> "$WORK/server.err" & SERVER=$!
for _ in $(seq 300); do [ -s "$WORK/url" ] && break; sleep 0.1; done
sleep 0.5
export PATHS="$WORK/paths.txt"
run() { wrk -t2 -c256 -d"${D}s" --latency -s "$WORK/paths.lua" "http://127.0.0.1:$1" | tee "$WORK/$2.txt" | grep -E "Requests/sec|Non-2xx|Socket errors|  (50|99)%"; }
echo "== geo serve"; run "$PORT_GEO" geo
echo "== nginx";     run "$PORT_NGINX" nginx
g=$(awk '/Requests\/sec/ {print $2}' "$WORK/geo.txt"); n=$(awk '/Requests\/sec/ {print $2}' "$WORK/nginx.txt")
echo "geo serve / nginx requests/s: $(python3 -c "print(round($g / $n, 2))")"
echo "geo serve peak RSS: $(grep VmHWM /proc/$SERVER/status | awk '{print $2, $3}')"
echo "== geo serve TileJSON (/monaco.json)"
wrk -t2 -c64 -d"${D}s" --latency "http://127.0.0.1:$PORT_GEO/monaco.json" | grep -E "Requests/sec|Non-2xx|Socket errors|  (50|99)%"
echo "== raster tiles, zooms $RZOOMS"
t0=$(date +%s.%N); "$GEO" tiles render "$WORK/monaco.pmtiles" --zoom "$RZOOMS" -o "$WORK/render" 2>/dev/null; t1=$(date +%s.%N)
(cd "$WORK/render" && find . -name '*.png' | sed 's#^\./#/styles/fills/#' | sort) > "$WORK/raster.txt"
echo "geo tiles render offline: $(wc -l < "$WORK/raster.txt") tiles, $(python3 -c "print(round($(wc -l < "$WORK/raster.txt") / ($t1 - $t0), 1))") tiles/s"
python3 - "$PORT_GEO" "$WORK/raster.txt" <<'PY'
import http.client, sys, time
port, paths = int(sys.argv[1]), open(sys.argv[2]).read().split()
conn = http.client.HTTPConnection("127.0.0.1", port)
for name in ("cold", "warm"):
    times = []
    for p in paths:
        t = time.perf_counter(); conn.request("GET", p); r = conn.getresponse(); r.read(); times.append(time.perf_counter() - t)
        assert r.status == 200, (p, r.status)
    times.sort()
    print(f"geo serve {name}: {len(paths)} tiles, {len(paths) / sum(times):.1f} tiles/s, p50 {times[len(times) // 2] * 1e3:.2f} ms, p99 {times[int(len(times) * 0.99)] * 1e3:.2f} ms")
PY
PATHS="$WORK/raster.txt" wrk -t2 -c64 -d"${D}s" --latency -s "$WORK/paths.lua" "http://127.0.0.1:$PORT_GEO" | grep -E "Requests/sec|Non-2xx|Socket errors|  (50|99)%"
curl -s "http://127.0.0.1:$PORT_GEO/metrics" | grep -E "^tileserver_raster_cache_(hits|misses|evictions)_total|^tileserver_raster_cache_bytes"
python3 scripts/oracles/serve_pmtiles_check.py "$WORK/monaco.pmtiles" "http://127.0.0.1:$PORT_GEO"
