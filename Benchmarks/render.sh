#!/usr/bin/env bash
# Offline rendering, LocationKit vs Mapnik 3.1 (Debian python3-mapnik) on the same features:
# one 512² frame of Monaco at z15, and raster tiles/s per zoom z14–17 (256², a 2 km square over
# Monaco), PNG encoding reported apart. LocationKit draws the map's look, the default MapLibre
# style (MapStyle's `DefaultStyle`, day), through StyleRendering's `Map` over the features
# tiled in memory as `geo tiles build` tiles them (`FeatureMapSource`), as `geo tiles render
# --style default` and `geo serve` draw raster tiles: one `Map` keeps the decoded tiles, glyph
# ranges and per-layer work across tiles, as a server does. Each tile is drawn on its own, as
# Mapnik's are; then the same tiles in 4 × 4 metatiles on both sides (one image per block, cut
# into tiles: how `geo tiles render` and mod_tile draw). Mapnik reads our features exported as
# GeoJSON (its geojson plugin, in memory after the first render) and draws them with a small XML
# style of the default style's layers, colours and widths (land use, parks, water, buildings,
# roads by class with casings, railways, boundaries, one-way arrows from z16, place, street,
# water and park labels in Noto Sans). What the default style draws beyond it: tunnel and bridge
# variants of the roads, transit and track lines, dashed steps; POIs and pedestrian features are
# off in both (as `geo tiles render --style default`). CPU seconds on both sides, one thread
# each; the two run interleaved, ROUNDS times (default 3): take the medians.
# The legacy painter (MapRenderer's `MapPainter`, still MapView's default painter) is measured
# once after the rounds, for reference: it draws the old look, not the style.
# PNG like for like: Mapnik's png32 (RGBA, no row filter, zlib level 6, default strategy, its
# png_io.hpp) against PNG.encode(level: 6, filter: .none); Mapnik's default "png" is png8
# (hextree-quantised palette), shown apart.
# Then `geo tiles render` end to end (release build, all of the data's tiles z14–17, PNG files
# written), from the OSM file and from our PMTiles, and MapLibre Native (PyPI pymgl, software GL) drawing the same 512² z15 frame from
# our `geo tiles build` MBTiles with a comparable style (no labels: it needs glyph PBFs), written to
# OUT/pymgl-style.json; then RenderBench draws that same style file over the same MBTiles, timed
# as the pymgl loop times it (`RenderBench style-frame`): the like-for-like line.
# Usage: Benchmarks/render.sh [OSM file] [out dir]   (apt-get install python3-mapnik for the peer)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${LOCATIONKIT_DATA:-../shared/data}"
SRC="${1:-$DATA/osm/monaco.osm.pbf}"
OUT="${2:-${TMPDIR:-/tmp}/locationkit-render}"
ROUNDS="${ROUNDS:-3}"
mkdir -p "$OUT"
swift build -c release --package-path Benchmarks --product RenderBench >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/RenderBench"

# Mapnik's Python binding lives in Debian's own python3.
PYM=/usr/bin/python3
MAPNIK=yes
"$PYM" -c "import mapnik" 2>/dev/null || MAPNIK=no
[[ $MAPNIK == yes ]] && "$BENCH" export "$SRC" "$OUT/geojson" >/dev/null
cat > "$OUT/mapnik-bench.py" <<'PY'
import math, sys, time, mapnik
src, out = sys.argv[1], sys.argv[2]
mapnik.register_fonts("/usr/share/fonts/truetype/noto/")
R = 6378137.0
def merc(lat, lon):
    return R * math.radians(lon), R * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))
roads = [("service", 3.5, "#ffffff", "#bbbbbb"), ("minor", 6.5, "#ffffff", "#bbbbbb"), ("tertiary", 8, "#ffffff", "#8f8f8f"),
         ("secondary", 9, "#f7fabf", "#707d05"), ("primary", 10, "#fcd6a4", "#a06b00"), ("trunk", 11, "#f9b29c", "#c84e2f"),
         ("motorway", 12, "#e892a2", "#dc2a67")]
areas = {"wood": "#add19e", "grass": "#cdebb0", "residential": "#e0dfdf", "commercial": "#f2dad9", "retail": "#f2dad9",
         "industrial": "#ebdbe8", "cemetery": "#aacbaf", "school": "#ffffe5", "hospital": "#ffffe5", "pitch": "#aae0cb", "stadium": "#aae0cb"}
