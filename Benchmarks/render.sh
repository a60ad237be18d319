#!/usr/bin/env bash
# Offline rendering, LocationKit vs Mapnik 3.1 (Debian python3-mapnik) on the same features:
# one 512² frame of Monaco at z15, and raster tiles/s per zoom z14–17 (256², a 2 km square over
# Monaco), PNG encoding reported apart. Mapnik reads our features exported as GeoJSON (its
# geojson plugin, in memory after the first render) and draws them with a small XML style of the
# same layers and colours (land use, parks, water, buildings, roads by class with casings,
# railways, boundaries, place and street labels in Noto Sans). CPU seconds on both sides.
# Usage: Benchmarks/render.sh [OSM file] [out dir]   (apt-get install python3-mapnik for the peer)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${LOCATIONKIT_DATA:-../shared/data}"
SRC="${1:-$DATA/osm/monaco.osm.pbf}"
OUT="${2:-${TMPDIR:-/tmp}/locationkit-render}"
mkdir -p "$OUT"
swift build -c release --package-path Benchmarks --product RenderBench >/dev/null
BENCH="$(swift build -c release --package-path Benchmarks --show-bin-path)/RenderBench"

echo "== LocationKit MapRenderer"
"$BENCH" frame "$SRC" 5
"$BENCH" tiles "$SRC" 14 17 "$OUT/tiles"

# Mapnik's Python binding lives in Debian's own python3.
PYM=/usr/bin/python3
if ! "$PYM" -c "import mapnik" 2>/dev/null; then
    echo "== Mapnik: python3-mapnik is not installed; no comparison"
    exit 0
fi
"$BENCH" export "$SRC" "$OUT/geojson" >/dev/null
echo "== Mapnik $("$PYM" -c 'import mapnik; print(mapnik.mapnik_version())') (same features, comparable style)"
"$PYM" - "$OUT/geojson" "$OUT" <<'PY'
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
    x.append('<Style name="place"><Rule><TextSymbolizer face-name="Noto Sans Regular" size="13" fill="#222222" halo-fill="#ffffff" halo-radius="2">[name]</TextSymbolizer></Rule></Style>')
    x.append('<Style name="street"><Rule><TextSymbolizer face-name="Noto Sans Regular" size="11" fill="#333333" halo-fill="#ffffff" halo-radius="1.5" placement="line">[name]</TextSymbolizer></Rule></Style>')
    for layer, st in [("landcover", "area"), ("landuse", "area"), ("park", "park"), ("water", "water"), ("waterway", "waterway"),
                      ("building", "building"), ("transportation", "casing"), ("transportation", "road"), ("boundary", "boundary"),
                      ("place", "place"), ("transportation_name", "street")]:
        if st == "building" and z < 14: continue
        x.append(f'<Layer name="{layer}-{st}" srs="epsg:4326"><StyleName>{st}</StyleName><Datasource>'
                 f'<Parameter name="type">geojson</Parameter><Parameter name="file">{src}/{layer}.geojson</Parameter></Datasource></Layer>')
    x.append('</Map>')
    return "".join(x)
def render(m, cx, cy, z, w, h):
    res = 2 * math.pi * R / (256 * 2 ** z)
    m.zoom_to_box(mapnik.Box2d(cx - w / 2 * res, cy - h / 2 * res, cx + w / 2 * res, cy + h / 2 * res))
    im = mapnik.Image(w, h)
    t0 = time.process_time(); mapnik.render(m, im); t1 = time.process_time()
    data = im.tostring("png"); t2 = time.process_time()
    return im, t1 - t0, t2 - t1, data
cx, cy = merc(43.7384, 7.4246)
m = mapnik.Map(512, 512); mapnik.load_map_from_string(m, style(15))
render(m, cx, cy, 15, 512, 512)  # warm: the GeoJSON files are parsed and indexed on first use
best = min(render(m, cx, cy, 15, 512, 512)[1:3] for _ in range(5))
im, _, _, data = render(m, cx, cy, 15, 512, 512)
open(f"{out}/mapnik-frame.png", "wb").write(data)
print("frame 512x512 z15 Monaco: render %.1f ms, PNG encode %.1f ms" % (best[0] * 1000, best[1] * 1000))
def tile_range(z):
    n = 2 ** z
    def tx(lon): return int((lon + 180) / 360 * n)
    def ty(lat): return int((1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n)
    return [(x, y) for x in range(tx(7.4122), tx(7.4370) + 1) for y in range(ty(43.7474), ty(43.7294) + 1)]
for z in range(14, 18):
    m = mapnik.Map(256, 256); mapnik.load_map_from_string(m, style(z))
    tiles = tile_range(z); n = 2 ** z
    render(m, cx, cy, z, 256, 256)
    rt = pt = 0.0
    for x, y in tiles:
        lon = (x + 0.5) / n * 360 - 180
        lat = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * (y + 0.5) / n))))
        _, r, p, _ = render(m, *merc(lat, lon), z, 256, 256)
        rt += r; pt += p
    print("z%d: %d tiles, render %.1f tiles/s (%.2f ms/tile), PNG encode %.2f ms/tile, with PNG %.1f tiles/s"
          % (z, len(tiles), len(tiles) / rt, rt * 1000 / len(tiles), pt * 1000 / len(tiles), len(tiles) / (rt + pt)))
PY
