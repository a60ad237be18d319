#!/usr/bin/env bash
# A real style's 512² frame (issue 31: "a 512² OSM Bright frame faster than MapLibre Native
# (pymgl) with the same style"), labels and icons included, drawn from the same files by
# LocationKit (`RenderBench style-frame`: StyleRendering's `Map`, as `geo snapshot --style` and
# `geo serve` draw) and by MapLibre Native (PyPI pymgl 0.5, software GL): Monaco's tiles from
# `geo tiles build` (MBTiles, z0–14), glyph ranges of the Noto fonts the style names from
# `geo glyphs build`, the style repository's icons packed by `geo sprites build`, and the style
# pointed at them by mbtiles:// and file:// URLs. Both draw the frame at Monaco, MapLibre zoom 14
# (the 256-pixel tiles' z15), once to warm (tiles read and parsed, glyphs and sprite loaded),
# then 7 frames whose centre moves by 1e-6° (a new frame each time); the median process CPU time
# of each, their ratio, and both PNGs in OUT with the share of pixels that differ by more than
# 10 levels in a channel (labels placed apart show there).
# STYLE_REPO: a clone of an OpenMapTiles style (github.com/openmaptiles/osm-bright-gl-style,
# positron-gl-style): style.json, icons/.
# Usage: Benchmarks/style-frame.sh STYLE_REPO [OSM file] [out dir]
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$(realpath "$1")"
DATA="${LOCATIONKIT_DATA:-../shared/data}"
SRC="${2:-$DATA/osm/monaco.osm.pbf}"
OUT="$(realpath -m "${3:-${TMPDIR:-/tmp}/locationkit-style-frame}")"
mkdir -p "$OUT"
swift build -c release --product geo >/dev/null
GEO="$(swift build -c release --show-bin-path)/geo"
swift build -c release --package-path Benchmarks --product RenderBench >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/RenderBench"

# The inputs, as a user makes them (scripts/real-styles.py makes the same for MapLibre GL JS).
rm -rf "$OUT/tiles.mbtiles" "$OUT/fonts"
"$GEO" tiles build "$SRC" -o "$OUT/tiles.mbtiles" --maxzoom 14 2>/dev/null
"$GEO" sprites build "$REPO/icons" -o "$OUT/sprite" >/dev/null
python3 - "$REPO/style.json" "$OUT" "$GEO" <<'PY'
import json, os, subprocess, sys
style, out, geo = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
# A glyph folder per font stack the style names, of the stack's fonts that are installed (Noto
# Sans by its file name; others, such as Positron's Metropolis, fall to the next in the stack),
# Noto Sans Regular where none is.
def noto(name):
    path = "/usr/share/fonts/truetype/noto/" + name.replace(" ", "", 1).replace(" ", "-", 1).replace(" ", "") + ".ttf"
    return path if os.path.exists(path) else None
stacks = {tuple(l["layout"]["text-font"]) for l in style["layers"]
          if isinstance(l.get("layout", {}).get("text-font"), list) and all(isinstance(f, str) for f in l["layout"]["text-font"])}
for stack in stacks:
    fonts = [f for f in map(noto, stack) if f] or [noto("Noto Sans Regular")]
    subprocess.run([geo, "glyphs", "build", *fonts, "-o", out + "/fonts/" + ",".join(stack), "--name", ",".join(stack)],
                   check=True, stdout=subprocess.DEVNULL)
for source in style["sources"].values():
    if source.get("type") == "vector":
        source.pop("tiles", None)
        source["url"] = "mbtiles://" + out + "/tiles.mbtiles"
style["glyphs"] = "file://" + out + "/fonts/{fontstack}/{range}.pbf"
style["sprite"] = "file://" + out + "/sprite"
open(out + "/style.json", "w").write(json.dumps(style))
PY

VENV="$OUT/venv"
[[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import pymgl, numpy, PIL" 2>/dev/null || "$VENV/bin/pip" install -q pymgl==0.5.0 numpy pillow >/dev/null
OURS="$("$BENCH" style-frame "$OUT/style.json" "$OUT/tiles.mbtiles" "$OUT/locationkit.png")"
PEER="$(EGL_PLATFORM=surfaceless "$VENV/bin/python" Benchmarks/pymgl-frame.py "$OUT/style.json" "$OUT/pymgl.png")"
echo "LocationKit: $OURS"
echo "MapLibre Native (pymgl 0.5, software GL), the same style file and files: $PEER"
"$VENV/bin/python" - "$OUT" "$OURS" "$PEER" <<'PY'
import re, sys
import numpy as np
from PIL import Image
out, ours, peer = (sys.argv[1],) + tuple(float(re.search(r"median ([0-9.]+) ms", a).group(1)) for a in sys.argv[2:4])
a = np.asarray(Image.open(out + "/locationkit.png").convert("RGBA")).astype(int)
b = np.asarray(Image.open(out + "/pymgl.png").convert("RGBA")).astype(int)
print("ratio: LocationKit %.2fx MapLibre Native's speed; %.2f %% of pixels differ by more than 10 levels (%s/locationkit.png, pymgl.png)"
      % (peer / ours, (np.abs(a - b).max(axis=2) > 10).mean() * 100, out))
PY