def style(z):
    s = 2 ** (z - 16)
    x = ['<Map srs="epsg:3857" background-color="#f2efe9">']
    x.append('<Style name="area">' + "".join(f'<Rule><Filter>[class] = \'{c}\'</Filter><PolygonSymbolizer fill="{v}"/></Rule>' for c, v in areas.items()) + '</Style>')
    x.append('<Style name="park"><Rule><PolygonSymbolizer fill="#c8facc"/></Rule></Style>')
    x.append('<Style name="water"><Rule><PolygonSymbolizer fill="#aad3df"/></Rule></Style>')
    x.append(f'<Style name="waterway"><Rule><LineSymbolizer stroke="#aad3df" stroke-width="{max(0.7, 2.5 * s)}"/></Rule></Style>')
    outline = '<LineSymbolizer stroke="#c4b6ab" stroke-width="0.6"/>' if z >= 15 else ''
    x.append(f'<Style name="building"><Rule><PolygonSymbolizer fill="#d9d0c9"/>{outline}</Rule></Style>')
    cas = "".join(f'<Rule><Filter>[class] = \'{c}\'</Filter><LineSymbolizer stroke="{k}" stroke-width="{max(0.8, w * s) + 2 * max(0.5, min(1, s * 2))}" stroke-linejoin="round"/></Rule>' for c, w, f, k in roads)
    fil = "".join(f'<Rule><Filter>[class] = \'{c}\'</Filter><LineSymbolizer stroke="{f}" stroke-width="{max(0.8, w * s)}" stroke-linejoin="round" stroke-linecap="round"/></Rule>' for c, w, f, k in roads)
    rail = '<Rule><Filter>[class] = \'rail\'</Filter><LineSymbolizer stroke="#707070" stroke-width="3"/><LineSymbolizer stroke="#ffffff" stroke-width="1.5" stroke-dasharray="6,6"/></Rule>'
    x.append(f'<Style name="casing">{cas}</Style><Style name="road">{fil}{rail}</Style>')
    x.append('<Style name="boundary"><Rule><LineSymbolizer stroke="#8d618b" stroke-width="1.5" stroke-dasharray="6,3,2,3"/></Rule></Style>')
    # The default style's labels: sizes by place class, the baseline on the point (text-offset −0.35 em).
    def text(size, fill, halo, where=""):
        return (f'<TextSymbolizer face-name="Noto Sans Regular" size="{size}" fill="{fill}" halo-fill="#ffffff" halo-radius="{halo}" '
                f'dy="{-0.35 * size:.2f}"{where}>[name]</TextSymbolizer>')
    sizes = [("[class] = 'country' or [class] = 'state' or [class] = 'city'", 18), ("[class] = 'town'", 15),
             ("[class] = 'village' or [class] = 'suburb'", 13)]
    x.append('<Style name="place">' + "".join(f'<Rule><Filter>{f}</Filter>{text(v, "#222222", 2)}</Rule>' for f, v in sizes)
             + f'<Rule><ElseFilter/>{text(11.5, "#222222", 2)}</Rule></Style>')
    x.append('<Style name="street"><Rule><TextSymbolizer face-name="Noto Sans Regular" size="11" fill="#333333" halo-fill="#ffffff" halo-radius="1.5" placement="line" spacing="250" max-char-angle-delta="30">[name]</TextSymbolizer></Rule></Style>')
    interior = ' placement="interior"'
    x.append('<Style name="water-name"><Rule>' + text(12, "#1a6d9a", 1.5, interior) + '</Rule></Style>')
    x.append('<Style name="park-name"><Rule>' + text(12, "#2e7d32", 1.5, interior) + '</Rule></Style>')
    # One-way arrows along the road from z16 (the style's zoom 15), every 180 px, against the way for oneway = −1.
    arrow = '<MarkersSymbolizer file="shape://arrow" placement="line" spacing="180" width="9" height="6" fill="#5a5a5a" allow-overlap="false"{}/>'
    x.append('<Style name="oneway"><Rule><Filter>[oneway] = 1</Filter>' + arrow.format("") + '</Rule>'
             '<Rule><Filter>[oneway] = -1</Filter>' + arrow.format(' transform="rotate(180)"') + '</Rule></Style>')
    for layer, st in [("landcover", "area"), ("landuse", "area"), ("park", "park"), ("water", "water"), ("waterway", "waterway"),
                      ("building", "building"), ("transportation", "casing"), ("transportation", "road"), ("boundary", "boundary"),
                      ("transportation", "oneway"), ("transportation_name", "street"), ("water", "water-name"), ("park", "park-name"), ("place", "place")]:
        if st == "building" and z < 14: continue
        if st == "oneway" and z < 16: continue
        x.append(f'<Layer name="{layer}-{st}" srs="epsg:4326"><StyleName>{st}</StyleName><Datasource>'
                 f'<Parameter name="type">geojson</Parameter><Parameter name="file">{src}/{layer}.geojson</Parameter></Datasource></Layer>')
    x.append('</Map>')
    return "".join(x)
