#!/usr/bin/env python3
"""Real styles of the OpenMapTiles world drawn by `geo snapshot --style` and by MapLibre GL JS.

Issue 31's measure: a style repository (openmaptiles/osm-bright-gl-style or positron-gl-style:
style.json, icons/) over an extract's tiles from `geo tiles build`, glyphs from `geo glyphs build`
(the Noto fonts the styles name; stacks naming fonts that are not installed fall back glyph by
glyph, as `geo serve` combines them), a sprite from `geo sprites build` over the repository's
icons. `geo serve` serves it all; MapLibre GL JS 5.3 (the PyPI `maplibre` wheel) in headless
Chromium draws six views (zoom 12 to 17, the zoom-15 one tilted 45°) from the server, and
`geo snapshot --style` draws the same views from a mirror of what the server served. Each pair is
compared as the render suite compares (pixelmatch 0.4, threshold 0.13, anti-aliased pixels not
counted) and the share of differing pixels printed; both pictures and the diff are kept in OUT.

Usage: scripts/real-styles.py GEO STYLE_REPO NAME OUT [EXTRACT.osm.pbf LAT,LON]
  (default extract: $LOCATIONKIT_DATA/osm/monaco.osm.pbf around 43.7384,7.4215)
Needs chromium, python3 with maplibre==0.3.6, pixelmatch==0.4.0 and Pillow (scripts/setup.sh).
"""
import base64, http.server, json, math, os, pathlib, shutil, socket, subprocess, sys, threading, time
import urllib.error, urllib.parse, urllib.request
import maplibre
from PIL import Image
from pixelmatch.contrib.PIL import pixelmatch

geo, repo, name, out = sys.argv[1:5]
data = os.environ.get("LOCATIONKIT_DATA", str(pathlib.Path(__file__).resolve().parents[2] / "shared/data"))
extract = sys.argv[5] if len(sys.argv) > 5 else data + "/osm/monaco.osm.pbf"
lat, lon = map(float, (sys.argv[6] if len(sys.argv) > 6 else "43.7384,7.4215").split(","))
out = pathlib.Path(out).resolve()
shutil.rmtree(out, ignore_errors=True)
work = out / "work"
work.mkdir(parents=True)
VIEWS = [(12, 0), (13, 0), (14, 0), (15, 45), (16, 0), (17, 0)]
FONTS = {"Noto Sans Regular": "NotoSans-Regular.ttf", "Noto Sans Bold": "NotoSans-Bold.ttf", "Noto Sans Italic": "NotoSans-Italic.ttf"}


def run(*args):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"real-styles: {' '.join(map(str, args))} failed: {r.stderr.strip()}")
    return r


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The inputs, as a user makes them: tiles, glyphs, sprite, and the style pointed at them.
archive = work / "tiles.pmtiles"
run(geo, "tiles", "build", extract, "-o", archive, "--maxzoom", "14")
for stack, file in FONTS.items():
    run(geo, "glyphs", "build", "/usr/share/fonts/truetype/noto/" + file, "-o", work / "fonts" / stack, "--name", stack)
sprite = ""
if (pathlib.Path(repo) / "icons").is_dir():
    run(geo, "sprites", "build", pathlib.Path(repo) / "icons", "-o", work / "sprite")
    sprite = "sprite"
style = json.load(open(pathlib.Path(repo) / "style.json"))
for source in style["sources"].values():
    if source.get("type") == "vector":
        source.pop("tiles", None)
        source["url"] = "pmtiles://tiles.pmtiles"
if sprite:
    style["sprite"] = sprite
else:
    style.pop("sprite", None)
(work / f"{name}.json").write_text(json.dumps(style))

port = free_port()
server = subprocess.Popen([geo, "serve", archive, "--style", work / f"{name}.json", "--fonts", work / "fonts", "--cors", "*",
                           "--port", str(port), "--host", "127.0.0.1", "--quiet"],
                          stdout=subprocess.DEVNULL, stderr=open(work / "serve.log", "w"))
base = f"http://127.0.0.1:{port}"
for _ in range(300):
    try:
        urllib.request.urlopen(base + "/", timeout=1)
        break
    except OSError:
        time.sleep(0.1)
style_id = name  # geo serve names a style by its file name


def get(path):
    with urllib.request.urlopen(base + path, timeout=30) as r:
        return r.status, r.read()


