#!/usr/bin/env python3
"""Live matching's cost in the tracking server (issue 35, `geo serve-tracking --live-match`).

The sample city's roads (`geo sample-city`) and a simulated drive across it (`geo simulate
--fast --noise 3`, NMEA RMC read back); DEVICES devices that opted in each send that drive as
Overland batches of 100 (timestamps shifted per device, so no two share a fix), to a server
started with `--roads city.osm.pbf --live-match NAME` for each. Once every committed batch is
matched (`tracking_live_match_seconds_count` = `tracking_commits_total`, the only devices being
the opted-in ones) it prints the fixes answered, the CPU seconds of the server's `live-matching`
thread per fix (/proc/PID/task/*/stat) and the ack → published histogram. Devices are sent one after another (the matcher's cost, not the ingest's, is what
is measured), so the thread is never idle waiting for a slow sender for long.

Usage: live-match.py GEO [DEVICES] [FIXES]   (defaults 200 devices, 300 fixes each)
"""
import datetime
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time


def rmc_fixes(nmea):
    """(latitude, longitude, epoch seconds) of each $GPRMC sentence."""
    out = []
    for line in nmea.splitlines():
        f = line.split(",")
        if not f[0].endswith("RMC") or f[2] != "A":
            continue
        lat = int(f[3][:2]) + float(f[3][2:]) / 60
        lon = int(f[5][:3]) + float(f[5][3:]) / 60
        lat, lon = (-lat if f[4] == "S" else lat), (-lon if f[6] == "W" else lon)
        t = datetime.datetime.strptime(f[9] + f[1].split(".")[0], "%d%m%y%H%M%S").replace(tzinfo=datetime.timezone.utc)
        out.append((lat, lon, t.timestamp() + float("0." + (f[1].split(".") + ["0"])[1])))
    return out


def thread_cpu_seconds(pid, name):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/stat") as f:
            stat = f.read()
        if stat[stat.index("(") + 1:stat.rindex(")")] == name:
            fields = stat[stat.rindex(")") + 2:].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def metrics(port):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    c.close()
    return {l.split(" ")[0]: float(l.split(" ")[1]) for l in text.splitlines() if l and not l.startswith("#")}


def main():
    geo = sys.argv[1]
    devices = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([geo, "sample-city", "-o", f"{work}/city.osm.pbf"], check=True, capture_output=True)
        drive = rmc_fixes(subprocess.run([geo, "simulate", "--fast", "--noise", "3", "--count", str(count)],
                                         check=True, capture_output=True, text=True).stdout)
        names = [f"match-{k}" for k in range(devices)]
        args = [geo, "serve-tracking", "--db", f"{work}/t.sqlite", "--port", "0", "--host", "127.0.0.1", "--auto-register",
                "--roads", f"{work}/city.osm.pbf"] + [a for n in names for a in ("--live-match", n)]
        server = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            port = int(server.stdout.readline().strip().rstrip("/").rsplit(":", 1)[1])
            cpu0 = thread_cpu_seconds(server.pid, "live-matching")
            start = time.time()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            base = time.time() - 86_400  # yesterday: within the server's accepted times
            for k, name in enumerate(names):
                shift = base - drive[0][2] + k * 0.001
                for i in range(0, len(drive), 100):
                    body = json.dumps({"locations": [
                        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]},
                         "properties": {"timestamp": datetime.datetime.fromtimestamp(t + shift, datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                                        "horizontal_accuracy": 5, "device_id": name}} for lat, lon, t in drive[i:i + 100]]})
                    c.request("POST", "/overland", body, {"Content-Type": "application/json"})
                    reply = c.getresponse().read()
                    if reply != b'{"result":"ok"}':
                        sys.exit(f"live-match.py: {name} refused: {reply[:200]!r}")
            sent = time.time() - start
            for _ in range(6000):
                m = metrics(port)
                if m.get("tracking_live_match_seconds_count", 0) >= m.get("tracking_commits_total", 1):
                    break
                time.sleep(0.05)
            matched_after = time.time() - start
            cpu = thread_cpu_seconds(server.pid, "live-matching") - cpu0
            fixes = m["tracking_live_matched_fixes_total"]
            print(f"live matching: {devices} devices × {len(drive)} fixes of a drive across the sample city, sent in {sent:.1f} s, "
                  f"all matched {matched_after:.1f} s after the first send")
            print(f"  {fixes:.0f} fixes answered (the others rejected by the clean-track rules), live-matching thread "
                  f"{cpu:.2f} s of CPU: {cpu / max(fixes, 1) * 1e6:.1f} µs a fix, about {fixes / max(cpu, 1e-9):.0f} fixes a second on one core")
            buckets = " ".join("≤" + k.split('le="')[1].rstrip('"}') + f":{v:.0f}" for k, v in m.items() if k.startswith("tracking_live_match_seconds_bucket"))
            print(f"  batches dropped: {m.get('tracking_live_match_batches_dropped_total', 0):.0f}; ack → published (cumulative batches by bound, s): {buckets}")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