def render(m, cx, cy, z, w, h):
    res = 2 * math.pi * R / (256 * 2 ** z)
    m.zoom_to_box(mapnik.Box2d(cx - w / 2 * res, cy - h / 2 * res, cx + w / 2 * res, cy + h / 2 * res))
    im = mapnik.Image(w, h)
    t0 = time.process_time(); mapnik.render(m, im); t1 = time.process_time()
    data = im.tostring("png32"); t2 = time.process_time()
    return im, t1 - t0, t2 - t1, data
cx, cy = merc(43.7384, 7.4246)
m = mapnik.Map(512, 512); mapnik.load_map_from_string(m, style(15))
render(m, cx, cy, 15, 512, 512)  # warm: the GeoJSON files are parsed and indexed on first use
best = min(render(m, cx, cy, 15, 512, 512)[1:3] for _ in range(5))
im, _, _, data = render(m, cx, cy, 15, 512, 512)
open(f"{out}/mapnik-frame.png", "wb").write(data)
t = time.process_time(); png8 = im.tostring("png"); t8 = time.process_time() - t
print("frame 512x512 z15 Monaco: render %.1f ms, PNG encode %.1f ms (%d bytes png32; png8 %.1f ms, %d bytes)"
      % (best[0] * 1000, best[1] * 1000, len(data), t8 * 1000, len(png8)))
def tile_range(z):
    n = 2 ** z
    def tx(lon): return int((lon + 180) / 360 * n)
    def ty(lat): return int((1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n)
    return [(x, y) for x in range(tx(7.4122), tx(7.4370) + 1) for y in range(ty(43.7474), ty(43.7294) + 1)]
for z in range(14, 18):
    m = mapnik.Map(256, 256); mapnik.load_map_from_string(m, style(z))
    tiles = tile_range(z); n = 2 ** z
    render(m, cx, cy, z, 256, 256)
    rt = pt = 0.0; size = 0
    for x, y in tiles:
        lon = (x + 0.5) / n * 360 - 180
        lat = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * (y + 0.5) / n))))
        _, r, p, data = render(m, *merc(lat, lon), z, 256, 256)
        rt += r; pt += p; size += len(data)
    print("z%d: %d tiles, render %.1f tiles/s (%.2f ms/tile), PNG encode %.2f ms/tile (%.1f kB), with PNG %.1f tiles/s"
          % (z, len(tiles), len(tiles) / rt, rt * 1000 / len(tiles), pt * 1000 / len(tiles), size / len(tiles) / 1000, len(tiles) / (rt + pt)))
    if z == 15:
        # One tile of each side's, to look at side by side.
        x, y = tiles[len(tiles) // 2]
        im, _, _, data = render(m, *merc(math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * (y + 0.5) / n)))), (x + 0.5) / n * 360 - 180), z, 256, 256)
        open(f"{out}/mapnik-z{z}-{x}-{y}.png", "wb").write(data)
    # The same tiles in blocks of 4 × 4 (fewer at the edges, as Metatile.blocks), cut into tiles.
    xs = sorted({t[0] for t in tiles}); ys = sorted({t[1] for t in tiles})
    bt = 0.0
    for by in range(ys[0], ys[-1] + 1, 4):
        for bx in range(xs[0], xs[-1] + 1, 4):
            cols, rows = min(4, xs[-1] + 1 - bx), min(4, ys[-1] + 1 - by)
            m = mapnik.Map(256 * cols, 256 * rows); mapnik.load_map_from_string(m, style(z))
            lon = (bx + cols / 2) / n * 360 - 180
            lat = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * (by + rows / 2) / n))))
            render(m, *merc(lat, lon), z, 256 * cols, 256 * rows)  # warm this map
            im, r, _, _ = render(m, *merc(lat, lon), z, 256 * cols, 256 * rows)
            t0 = time.process_time()
            cut = [im.view(256 * i, 256 * j, 256, 256) for j in range(rows) for i in range(cols)]
            bt += r + time.process_time() - t0
    print("z%d: in 4x4 metatiles, render %.1f tiles/s (%.2f ms/tile)" % (z, len(tiles) / bt, bt * 1000 / len(tiles)))
PY

for round in $(seq 1 "$ROUNDS"); do
    echo "== round $round: LocationKit, the default style (StyleRendering)"
    "$BENCH" frame "$SRC" 5
    "$BENCH" tiles "$SRC" 14 17 "$OUT/tiles"
    if [[ $MAPNIK == yes ]]; then
        echo "== round $round: Mapnik $("$PYM" -c 'import mapnik; print(mapnik.mapnik_version())') (same features, comparable style)"
        "$PYM" "$OUT/mapnik-bench.py" "$OUT/geojson" "$OUT"
    else
        echo "== Mapnik: python3-mapnik is not installed; no comparison"
    fi
done