try:
    # The mirror geo snapshot reads: what the server served, under --base (StyleResourcePaths
    # maps http://127.0.0.1:P/PATH to BASE/PATH).
    mirror = work / "mirror"
    status, served = get(f"/styles/{style_id}/style.json")
    (mirror / "styles" / style_id).mkdir(parents=True)
    (mirror / "styles" / style_id / "style.json").write_bytes(served)
    served_style = json.loads(served)
    for source in served_style["sources"].values():
        if "url" in source:
            path = source["url"][len(base):]
            tilejson = get(path)[1]
            (mirror / path.lstrip("/")).write_bytes(tilejson)
            template = json.loads(tilejson)["tiles"][0][len(base):]
            for z in range(0, 15):
                n = 2 ** z
                x = int((lon + 180) / 360 * n)
                y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
                for dx in range(-3, 4):
                    for dy in range(-3, 4):
                        tx, ty = x + dx, y + dy
                        if not (0 <= tx < n and 0 <= ty < n):
                            continue
                        p = template.replace("{z}", str(z)).replace("{x}", str(tx)).replace("{y}", str(ty))
                        try:
                            s, body = get(p)
                        except urllib.error.HTTPError:
                            continue
                        if s == 200:
                            f = mirror / p.lstrip("/")
                            f.parent.mkdir(parents=True, exist_ok=True)
                            f.write_bytes(body)
    if "glyphs" in served_style:
        glyphs = served_style["glyphs"][len(base):]
        for stack in {tuple(l.get("layout", {}).get("text-font", [])) for l in style["layers"]}:
            if not stack or not all(isinstance(f, str) for f in stack):
                continue
            for start in range(0, 65536, 256):
                p = glyphs.replace("{fontstack}", urllib.parse.quote(",".join(stack))).replace("{range}", f"{start}-{start + 255}")
                try:
                    s, body = get(p)
                except urllib.error.HTTPError:
                    continue
                f = mirror / urllib.parse.unquote(p.lstrip("/"))
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_bytes(body)
    if "sprite" in served_style:
        path = served_style["sprite"][len(base):]
        for suffix in [".json", ".png", "@2x.json", "@2x.png"]:
            f = mirror / (path.lstrip("/") + suffix)
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_bytes(get(path + suffix)[1])

    # MapLibre GL JS in Chromium, one page a view; each posts its canvas to this listener.
    reports = {}

    class Report(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            reports[self.path.strip("/")] = self.rfile.read(int(self.headers["Content-Length"])).decode()
            self.send_response(204)
            self.end_headers()

        def log_message(self, *a):
            pass

    listener = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Report)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    web = work / "web"
    web.mkdir()
    shutil.copy(pathlib.Path(maplibre.__file__).parent / "srcjs/maplibre-gl.js", web)
    results = []
    for zoom, pitch in VIEWS:
        view = f"z{zoom}" + (f"-tilt{pitch}" if pitch else "")
        page = f"""<!doctype html><html><body style="margin:0"><div id="map" style="width:512px;height:512px"></div>
<script src="maplibre-gl.js"></script><script>
const errors = [];
const map = new maplibregl.Map({{container: 'map', style: '{base}/styles/{style_id}/style.json', center: [{lon}, {lat}],
  zoom: {zoom}, pitch: {pitch}, interactive: false, fadeDuration: 0, attributionControl: false,
  canvasContextAttributes: {{preserveDrawingBuffer: true}}}});
map.on('error', e => errors.push(String(e.error && e.error.message)));
map.once('idle', () => fetch('http://127.0.0.1:{listener.server_port}/{view}', {{method: 'POST', mode: 'no-cors',
  body: map.getCanvas().toDataURL('image/png')}}));
</script></body></html>"""
        (web / f"{view}.html").write_text(page)
        browser = subprocess.Popen(["chromium", "--headless=new", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                                    "--force-device-scale-factor=1", "--window-size=600,600", f"--user-data-dir={work}/profile-{view}",
                                    (web / f"{view}.html").as_uri()], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env=dict(os.environ, TMPDIR=str(work)))
        for _ in range(900):
            if view in reports:
                break
            time.sleep(0.2)
        browser.kill()
        browser.wait()
        if view not in reports:
            results.append((view, None, "MapLibre never reported an idle map"))
            continue
        (out / f"{view}-maplibre.png").write_bytes(base64.b64decode(reports[view].split(",", 1)[1]))
        ours = out / f"{view}-geo.png"
        r = subprocess.run([geo, "snapshot", "--style", mirror / "styles" / style_id / "style.json", "--base", mirror,
                            "--center", f"{lat},{lon}", "--zoom", str(zoom), "--tilt", str(pitch), "--size", "512x512", "-o", ours],
                           capture_output=True, text=True)
        if r.returncode != 0:
            results.append((view, None, r.stderr.strip()[:200]))
            continue
        a = Image.open(ours).convert("RGBA")
        b = Image.open(out / f"{view}-maplibre.png").convert("RGBA")
        diff = Image.new("RGBA", a.size)
        bad = pixelmatch(a, b, diff, threshold=0.13, includeAA=False)
        diff.save(out / f"{view}-diff.png")
        results.append((view, bad / (a.width * a.height), r.stderr.count("\n")))
finally:
    server.kill()
for view, share, note in results:
    print(f"{name} {view}: " + (f"{100 * share:.2f} % of pixels differ" if share is not None else f"not compared: {note}"))
shares = [s for _, s, _ in results if s is not None]
print(f"{name}: {sum(s <= 0.05 for s in shares)}/{len(VIEWS)} views within 5 % (goal: all); worst {100 * max(shares or [1]):.2f} %")
