#!/usr/bin/env bash
# Map view frames/s and memory, LocationKit's MapView vs MapLibre Native (PyPI pymgl 0.5,
# software GL through Mesa's surfaceless EGL) on the same features and the same pan: a
# 1280×720 view of Monaco at z15 tilted 45°, and the world at z2 (our globe; pymgl 0.5 has no
# globe, so its flat world). Both follow the pan ViewBench prints with --path (once round a
# circle on the ground, every frame a new camera state, new tiles coming into view). MapLibre
# reads our Monaco features exported as GeoJSON (RenderBench export) with a small style of
# the same layers and colours, labels left out on its side (it needs glyph PBFs, which we do
# not ship; ours are drawn every frame); its renderBuffer() returns raw RGBA, no PNG, as ours.
# One core for both (taskset -c 0; Mesa's llvmpipe with LP_NUM_THREADS=0 draws on the calling
# thread); CPU seconds on both sides. Then memory: RSS over MEMORY_FRAMES frames of the same
# kind of pan with labels (0 skips it). Ours also prints each pan's median and worst frame, and
# a pan zooming in across two tile zooms (the worst frame shows whether a zoom crossing stalls).
# Run it three times and take the medians: the machine is shared.
# Usage: Benchmarks/view.sh [OSM file] [frames] [memory frames]
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${LOCATIONKIT_DATA:-../shared/data}"
SRC="${1:-$DATA/osm/monaco.osm.pbf}"
FRAMES="${2:-300}"
MEMORY_FRAMES="${3:-10000}"
OUT="${TMPDIR:-/tmp}/locationkit-view"
mkdir -p "$OUT"
swift build -c release --package-path Benchmarks --product ViewBench >/dev/null
swift build -c release --package-path Benchmarks --product RenderBench >/dev/null
BIN="$(swift build -c release --package-path Benchmarks --show-bin-path)"

echo "== LocationKit MapView"
taskset -c 0 "$BIN/ViewBench" "$SRC" "$DATA/world" "$FRAMES"
"$BIN/ViewBench" "$SRC" "$DATA/world" "$FRAMES" --path > "$OUT/path.txt"

VENV="$OUT/venv"
[[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import pymgl, numpy" 2>/dev/null || "$VENV/bin/pip" install -q pymgl==0.5.0 numpy >/dev/null 2>&1 || {
    echo "== MapLibre Native: pymgl does not install here; no comparison"; exit 0; }
"$BIN/RenderBench" export "$SRC" "$OUT/geojson" >/dev/null
echo "== MapLibre Native (pymgl $("$VENV/bin/pip" show pymgl | awk '/^Version/{print $2}'), software GL)"
EGL_PLATFORM=surfaceless LP_NUM_THREADS=0 taskset -c 0 "$VENV/bin/python" - "$OUT/geojson" "$DATA/world" "$OUT/path.txt" <<'PY'
import json, os, sys, time
from pymgl import Map
geo, world = sys.argv[1], sys.argv[2]
path = {}
for line in open(sys.argv[3]):
    name, lon, lat = line.split()
    path.setdefault(name, []).append((float(lon), float(lat)))
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
def bench(label, style, pan, zoom, pitch):
    lon, lat = pan[0]
    t = time.process_time()
    m = Map(json.dumps(style), 1280, 720, 1, lon, lat, zoom)
    m.setPitch(pitch)
    m.renderBuffer()
    first = time.process_time() - t
    t = time.process_time()
    for lon, lat in pan:
        m.setCenter(lon, lat)
        m.renderBuffer()
    dt = time.process_time() - t
    print("%s: first frame %.0f ms; pan of %d frames 1280x720, %.1f ms/frame, %.1f frames/s (CPU)" % (label, first * 1000, len(pan), dt * 1000 / len(pan), len(pan) / dt))
# MapLibre's zoom is the 512-pixel world's, as MapCamera's.
bench("Monaco z15 tilt 45 (mercator)", {"version": 8, "sources": sources, "layers": layers}, path["monaco"], 15, 45)
countries = json.load(open(os.path.join(world, "ne_110m_countries.geojson")))
bench("world z2 (flat)", {"version": 8, "sources": {"c": {"type": "geojson", "data": countries}},
       "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#aad3df"}},
                  {"id": "land", "type": "fill", "source": "c", "paint": {"fill-color": "#f2efe9"}},
                  {"id": "line", "type": "line", "source": "c", "paint": {"line-color": "#b9a9b4", "line-width": 0.8}}]}, path["globe"], 2, 0)
PY

if (( MEMORY_FRAMES > 0 )); then
    echo "== LocationKit MapView memory: $MEMORY_FRAMES frames"
    taskset -c 0 "$BIN/ViewBench" "$SRC" "$DATA/world" "$MEMORY_FRAMES" --only labels
fi
