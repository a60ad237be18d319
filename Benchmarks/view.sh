#!/usr/bin/env bash
# Map view frames/s, LocationKit's MapView vs MapLibre Native (PyPI pymgl 0.5, software GL
# through Mesa's surfaceless EGL) on the same features: a 1280×720 view of Monaco at z15 tilted
# 45°, and the world at z2 (our globe; pymgl 0.5 has no globe, so its flat world). Each frame
# follows a small pan so it is drawn anew. MapLibre reads our Monaco features exported as GeoJSON
# (RenderBench export) with a small style of the same layers and colours, labels left out on its
# side (it needs glyph PBFs, which we do not ship). CPU seconds on both sides.
# Usage: Benchmarks/view.sh [OSM file] [frames]
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${LOCATIONKIT_DATA:-../shared/data}"
SRC="${1:-$DATA/osm/monaco.osm.pbf}"
FRAMES="${2:-60}"
OUT="${TMPDIR:-/tmp}/locationkit-view"
mkdir -p "$OUT"
swift build -c release --package-path Benchmarks --product ViewBench >/dev/null
swift build -c release --package-path Benchmarks --product RenderBench >/dev/null
BIN="$(swift build -c release --package-path Benchmarks --show-bin-path)"

echo "== LocationKit MapView"
"$BIN/ViewBench" "$SRC" "$DATA/world" "$FRAMES"

VENV="$OUT/venv"
[[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import pymgl, numpy" 2>/dev/null || "$VENV/bin/pip" install -q pymgl==0.5.0 numpy >/dev/null 2>&1 || {
    echo "== MapLibre Native: pymgl does not install here; no comparison"; exit 0; }
"$BIN/RenderBench" export "$SRC" "$OUT/geojson" >/dev/null
echo "== MapLibre Native (pymgl $("$VENV/bin/pip" show pymgl | awk '/^Version/{print $2}'), software GL)"
EGL_PLATFORM=surfaceless "$VENV/bin/python" - "$OUT/geojson" "$DATA/world" "$FRAMES" <<'PY'
import json, os, sys, time
from pymgl import Map
geo, world, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
def source(name):
    path = os.path.join(geo, name + ".geojson")
    return {"type": "geojson", "data": json.load(open(path))} if os.path.exists(path) else None
layers = [{"id": "bg", "type": "background", "paint": {"background-color": "#f2efe9"}}]
sources = {}
for name, kind, paint in [("landuse", "fill", {"fill-color": "#e0dfdf"}), ("landcover", "fill", {"fill-color": "#cdebb0"}),
                          ("park", "fill", {"fill-color": "#c8facc"}), ("water", "fill", {"fill-color": "#aad3df"}),
                          ("waterway", "line", {"line-color": "#aad3df", "line-width": 2}),
                          ("building", "fill", {"fill-color": "#d9d0c9", "fill-outline-color": "#c4b6ab"}),
                          ("transportation", "line", {"line-color": "#b0a0a0", "line-width": 5}),
                          ("transportation", "line", {"line-color": "#ffffff", "line-width": 3.5}),
                          ("boundary", "line", {"line-color": "#8d618b", "line-width": 1.5, "line-dasharray": [4, 2]})]:
    s = source(name)
    if s is None: continue
    sources[name] = s
    layers.append({"id": name + str(len(layers)), "type": kind, "source": name, "paint": paint})
def bench(label, style, lon, lat, zoom, pitch):
    m = Map(json.dumps(style), 1280, 720, 1, lon, lat, zoom)
    m.setPitch(pitch)
    m.renderBuffer()  # warm-up
    t = time.process_time()
    for i in range(frames):
        m.setCenter(lon + (1e-6 if i % 2 else -1e-6) * 2 ** (20 - zoom), lat)
        m.renderBuffer()
    dt = time.process_time() - t
    print("%s: %d frames 1280x720, %.1f ms/frame, %.1f frames/s (CPU)" % (label, frames, dt * 1000 / frames, frames / dt))
# MapLibre's zoom is the 512-pixel world's, as MapCamera's.
bench("Monaco z15 tilt 45 (mercator)", {"version": 8, "sources": sources, "layers": layers}, 7.4246, 43.7384, 15, 45)
countries = json.load(open(os.path.join(world, "ne_110m_countries.geojson")))
bench("world z2 (flat)", {"version": 8, "sources": {"c": {"type": "geojson", "data": countries}},
       "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#aad3df"}},
                  {"id": "land", "type": "fill", "source": "c", "paint": {"fill-color": "#f2efe9"}},
                  {"id": "line", "type": "line", "source": "c", "paint": {"line-color": "#b9a9b4", "line-width": 0.8}}]}, 10, 20, 2, 0)
PY
