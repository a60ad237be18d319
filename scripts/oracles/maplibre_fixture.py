#!/usr/bin/env python3
"""Writes Tests/MapCameraTests/Fixtures/maplibre.tsv: MapLibre GL JS's own camera as the oracle.

Runs MapLibre GL JS (the maplibre-gl.js shipped in the PyPI `maplibre` wheel, 0.3.6 = GL JS 5.3.0)
in headless Chromium (Debian `chromium`, software WebGL) with its clock and animation frames
replaced by a manual clock, and records:
  project  — Map.project() of points for Mercator cameras (centre, zoom, bearing, pitch; 1280×720);
  unproject — Map.unproject() of screen points for the same cameras;
  globe    — Map.project() with the globe projection, zoom below 11 (the pure sphere);
  flight   — a flight's start and destination cameras (lat, lon, zoom, bearing, pitch each);
  flyto    — Map.flyTo() frames (centre, zoom, bearing, pitch) at t = i/30 s of a 3 s flight,
             default curve 1.42 and easing.
Regenerate with: pip install maplibre==0.3.6 && apt-get install chromium &&
python3 scripts/oracles/maplibre_fixture.py
"""
import json, math, pathlib, random, shutil, subprocess, tempfile, html, re
import maplibre

rng = random.Random(20261124)
root = pathlib.Path(__file__).resolve().parents[2]
out = root / "Tests/MapCameraTests/Fixtures/maplibre.tsv"
js = pathlib.Path(maplibre.__file__).parent / "srcjs/maplibre-gl.js"

cameras = [(52.52, 13.4, 12, 30, 45), (35.68, 139.77, 15, 0, 0), (-33.9, 18.4, 8, 200, 60), (0, 0, 2, 0, 0)]
cameras += [(rng.uniform(-70, 70), rng.uniform(-180, 180), rng.uniform(3, 20), rng.uniform(0, 360), rng.uniform(0, 60)) for _ in range(26)]
flights = [((35.6812, 139.7671, 15, 0, 0), (34.7025, 135.4959, 15, 0, 0)),
           ((48.8566, 2.3522, 12, 0, 0), (40.7128, -74.006, 10, 90, 40)),
           ((-17.7, 178.0, 6, 10, 0), (-13.8, -172.1, 9, 350, 30)),
           ((52.52, 13.4, 4, 0, 0), (52.52, 13.4, 11, 0, 0))]

page = """<!doctype html><html><body>
<script>
let fakeNow = 1000; let frames = [];
performance.now = () => fakeNow;
window.requestAnimationFrame = cb => { frames.push(cb); return frames.length; };
window.cancelAnimationFrame = () => {};
</script>
<script src="maplibre-gl.js"></script>
<div id="map" style="width:1280px;height:720px"></div>
<pre id="out"></pre>
<script>
const CAMERAS = %s, FLIGHTS = %s, POINTS = %s, GLOBE = %s, GLOBE_POINTS = %s;
const rows = [];
const map = new maplibregl.Map({container: 'map', style: {version: 8, sources: {}, layers: []}, center: [0, 0], zoom: 1,
  interactive: false, fadeDuration: 0, attributionControl: false, maxPitch: 60});
// Animation frames run only once the (empty) style has loaded.
map.once('load', () => {
try {
  CAMERAS.forEach((c, i) => {
    map.jumpTo({center: [c[1], c[0]], zoom: c[2], bearing: c[3], pitch: c[4]});
    const m = map.getCenter();
    rows.push(["camera", ...c, m.lat, m.lng, map.getZoom(), map.getBearing(), map.getPitch(), map.transform.cameraToCenterDistance, map.transform.fov]);
    for (const p of POINTS[i].geo) { const s = map.project([p[1], p[0]]); rows.push(["project", ...c, p[0], p[1], s.x, s.y]); }
    for (const s of POINTS[i].screen) { const g = map.unproject(s); rows.push(["unproject", ...c, s[0], s[1], g.lat, g.lng]); }
  });
  map.setProjection({type: 'globe'});
  GLOBE.forEach((c, i) => {
    map.jumpTo({center: [c[1], c[0]], zoom: c[2], bearing: c[3], pitch: c[4]});
    for (const p of GLOBE_POINTS[i]) { const s = map.project([p[1], p[0]]); rows.push(["globe", ...c, p[0], p[1], s.x, s.y]); }
  });
  map.setProjection({type: 'mercator'});
  FLIGHTS.forEach(([a, b], i) => {
    rows.push(["flight", i, ...a, ...b]);
    map.jumpTo({center: [a[1], a[0]], zoom: a[2], bearing: a[3], pitch: a[4]});
    const start = fakeNow;
    map.flyTo({center: [b[1], b[0]], zoom: b[2], bearing: b[3], pitch: b[4], duration: 3000, essential: true});
    for (let f = 0; f <= 90; f++) {
      fakeNow = start + f * 1000 / 30;
      const now = frames; frames = [];
      for (const cb of now) cb(fakeNow);
      const c = map.getCenter();
      rows.push(["flyto", i, f / 30, c.lat, c.lng, map.getZoom(), map.getBearing(), map.getPitch()]);
    }
    fakeNow += 10000; const rest = frames; frames = []; for (const cb of rest) cb(fakeNow);
  });
} catch (e) { rows.push(["error", String(e), String(e.stack)]); }
document.getElementById('out').textContent = rows.map(r => r.join("\\t")).join("\\n");
});
// The style loads through timers; run the frames the map asks for meanwhile.
const pump = setInterval(() => { const now = frames; frames = []; for (const cb of now) cb(fakeNow); if (map.loaded()) clearInterval(pump); }, 10);
</script></body></html>"""

