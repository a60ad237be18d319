#!/usr/bin/env python3
"""Live subscribers for Benchmarks/tracking.sh LIVE=S (issue 35's fan-out): S WebSocket clients
(PyPI `websockets`) on `/live?devices=…`, each following FOLLOW of the generator's DEVICES
devices (`loadgen-0` …; subscriber k follows devices k·FOLLOW … modulo DEVICES, so each device
has S·FOLLOW/DEVICES followers), plus, with STALLED=1, one more that subscribes to the same
devices as subscriber 0 and then never reads a byte (its socket buffers fill; the server's
mailbox must keep it bounded and ingest must not wait for it).

Each position message is a GeoJSON FeatureCollection whose features carry the fix time
(`properties.time`, ISO 8601 with milliseconds); the delay measured is arrival − fix time,
which is at least the ack → delivery time (a fix is made before it is sent and acknowledged:
the generator's request → ack latency is the difference, printed beside it). The first
message (latest positions) is not counted. Runs for SECONDS, then prints the delay's
p50/p99/max over messages' fixes and the number of fixes received.

Usage: tracking-live.py URL SUBSCRIBERS FOLLOW DEVICES SECONDS STALLED
"""
import asyncio
import datetime
import json
import socket
import sys
import time

try:
    import websockets
except ImportError:
    sys.exit("tracking-live.py: needs PyPI websockets (python3 -m pip install websockets)")


def fix_seconds(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


async def subscriber(url, names, delays, end, ready):
    async with websockets.connect(f"ws{url[4:]}live?devices={','.join(names)}", max_size=None, open_timeout=60, ping_interval=None) as ws:
        await ws.recv()  # the latest positions
        ready.append(1)
        while time.time() < end:
            try:
                message = await asyncio.wait_for(ws.recv(), timeout=max(end - time.time(), 0.01))
            except asyncio.TimeoutError:
                break
            now = time.time()
            document = json.loads(message)
            for feature in document.get("features", []):
                delays.append(now - fix_seconds(feature["properties"]["time"]))


def stalled(url, names):
    """A subscriber that sends the upgrade and never reads: a raw socket with a small buffer."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((host, int(port)))
    s.sendall((f"GET /live?devices={','.join(names)} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    return s


async def main():
    url, count, follow, devices, seconds, stall = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6] == "1"
    lists = [[f"loadgen-{(k * follow + j) % devices}" for j in range(follow)] for k in range(count)]
    end = time.time() + seconds
    delays, ready = [], []
    keep = stalled(url, lists[0]) if stall else None
    tasks = [asyncio.create_task(subscriber(url, names, delays, end, ready)) for names in lists]
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failed = [r for r in results if isinstance(r, Exception)]
    delays.sort()
    pick = lambda q: delays[min(len(delays) - 1, int(q * len(delays)))] * 1000 if delays else float("nan")
    print("live: %d subscribers × %d devices%s: %d fixes delivered, fix time → delivery p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d subscribers failed%s"
          % (count, follow, " + 1 stalled reader" if stall else "", len(delays), pick(0.5), pick(0.99), (delays[-1] * 1000 if delays else float("nan")),
             len(failed), (" (" + repr(failed[0])[:200] + ")") if failed else ""))
    if keep:
        keep.close()


asyncio.run(main())
