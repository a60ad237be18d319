#!/usr/bin/env bash
# Durability under crashes (issue 35): `geo loadgen` (N devices at 1 Hz sending OsmAnd requests;
# a fix not acknowledged is sent again at its device's next turn, reconnecting) against
# `geo serve-tracking`, while the server is killed with SIGKILL K times at random moments (3–7 s
# apart, seeded) and started again on the same port. With STORE postgres the database is also
# crashed P times (SIGKILL to the postmaster and its processes, then `pg_ctl start`: recovery from
# the WAL) and stopped once for OUTAGE seconds (the server must answer 503 meanwhile and
# acknowledge nothing). Prints per crash the seconds from the kill until the server acknowledges
# 90 % of N fixes in one second again (its /metrics, polled every 0.25 s) and, for a database
# crash, when PostgreSQL accepted connections again (its own WAL replay, which grows with the WAL
# written since its last checkpoint: up to `max_wal_size`), the acknowledgements counted while
# the database was down, then `geo loadgen verify`: acknowledged fixes missing from
# the store, and fixes stored twice. Exit status 0 only when both are 0, no acknowledgement came
# during the outage and every crash recovered. After the database crashes it prints, from
# PostgreSQL's log, the WAL each recovery replayed (MiB) and how long its redo took.
# PG_SETTINGS="-c NAME=VALUE …" (STORE postgres): settings written to the cluster's
# postgresql.conf, so that every restart keeps them, e.g. "-c max_wal_size=512MB" (a smaller
# replay after a crash, for more frequent checkpoints).
# Usage: Benchmarks/tracking-kill.sh [DEVICES] [SERVER_KILLS] [GEO] [STORE] [DB_KILLS] [OUTAGE_S]
#   defaults: 2000 20 (release build) sqlite 10 60
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-2000}"; KILLS="${2:-20}"
GEO="${3:-}"; STORE="${4:-sqlite}"; DB_KILLS="${5:-10}"; OUTAGE="${6:-60}"
if [ -z "$GEO" ]; then swift build -c release --product geo >/dev/null; GEO="$(swift build -c release --show-bin-path)/geo"; fi
WORK="$(mktemp -d /tmp/tracking-kill.XXXXXX)"
PGBIN=""
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
    pkill -9 -f "serve-tracking .*$WORK" 2>/dev/null || true
    [ -n "$PGBIN" ] && as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
ulimit -n "$(( N + 200 ))" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
case "$STORE" in
sqlite)
    STORE_ARGS=(--db "$WORK/t.sqlite"); VERIFY_ARGS=(--db "$WORK/t.sqlite"); DB_KILLS=0; OUTAGE=0 ;;
postgres)
    PGBIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    [ -x "$PGBIN/initdb" ] || { echo "tracking-kill.sh: no PostgreSQL (scripts/setup.sh installs postgresql-15)" >&2; exit 1; }
    [ "$(id -u)" -eq 0 ] && chown postgres "$WORK"
    PGPORT="$(free_port)"
    as_pg "$PGBIN/initdb" -D "$WORK/pg" -U tracking -A trust -E UTF8 --no-sync >/dev/null
    printf "port = %s\nunix_socket_directories = '%s'\nlisten_addresses = '127.0.0.1'\n" "$PGPORT" "$WORK" >> "$WORK/pg/postgresql.conf"
    for setting in ${PG_SETTINGS:-}; do [ "$setting" = -c ] || echo "${setting%%=*} = '${setting#*=}'"; done >> "$WORK/pg/postgresql.conf"
    PGURL="postgres://tracking@127.0.0.1:$PGPORT/postgres"
    STORE_ARGS=(--postgres "$PGURL"); VERIFY_ARGS=(--postgres "$PGURL") ;;
*) echo "tracking-kill.sh: STORE is sqlite or postgres, not $STORE" >&2; exit 2 ;;
esac
echo "devices: $N; server kills: $KILLS; store: $STORE (database kills: $DB_KILLS, outage: $OUTAGE s${PG_SETTINGS:+; $PG_SETTINGS}); machine load: $(cut -d' ' -f1-3 /proc/loadavg)"
set +e
python3 - "$GEO" "$N" "$KILLS" "$DB_KILLS" "$OUTAGE" "$WORK" "$(free_port)" "$PGBIN" "${STORE_ARGS[@]}" <<'PY'
import ctypes, http.client, os, random, signal, subprocess, sys, time
geo, n, kills, db_kills, outage, work, port, pgbin = sys.argv[1:9]
store_args = sys.argv[9:]
n, kills, db_kills, outage = int(n), int(kills), int(db_kills), float(outage)
url = f"http://127.0.0.1:{port}/"
rng = random.Random(35)
as_pg = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []

def start_server():
    out = open(f"{work}/url", "w")
    p = subprocess.Popen([geo, "serve-tracking", *store_args, "--port", port, "--host", "127.0.0.1", "--auto-register"],
                         stdout=out, stderr=open(f"{work}/server.err", "a"))
    for _ in range(600):
        if os.path.getsize(f"{work}/url") > 0: return p
        if p.poll() is not None: sys.exit(f"tracking-kill.sh: the server exited ({p.returncode}); see its errors:\n" + open(f"{work}/server.err").read()[-2000:])
        time.sleep(0.05)
    sys.exit("tracking-kill.sh: the server did not start in 30 s")

# /metrics is read over one kept-alive connection, made again when it breaks (a kill): a new
# connection a sample met the accept queue the reconnecting fleet had filled, and its dropped SYN
# added a second to the recovery it measured.
metrics = None

