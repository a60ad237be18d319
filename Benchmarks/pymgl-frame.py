"""MapLibre Native's CPU per frame, the peer of `RenderBench style-frame` (render.sh, style-frame.sh).

Usage: pymgl-frame.py STYLE.json OUT.png [--png]
Opens STYLE.json (its sources as its URLs name them) in pymgl (MapLibre Native, software GL) at
512 x 512 over Monaco at MapLibre's zoom 14 (our z15: its zoom counts a 512-pixel world), draws
one warm frame (tiles, glyphs and sprite loaded) into OUT.png, then times 7 frames, each moved
by 1e-6 degrees so that it is drawn anew, and prints their median process CPU; with --png also
the same with each frame encoded as PNG.
"""
import sys, time
from pymgl import Map

style, out = sys.argv[1], sys.argv[2]
m = Map(open(style).read(), 512, 512, 1, 7.4246, 43.7384, 14)
open(out, "wb").write(m.renderPNG())
for label, draw in [("render", m.renderBuffer), ("render + PNG", m.renderPNG)][: 2 if "--png" in sys.argv[3:] else 1]:
    times = []
    for i in range(7):
        m.setCenter(7.4246 + (1e-6 if i % 2 else -1e-6), 43.7384)
        t = time.process_time(); draw(); times.append(time.process_time() - t)
    print("frame 512x512 z15 Monaco, %s: median %.1f ms CPU (of 7)" % (label, sorted(times)[3] * 1000))