echo "== LocationKit legacy painter (MapRenderer's MapPainter, MapView's default; the old look), for reference"
"$BENCH" legacy-frame "$SRC" 5
"$BENCH" legacy-tiles "$SRC" 14 17

echo "== geo tiles render --style default end to end (release; every tile of the data's bounds, z14–17, PNG files written)"
swift build -c release --product geo >/dev/null
GEO="$(swift build -c release --show-bin-path)/geo"
rm -rf "$OUT/cli"
/usr/bin/time -f "%e s wall, %U s user + %S s system CPU" "$GEO" tiles render "$SRC" --style default --zoom 14-17 -o "$OUT/cli" 2>&1 | tail -2
echo "   $(find "$OUT/cli" -name '*.png' | wc -l) tiles written"
echo "== geo tiles render from our PMTiles (z14 vector tiles, drawn z14–17; decoded tiles cached between blocks)"
"$GEO" tiles build "$SRC" -o "$OUT/monaco.pmtiles" --maxzoom 14 2>/dev/null
rm -rf "$OUT/cli-archive"
/usr/bin/time -f "%e s wall, %U s user + %S s system CPU" "$GEO" tiles render "$OUT/monaco.pmtiles" --style default --zoom 14-17 -o "$OUT/cli-archive" 2>&1 | tail -2
echo "   $(find "$OUT/cli-archive" -name '*.png' | wc -l) tiles written"

"$GEO" tiles build "$SRC" -o "$OUT/monaco.mbtiles" --maxzoom 14 2>/dev/null
VENV="$OUT/venv"
[[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import pymgl, numpy" 2>/dev/null || "$VENV/bin/pip" install -q pymgl==0.5.0 numpy >/dev/null 2>&1 || {
    echo "== MapLibre Native: pymgl does not install here; no comparison"; exit 0; }
echo "== MapLibre Native (pymgl $("$VENV/bin/pip" show pymgl | awk '/^Version/{print $2}'), software GL) from our MBTiles, no labels"
"$VENV/bin/python" - "$(realpath "$OUT/monaco.mbtiles")" "$OUT/pymgl-style.json" <<'PY'
import json, sys
src, style_file = sys.argv[1], sys.argv[2]
roads = [("service", 3.5, "#ffffff", "#bbbbbb"), ("minor", 6.5, "#ffffff", "#bbbbbb"), ("tertiary", 8, "#ffffff", "#8f8f8f"),
         ("secondary", 9, "#f7fabf", "#707d05"), ("primary", 10, "#fcd6a4", "#a06b00"), ("trunk", 11, "#f9b29c", "#c84e2f"),
         ("motorway", 12, "#e892a2", "#dc2a67")]
layers = [{"id": "bg", "type": "background", "paint": {"background-color": "#f2efe9"}}]
def add(id, kind, layer, paint, flt=None):
    l = {"id": id, "type": kind, "source": "lk", "source-layer": layer, "paint": paint}
    if flt: l["filter"] = flt
    layers.append(l)
add("landcover", "fill", "landcover", {"fill-color": "#cdebb0"})
add("landuse", "fill", "landuse", {"fill-color": "#e0dfdf"})
add("park", "fill", "park", {"fill-color": "#c8facc"})
add("water", "fill", "water", {"fill-color": "#aad3df"})
add("waterway", "line", "waterway", {"line-color": "#aad3df", "line-width": 2.5})
add("building", "fill", "building", {"fill-color": "#d9d0c9", "fill-outline-color": "#c4b6ab"})
# Widths at our z15 (MapLibre's zoom 14): half the z16 widths, casings 1 px a side.
for c, w, f, k in roads:
    add("casing-" + c, "line", "transportation", {"line-color": k, "line-width": max(0.8, w / 2) + 2}, ["==", "class", c])
for c, w, f, k in roads:
    add("road-" + c, "line", "transportation", {"line-color": f, "line-width": max(0.8, w / 2)}, ["==", "class", c])
add("rail", "line", "transportation", {"line-color": "#707070", "line-width": 3}, ["==", "class", "rail"])
add("boundary", "line", "boundary", {"line-color": "#8d618b", "line-width": 1.5, "line-dasharray": [4, 2]})
style = {"version": 8, "sources": {"lk": {"type": "vector", "url": "mbtiles://" + src}}, "layers": layers}
open(style_file, "w").write(json.dumps(style))
PY
EGL_PLATFORM=surfaceless "$VENV/bin/python" Benchmarks/pymgl-frame.py "$OUT/pymgl-style.json" "$OUT/pymgl-frame.png" --png
echo "== LocationKit drawing the same style file over the same MBTiles (StyleRendering's Map, timed as pymgl is)"
"$BENCH" style-frame "$OUT/pymgl-style.json" "$OUT/monaco.mbtiles" "$OUT/style-frame.png"