def acknowledged():
    global metrics
    for _ in range(2):  # once more on a fresh connection when the kept one broke
        try:
            if metrics is None: metrics = http.client.HTTPConnection("127.0.0.1", int(port), timeout=1)
            metrics.request("GET", "/metrics")
            for line in metrics.getresponse().read().decode().splitlines():
                if line.startswith("tracking_acknowledged_fixes_total "): return int(float(line.split()[1]))
            return None
        except (OSError, http.client.HTTPException):
            metrics.close(); metrics = None
    return None

def recovery(since, limit=30.0):
    """Seconds from `since` until the server acknowledges 0.9 N fixes a second, over the time since
    the last sample at least 0.75 s before (about a second: a sample comes 0.25 s after the last
    answer of /metrics; a window of 0.75–1 s had no two samples in it, and missed a full rate,
    when the answers took 0.09–0.12 s or over 0.25 s)."""
    samples = []
    while time.monotonic() - since < limit:
        a = acknowledged(); t = time.monotonic()
        if a is not None:
            samples = [(u, b) for u, b in samples if b <= a] + [(t, a)]
            start = [(u, b) for u, b in samples if t - u >= 0.75]
            if start and (a - start[-1][1]) / (t - start[-1][0]) >= 0.9 * n: return t - since
        time.sleep(0.25)
    return None

# The database's processes become this script's children when their parent dies
# (PR_SET_CHILD_SUBREAPER), so a crashed postmaster is reaped here: a zombie left to an init that
# does not reap keeps its PID alive, and PostgreSQL then refuses to start over its lock file.
if pgbin: ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)

def gone(pid):
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    except ChildProcessError:
        return not os.path.exists(f"/proc/{pid}")

def postmaster_pids():
    pid = int(open(f"{work}/pg/postmaster.pid").readline())
    kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid] + [int(k) for k in kids]

def pg_start():
    subprocess.run([*as_pg, f"{pgbin}/pg_ctl", "-D", f"{work}/pg", "-l", f"{work}/pg.log", "-w", "start"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

# The run's plan: server kills, then database crashes, then the outage, each 3–7 s after the
# last one recovered; the generator runs past the end of the plan.
gaps = [rng.uniform(3, 7) for _ in range(kills + db_kills + (1 if outage else 0))]
if pgbin: pg_start()
duration = kills * 15 + db_kills * 15 + outage + 40
server = start_server()
gen = subprocess.Popen([geo, "loadgen", "--url", url, "--devices", str(n), "--duration", str(duration), "--ack-log", f"{work}/acks.csv"],
                       stdout=open(f"{work}/loadgen.out", "w"), stderr=subprocess.STDOUT)
if recovery(time.monotonic(), limit=120) is None: sys.exit("tracking-kill.sh: the generator never reached 90 % of its rate")
times, failed = [], 0
for i in range(kills):
    time.sleep(gaps.pop())
    killed = time.monotonic()
    server.send_signal(signal.SIGKILL); server.wait()
    server = start_server()
    r = recovery(killed); times.append(r)
    if r is None: failed += 1
print("server SIGKILL × %d: back at 90 %% of the rate after %s s (from the kill)" % (kills, ", ".join("-" if r is None else "%.1f" % r for r in times)))
if pgbin:
    times, ready = [], []
    for i in range(db_kills):
        time.sleep(gaps.pop())
        killed = time.monotonic()
        pids = postmaster_pids()
        for pid in pids:
            try: os.kill(pid, signal.SIGKILL)
            except ProcessLookupError: pass
        while not all(gone(pid) for pid in pids): time.sleep(0.05)
        pg_start(); ready.append(time.monotonic() - killed)
        r = recovery(killed); times.append(r)
        if r is None: failed += 1
    print("PostgreSQL SIGKILL × %d: back at 90 %% of the rate after %s s (from the kill; PostgreSQL itself, replaying its WAL, accepted connections after %s s)"
          % (db_kills, ", ".join("-" if r is None else "%.1f" % r for r in times), ", ".join("%.1f" % r for r in ready)))
    # Each crash recovery's "redo starts at LSN" and "redo done at LSN … elapsed: S s" (PostgreSQL 15).
    def lsn(text): high, low = text.split("/"); return (int(high, 16) << 32) + int(low, 16)
    redo, start = [], None
    for line in open(f"{work}/pg.log", errors="replace"):
        if "redo starts at " in line: start = lsn(line.split("redo starts at ")[1].split()[0])
        elif "redo done at " in line and start is not None:
            elapsed = line.split("elapsed: ")[1].split()[0] if "elapsed: " in line else "?"
            redo.append("%.0f MiB in %s s" % ((lsn(line.split("redo done at ")[1].split()[0]) - start) / 2**20, elapsed)); start = None
    print("PostgreSQL's recoveries replayed: " + (", ".join(redo) or "none logged"))
    if outage:
        time.sleep(gaps.pop())
        subprocess.run([*as_pg, f"{pgbin}/pg_ctl", "-D", f"{work}/pg", "-m", "fast", "-w", "stop"], check=True, stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        before = acknowledged(); time.sleep(outage); after = acknowledged()
        restarted = time.monotonic(); pg_start(); r = recovery(restarted)
        during = None if before is None or after is None else after - before
        if during != 0 or r is None: failed += 1
        print("PostgreSQL stopped for %.0f s: %s fixes acknowledged meanwhile; back at 90 %% of the rate %s s after its restart"
              % (outage, "?" if during is None else during, "-" if r is None else "%.1f" % r))
gen.wait()
server.send_signal(signal.SIGTERM); server.wait()
print(open(f"{work}/loadgen.out").read().strip())
sys.exit(1 if failed else 0)
PY
RUN=$?
set -e
"$GEO" loadgen verify "${VERIFY_ARGS[@]}" --ack-log "$WORK/acks.csv"
exit "$RUN"
