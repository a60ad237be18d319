#!/usr/bin/env python3
"""Hostile HTTP clients against one of geo's servers, a case a line: `name<TAB>pass` or
`name<TAB>FAIL: why` (scripts/faults.sh prints them in its table).

    hostile-http.py KIND PORT PID [TELTONIKA_PORT]

KIND: `map` (geo map's live page), `serve` (geo serve with a tileset named `city`, maxzoom 13)
or `tracking` (geo serve-tracking, device `d1` registered, Teltonika on TELTONIKA_PORT).
Every kind gets the cases the issues name for any server (issue 32 and 35 "Bad input and
hostile clients", issue 36): a URL and headers over the limits, slowloris, thousands of idle
connections and a client that never reads while another client is served, and SIGTERM with
connections open; then the cases of its own. A case passes when the server answers as HTTP
says, in bounded time, and keeps serving others; the server's resident memory is read from
/proc before and after.
"""
import os, re, resource, signal, socket, struct, sys, time

kind, port, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
teltonika_port = int(sys.argv[4]) if len(sys.argv) > 4 else None
HOST = f"127.0.0.1:{port}"


def case(name, ok, why=""):
    print(f"{kind}: {name}\t{'pass' if ok else 'FAIL: ' + why}", flush=True)


def wait_listening(p):
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", p), 1).close()
            return
        except OSError:
            time.sleep(0.1)


def exchange(data, wait=20, p=None):
    """Sends `data`, reads until the server closes or `wait` seconds of silence:
    (bytes read, whether the server closed, seconds taken)."""
    s = socket.create_connection(("127.0.0.1", p or port), 5)
    s.settimeout(wait)
    try:
        s.sendall(data)
    except OSError:
        pass
    got, closed, t0 = b"", False, time.time()
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                closed = True
                break
            got += chunk
    except socket.timeout:
        pass
    except ConnectionResetError:
        closed = True
    s.close()
    return got, closed, time.time() - t0


def request(target, headers="", method="GET", body=b""):
    """One request on its own connection (Connection: close): (status, body, seconds)."""
    head = f"{method} {target} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n{headers}"
    if body:
        head += f"Content-Length: {len(body)}\r\n"
    got, _, took = exchange(head.encode() + b"\r\n" + body, 20)
    status = int(got[9:12]) if got.startswith(b"HTTP/1.1 ") and got[9:12].isdigit() else 0
    return status, got.partition(b"\r\n\r\n")[2], took


def replies(got):
    """The status codes of the HTTP/1.1 responses in `got`, in order (bodies by Content-Length)."""
    statuses = []
    while got.startswith(b"HTTP/1.1 ") and b"\r\n\r\n" in got:
        head, _, got = got.partition(b"\r\n\r\n")
        statuses.append(int(head[9:12]))
        length = re.search(rb"\r\ncontent-length: *(\d+)", head, re.IGNORECASE)
        got = got[int(length.group(1)) if length else 0:]
    return statuses


def rss_kib():
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def alive():
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


# A request every kind answers 200 to, and one that yields a large answer (for the client that
# never reads).
probe = {"map": "/", "serve": "/city.json", "tracking": "/metrics"}[kind]
large = {"map": "/frame.png", "serve": "/city.pmtiles", "tracking": "/metrics"}[kind]
wait_listening(port)

