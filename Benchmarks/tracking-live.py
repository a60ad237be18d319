#!/usr/bin/env python3
"""Live subscribers for Benchmarks/tracking.sh LIVE=S (issue 35's fan-out): S WebSocket clients
(PyPI `websockets`) on `/live?devices=…`, each following FOLLOW of the generator's DEVICES
devices (`loadgen-0` …; subscriber k follows devices k·FOLLOW … modulo DEVICES, so each device
has S·FOLLOW/DEVICES followers), plus, with STALLED=1, one more that subscribes to the same
devices as subscriber 0 and then never reads a byte (its socket buffers fill; the server's
mailbox must keep it bounded and ingest must not wait for it).

The subscribers are spread over PROCESSES processes (default 2, one per core of the 2-core
machine: one Python process could not read 1,000 subscribers' messages), each an asyncio loop
with its share of the connections. Each position message is a GeoJSON FeatureCollection whose
features carry the fix time (`"time":"…"`, ISO 8601 with milliseconds, read from the raw bytes
without parsing the JSON); the delay measured is arrival − fix time, which is at least the ack
→ delivery time (a fix is made before it is sent and acknowledged: the generator's request →
ack latency is the difference, printed beside it). The first message (latest positions) is not
counted. Runs for SECONDS, then prints the delay's p50/p99/max over messages' fixes, the fixes
and messages received, and the processes' CPU seconds (user + system).

Usage: tracking-live.py URL SUBSCRIBERS FOLLOW DEVICES SECONDS STALLED [PROCESSES]
"""
import asyncio
import calendar
import collections
import multiprocessing
import re
import resource
import socket
import sys
import time

try:
    import websockets
except ImportError:
    sys.exit("tracking-live.py: needs PyPI websockets (python3 -m pip install websockets)")

TIME = re.compile(rb'"time":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{3}))?Z"')


class Delays:
    """Arrival − fix time of every fix received, in 0.1 ms bins."""

    def __init__(self):
        self.bins = collections.Counter()
        self.messages = 0
        self.seconds = {}  # "YYYY-MM-DDTHH:MM:SS" → Unix seconds

    def add(self, message, now):
        self.messages += 1
        for whole, millis in TIME.findall(message):
            t = self.seconds.get(whole)
            if t is None:
                t = self.seconds[whole] = calendar.timegm(time.strptime(whole.decode(), "%Y-%m-%dT%H:%M:%S"))
            self.bins[int((now - t - int(millis or 0) / 1000) * 10000)] += 1


async def subscriber(url, names, delays, end):
    async with websockets.connect(f"ws{url[4:]}live?devices={','.join(names)}", max_size=None, open_timeout=60, ping_interval=None) as ws:
        await ws.recv(decode=False)  # the latest positions
        while time.time() < end:
            try:
                message = await asyncio.wait_for(ws.recv(decode=False), timeout=max(end - time.time(), 0.01))
            except asyncio.TimeoutError:
                break
            delays.add(message, time.time())


def stalled(url, names):
    """A subscriber that sends the upgrade and never reads: a raw socket with a small buffer."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((host, int(port)))
    s.sendall((f"GET /live?devices={','.join(names)} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    return s


def run_share(url, lists, end, results):
    """One process: its subscribers until `end`; puts (bins, messages, failures, CPU seconds)."""
    async def share():
        delays = Delays()
        outcomes = await asyncio.gather(*(subscriber(url, names, delays, end) for names in lists), return_exceptions=True)
        return delays, [repr(r)[:200] for r in outcomes if isinstance(r, Exception)]
    delays, failed = asyncio.run(share())
    usage = resource.getrusage(resource.RUSAGE_SELF)
    results.put((dict(delays.bins), delays.messages, failed, usage.ru_utime + usage.ru_stime))


def main():
    url, count, follow, devices, seconds, stall = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6] == "1"
    processes = int(sys.argv[7]) if len(sys.argv) > 7 else 2
    lists = [[f"loadgen-{(k * follow + j) % devices}" for j in range(follow)] for k in range(count)]
    end = time.time() + seconds
    keep = stalled(url, lists[0]) if stall else None
    results = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=run_share, args=(url, lists[p::processes], end, results)) for p in range(processes)]
    for w in workers:
        w.start()
    bins, messages, failed, cpu = collections.Counter(), 0, [], []
    for _ in workers:
        b, m, f, c = results.get()
        bins.update(b)
        messages += m
        failed += f
        cpu.append(c)
    for w in workers:
        w.join()
    fixes = sum(bins.values())
    ordered = sorted(bins.items())

    def pick(q):
        if not fixes:
            return float("nan")
        seen, target = 0, q * fixes
        for value, n in ordered:
            seen += n
            if seen > target:
                return value / 10
        return ordered[-1][0] / 10
    print("live: %d subscribers × %d devices%s in %d processes: %d fixes in %d messages delivered, fix time → delivery p50 %.1f ms, "
          "p99 %.1f ms, max %.1f ms; client CPU %.1f s (%s); %d subscribers failed%s"
          % (count, follow, " + 1 stalled reader" if stall else "", processes, fixes, messages, pick(0.5), pick(0.99),
             (ordered[-1][0] / 10 if ordered else float("nan")), sum(cpu), " + ".join("%.1f" % c for c in cpu),
             len(failed), (" (" + failed[0] + ")") if failed else ""))
    if keep:
        keep.close()


if __name__ == "__main__":
    main()
