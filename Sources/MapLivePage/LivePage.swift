/// The live map page: HTML and JavaScript with nothing fetched from elsewhere. The map is an
/// `<img>` whose first source is `/frame.png` (so the map shows as the page loads); later
/// frames come over the WebSocket. Mouse: drag pans, the wheel zooms about the cursor,
/// right-drag rotates (sideways) and tilts (up and down), double-click zooms in. The box flies
/// (bow animation) to `LAT,LON[,ZOOM]` or a city; buttons switch projection, layers and
/// following the live position.
enum LivePage {
    static let html = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>LocationKit map</title>
<style>
html,body{margin:0;height:100%;background:#0b1526;font:14px system-ui,sans-serif;overflow:hidden}
#map{position:absolute;inset:0;width:100%;height:100%;object-fit:contain;user-select:none;-webkit-user-drag:none;cursor:grab}
#bar{position:absolute;left:8px;top:8px;display:flex;gap:4px;flex-wrap:wrap;background:rgba(255,255,255,.9);padding:6px;border-radius:6px}
#status{position:absolute;left:8px;bottom:8px;background:rgba(255,255,255,.85);padding:3px 6px;border-radius:4px;font:12px monospace}
button.off{opacity:.5}
</style></head>
<body>
<img id="map" src="/frame.png" alt="map" draggable="false">
<div id="bar">
<input id="place" placeholder="lat,lon[,zoom] or city" size="22"><button id="fly">Fly</button>
<button id="proj">Globe / Mercator</button>
<button id="follow">Follow</button>
<span id="layers"></span>
</div>
<div id="status">connecting…</div>
<script>
"use strict";
const img = document.getElementById("map"), status = document.getElementById("status");
let ws = null, projection = "mercator", lastURL = null;
function send(m) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(m)); }
function connect() {
  ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.binaryType = "blob";
  ws.onmessage = e => {
    if (typeof e.data === "string") {
      const s = JSON.parse(e.data);
      if (s.error) { status.textContent = "error: " + s.error; return; }
      projection = s.projection;
      status.textContent = `${s.latitude.toFixed(5)}, ${s.longitude.toFixed(5)} z${s.zoomLevel.toFixed(2)} ` +
        `bearing ${s.bearing.toFixed(0)}° tilt ${s.tilt.toFixed(0)}° ${s.projection} follow ${s.follow}` +
        (s.position ? ` · position ±${s.position.accuracy.toFixed(0)} m` : "") +
        (s.tapped ? ` · tapped: ${s.tapped.length ? s.tapped.join("; ") : "nothing"}` : "");
      return;
    }
    const url = URL.createObjectURL(e.data);
    img.src = url;
    if (lastURL) URL.revokeObjectURL(lastURL);
    lastURL = url;
  };
  ws.onclose = () => { status.textContent = "disconnected; retrying"; setTimeout(connect, 1000); };
}
connect();
// Page pixels → the view's pixels (the image is letterboxed by object-fit: contain); null
// before the first frame has loaded, when there is nothing to point at.
function viewPoint(e) {
  if (!img.naturalWidth || !img.naturalHeight) return null;
  const r = img.getBoundingClientRect(), w = img.naturalWidth, h = img.naturalHeight;
  const k = Math.min(r.width / w, r.height / h), ox = r.left + (r.width - w * k) / 2, oy = r.top + (r.height - h * k) / 2;
  return [(e.clientX - ox) / k, (e.clientY - oy) / k];
}
let drag = null;
img.addEventListener("contextmenu", e => e.preventDefault());
img.addEventListener("mousedown", e => {
  e.preventDefault();
  const p = viewPoint(e);
  if (!p) return;
  drag = { button: e.button, last: p, start: p, x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY };
  send({ type: "begin" });
});
window.addEventListener("mousemove", e => {
  if (!drag) return;
  const p = viewPoint(e);
  if (drag.button === 2) {
    send({ type: "rotate", degrees: (e.clientX - drag.x) * 0.4 });
    send({ type: "tilt", degrees: (drag.y - e.clientY) * 0.3 });
    drag.x = e.clientX; drag.y = e.clientY;
  } else {
    send({ type: "pan", x: drag.last[0], y: drag.last[1], x2: p[0], y2: p[1] });
  }
  drag.last = p;
});
// A press and release within 4 px is a tap (the view picks what lies there), not a drag.
window.addEventListener("mouseup", e => {
  if (!drag) return;
  const tap = drag.button === 0 && Math.hypot(e.clientX - drag.x0, e.clientY - drag.y0) < 4, at = drag.start;
  drag = null;
  send({ type: "end" });
  if (tap) send({ type: "tap", x: at[0], y: at[1] });
});
let wheelTimer = null;
img.addEventListener("wheel", e => {
  e.preventDefault();
  const p = viewPoint(e);
  if (!p) return;
  send({ type: "zoom", x: p[0], y: p[1], scale: Math.pow(2, -e.deltaY / 400) });
  clearTimeout(wheelTimer);
  wheelTimer = setTimeout(() => send({ type: "end" }), 200);
}, { passive: false });
img.addEventListener("dblclick", e => { const p = viewPoint(e); if (p) send({ type: "doubletap", x: p[0], y: p[1] }); });
document.getElementById("fly").onclick = () => send({ type: "fly", query: document.getElementById("place").value });
document.getElementById("place").addEventListener("keydown", e => { if (e.key === "Enter") document.getElementById("fly").click(); });
document.getElementById("proj").onclick = () => send({ type: "projection", value: projection === "globe" ? "mercator" : "globe" });
let following = true;
document.getElementById("follow").onclick = () => { following = !following; send({ type: "follow", value: following ? "follow" : "none" }); };
for (const c of ["buildings", "roads", "water", "parks", "landuse", "railways", "boundaries"]) {
  const b = document.createElement("button"); b.textContent = c; let on = true;
  b.onclick = () => { on = !on; b.className = on ? "" : "off"; send({ type: "layer", value: c, visible: on }); };
  document.getElementById("layers").appendChild(b);
}
document.addEventListener("visibilitychange", () => send({ type: "active", visible: !document.hidden }));
</script>
</body></html>
"""#
}