points = []
for lat, lon, zoom, bearing, pitch in cameras:
    span = 600 / (512 * 2 ** zoom) * 360  # about half a view, degrees
    geo = [(lat + rng.uniform(-span, span) * 0.5, lon + rng.uniform(-span, span)) for _ in range(8)]
    screen = [(rng.uniform(0, 1280), rng.uniform(720 * (0.45 if pitch > 50 else 0), 720)) for _ in range(8)]
    points.append({"geo": geo, "screen": screen})
flight_json = [[list(a), list(b)] for a, b in flights]
# Globe cameras below zoom 11, where MapLibre's globe is the pure sphere (from 11 to 12 it blends
# into Mercator in its shader, while its project() still answers for the sphere).
globe = [(0, 0, 1, 0, 0), (-15, 140, 1.5, 0, 0), (30, 10, 3, 40, 35), (70, -40, 2, 300, 50)]
globe += [(rng.uniform(-75, 75), rng.uniform(-180, 180), rng.uniform(0, 9.9), rng.uniform(0, 360), rng.uniform(0, 60)) for _ in range(16)]
globe_points = []
for lat, lon, zoom, bearing, pitch in globe:
    reach = min(0.4, 300 / (512 * 2 ** zoom / (2 * math.pi)))  # radians, within a few hundred px
    pts = []
    for _ in range(10):
        r, a = rng.uniform(0, reach), rng.uniform(0, 2 * math.pi)
        p0, l0 = math.radians(lat), math.radians(lon)
        p = math.asin(math.sin(p0) * math.cos(r) + math.cos(p0) * math.sin(r) * math.cos(a))
        l = l0 + math.atan2(math.sin(a) * math.sin(r) * math.cos(p0), math.cos(r) - math.sin(p0) * math.sin(p))
        pts.append((math.degrees(p), (math.degrees(l) + 180) % 360 - 180))
    globe_points.append(pts)
with tempfile.TemporaryDirectory() as d:
    shutil.copy(js, d + "/maplibre-gl.js")
    pathlib.Path(d, "page.html").write_text(page % (json.dumps(cameras), json.dumps(flight_json), json.dumps(points),
                                                      json.dumps(globe), json.dumps(globe_points)))
    dom = subprocess.run(["chromium", "--headless=new", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                          "--window-size=1400,900", "--virtual-time-budget=5000", "--dump-dom", f"file://{d}/page.html"],
                         capture_output=True, text=True, timeout=120).stdout
text = html.unescape(re.search(r'<pre id="out">(.*?)</pre>', dom, re.S).group(1))
if "error\t" in text:
    raise SystemExit(text)
lines = ["# kind\tinputs...\texpected... (MapLibre GL JS 5.3.0, see maplibre_fixture.py)"] + text.strip().split("\n")
out.write_text("\n".join(lines) + "\n")
print(f"wrote {len(lines) - 1} rows to {out}")