# --- every server --------------------------------------------------------------------------
got, closed, _ = exchange(b"GET /" + b"a" * 100_000 + f" HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
case("a URL of 100 KB", closed and got.startswith(b"HTTP/1.1 414"), f"closed={closed} {got[:30]!r}")
got, closed, _ = exchange(f"GET {probe} HTTP/1.1\r\nHost: {HOST}\r\n".encode()
                          + b"".join(b"X-Pad-%d: %s\r\n" % (i, b"b" * 100) for i in range(1000)) + b"\r\n")
case("headers of 100 KB", closed and got.startswith(b"HTTP/1.1 431"), f"closed={closed} {got[:30]!r}")
got, closed, took = exchange(f"GET {probe} HTTP/1.1\r\nHost: {HOST}\r\nX-Slow: ".encode(), 25)
case("half a head, then silence (slowloris)", closed and got.startswith(b"HTTP/1.1 408"),
     f"closed={closed} after {took:.0f} s {got[:30]!r}")
got, closed, _ = exchange(f"GET {probe} HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n".encode(), 5)
case("a rebound DNS name in Host", got.startswith(b"HTTP/1.1 403"), got[:40].decode(errors="replace"))
# Requests NIO's decoder refuses, and two Host fields (RFC 9112 section 3.2): 400 and closed, long
# before the 30 s idle timeout, first on a connection and after a request served.
for name, bad in [("a NUL in the target", f"GET /a\0b HTTP/1.1\r\nHost: {HOST}\r\n\r\n"),
                  ("HTTP/9.9", f"GET {probe} HTTP/9.9\r\nHost: {HOST}\r\n\r\n"),
                  ("a field line without a colon", f"GET {probe} HTTP/1.1\r\nHost: {HOST}\r\nX-No-Colon\r\n\r\n"),
                  ("two Host fields", f"GET {probe} HTTP/1.1\r\nHost: {HOST}\r\nHost: evil.example\r\n\r\n")]:
    for earlier in ["", f"GET {probe} HTTP/1.1\r\nHost: {HOST}\r\n\r\n"]:
        got, closed, took = exchange((earlier + bad).encode(), 25)
        statuses = replies(got)
        case(f"{name}{', after a request served' if earlier else ''}", closed and took < 10 and statuses == ([200, 400] if earlier else [400]),
             f"closed={closed} after {took:.0f} s, statuses {statuses} {got[:30]!r}")

# Thousands of idle connections: another client is still served, at once.
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
idle = []
for _ in range(min(10_000, hard - 200)):
    try:
        idle.append(socket.create_connection(("127.0.0.1", port), 5))
    except OSError:
        break
status, _, took = request(probe)
case(f"{len(idle)} idle connections, then a request", status == 200 and took < 10,
     f"status {status} after {took:.1f} s")
for s in idle:
    s.close()
idle.clear()

# Clients that ask for large answers and never read: the server's memory stays bounded (at
# most an answer or two per connection beyond the kernel's buffers: 50 × 200 answers of the
# live page's 87 KB frame once held 1.2 GB) and another client is served meanwhile.
rss_before_stuck = rss_kib()
stuck = []
for _ in range(50):
    s = socket.create_connection(("127.0.0.1", port), 5)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(f"GET {large} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode() * 200)
    stuck.append(s)
time.sleep(2)
status, _, took = request(probe)
grown = (rss_kib() - rss_before_stuck) / 1024
case("50 clients pipelining 200 requests each and never reading", status == 200 and took < 10 and grown < 128,
     f"status {status} after {took:.1f} s, resident memory +{grown:.0f} MB")
for s in stuck:
    s.close()

# --- the live page ------------------------------------------------------------------------
if kind == "map":
    def ws(host, origin=None):
        return (f"GET /ws HTTP/1.1\r\nHost: {host}\r\n" + (f"Origin: {origin}\r\n" if origin else "")
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n").encode()
    got, closed, _ = exchange(ws(HOST, "https://evil.example"), 3)
    case("another site's page opens /ws (cross-site WebSocket hijacking)", got.startswith(b"HTTP/1.1 403"), got[:40].decode(errors="replace"))
    got, closed, _ = exchange(ws(f"evil.example:{port}", f"http://evil.example:{port}"), 3)
    case("a rebound DNS name opens /ws (DNS rebinding)", got.startswith(b"HTTP/1.1 403"), got[:40].decode(errors="replace"))
    got, closed, _ = exchange(ws(HOST) + bytes([0x81, 5]) + b"hello")
    case("an unmasked client frame (RFC 6455 section 5.1)", closed and got.startswith(b"HTTP/1.1 101"), f"closed={closed}")

# --- the tile server -----------------------------------------------------------------------
if kind == "serve":
    for target in ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%252e%252e/%252e%252e/etc/passwd",
                   "/city/..%2f..%2f..%2fetc%2fpasswd", "/..%5c..%5cetc%5cpasswd", "/styles/..%2f..%2f..%2fetc%2fpasswd/style.json",
                   "/fonts/..%2f..%2f..%2fetc/0-255.pbf", "/sprites/..%2f..%2f..%2fetc%2fpasswd.json",
                   "/city%00.json", "/ci%2fty.json", "/city/0/0/0.pbf%00.png", "//etc/passwd"]:
        status, body, _ = request(target)
        case(f"GET {target}", 400 <= status < 500 and b"root:" not in body, f"status {status}")
    for target in ["/city/-1/0/0.pbf", "/city/a/b/c.pbf", "/city/1099511627776/0/0.pbf", "/city/13/-1/0.pbf",
                   "/city/13/99999999/0.pbf", "/city/14/0/0.pbf", "/city/0/0/0.pbf.pbf"]:
        status, _, _ = request(target)
        case(f"GET {target}", 400 <= status < 500, f"status {status}")
    status, _, _ = request("/city.pmtiles", "Range: bytes=999999999999-\r\n")
    case("a range past the end of the archive", status == 416, f"status {status}")
    status, _, took = request("/city.pmtiles", "Range: bytes=" + ",".join(f"{i}-{i}" for i in range(10_000)) + "\r\n")
    case("10,000 ranges in one header", status in (416, 431) and took < 5, f"status {status} after {took:.1f} s")

# --- the tracking server -------------------------------------------------------------------
if kind == "tracking":
    now = int(time.time())
    for name, query, want in [("latitude 91", f"/?id=d1&lat=91&lon=7.42&timestamp={now}", 400),
                              ("latitude NaN", f"/?id=d1&lat=NaN&lon=7.42&timestamp={now}", 400),
                              ("a time before 2000", "/?id=d1&lat=43.73&lon=7.42&timestamp=100", 400),
                              ("a time a day ahead", f"/?id=d1&lat=43.73&lon=7.42&timestamp={now + 2 * 86400}", 400),
                              ("an unknown device", f"/?id=nobody&lat=43.73&lon=7.42&timestamp={now}", 403)]:
        status, _, _ = request(query)
        case(f"OsmAnd, {name}", status == want, f"status {status}, want {want}")
    status, _, took = request("/overland", "Content-Type: application/json\r\n", "POST", b"[" * 100_000 + b"]" * 100_000)
    case("Overland, JSON nested 100,000 deep", 400 <= status < 500 and took < 5, f"status {status} after {took:.1f} s")
    big = b'{"locations":[' + b",".join([b'{"type":"Feature","geometry":{"type":"Point","coordinates":[7.42,43.73]},"properties":{"timestamp":"2026-01-01T00:00:00Z","device_id":"d1"}}'] * 50_000) + b"]}"
    status, _, _ = request("/overland", "Content-Type: application/json\r\n", "POST", big)
    case(f"Overland, a body of {len(big) // 1_000_000} MB", status == 413, f"status {status}")
    got, closed, _ = exchange(b"POST /overland HTTP/1.1\r\nHost: " + HOST.encode() + b"\r\nContent-Length: 4000000000\r\n\r\n", 5)
    case("Content-Length 4 GB, no body sent", got.startswith(b"HTTP/1.1 413"), f"{got[:30]!r}")
    if teltonika_port:
        wait_listening(teltonika_port)
        imei = b"356307042441013"
        login = struct.pack(">H", len(imei)) + imei

        def teltonika(after_login, wait=5):
            s = socket.create_connection(("127.0.0.1", teltonika_port), 5)
            s.settimeout(wait)
            s.sendall(login)
            got = b""
            try:
                got += s.recv(1)
                s.sendall(after_login)
                while True:
                    chunk = s.recv(64)
                    if not chunk:
                        return got, True
                    got += chunk
            except socket.timeout:
                return got, False
            except ConnectionResetError:
                return got, True
            finally:
                s.close()
        got, closed = teltonika(b"\x00\x00\x00\x00" + struct.pack(">I", 0xFFFFFFF0) + b"\x08\x01" + b"\x00" * 64)
        case("Teltonika, a data length of 4 GB", closed and len(got) <= 1, f"closed={closed} read {got!r}")
        record = struct.pack(">QBiiHHBH", now * 1000, 0, 74_200_000, 437_300_000, 10, 90, 8, 30) + b"\x00\x00" + b"\x00" * 4
        data = b"\x08\x01" + record + b"\x01"
        got, closed = teltonika(b"\x00\x00\x00\x00" + struct.pack(">I", len(data)) + data + struct.pack(">I", 0x1234))
        case("Teltonika, a wrong CRC", len(got) <= 1, f"acknowledged: read {got!r}")

# --- last: still serving, then SIGTERM with a connection open --------------------------------
status, _, _ = request(probe)
case("still serving after all of the above", alive() and status == 200, f"alive={alive()} status {status}")
# The live page's case: a page holds /ws open and never answers the close frame.
held = socket.create_connection(("127.0.0.1", port), 5)
held.sendall(ws(HOST) if kind == "map" else f"GET {probe} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
held.recv(12)
os.kill(pid, signal.SIGTERM)
t0 = time.time()
while time.time() - t0 < 20 and alive():
    time.sleep(0.1)
took = time.time() - t0
case("SIGTERM with a connection open that ignores the close", took < 5, f"still running after {took:.0f} s")
