#!/usr/bin/env bash
# The tracking server under `geo loadgen` on loopback (issue 35): N devices at 1 Hz sending
# OsmAnd requests over keep-alive connections to `geo serve-tracking` on a fresh store, for D
# seconds; prints the generator's report (acknowledged fixes/s, errors, p50/p99/p99.9 request →
# ack latency, and the p99 of the requests sent in each 10 s of the run), the server's commit
# metrics, its own request → reply histogram (tracking_ingest_duration_seconds) and per minute the
# shares of replies and of writer waits over 25 and 100 ms, peak RSS and its RSS every minute (its
# spread after the first fifth of the run), then `geo loadgen verify`.
# STORE sqlite (default) is a fresh SQLite file; STORE postgres a fresh PostgreSQL 15 cluster of
# its own (initdb + pg_ctl on a free loopback port, as the `postgres` user when run as root;
# scripts/setup.sh installs postgresql-15), its defaults kept (fsync, synchronous_commit on).
# Also prints the generator's and the server's CPU time over the run and the machine's load
# average (other builds on the same cores skew every number) and its busy/idle/steal split over
# the run (/proc/stat: a hypervisor's steal slows every number), and the bytes the server wrote to
# the disk over the run (/proc/PID/io: its WAL and checkpoints), in all and per fix stored in
# the run, and how long `geo loadgen verify` took. The open-file limit is raised to
# DEVICES + LIVE + 200 (the server keeps 128 of its descriptors from clients: OpenConnections);
# where the hard limit is lower it says so and runs as many devices as fit.
# OVERLAND_BATCH=N in the environment sends each device's fixes as Overland batches of N (one
# POST a second per device, N fixes in it) instead of one OsmAnd request per fix.
# PROTOCOL=NAME sends in another protocol (`geo loadgen --protocol`: owntracks, gpslogger,
# teltonika, teltonika-8e); for Teltonika the server also listens on a Teltonika port.
# HISTORY_READS=R: before the run one device ("history-day") gets a whole UTC day of fixes, one a
# second (86,400, yesterday, posted as Overland batches of 1,000); from a third of the run on, its
# day is read back R times in turn (GET /api/positions as GeoJSON) and the reads' p50/p99/max are
# printed (issue 35: ≤ 200 ms p99 under the load), and the p50/p99 of their reply heads (sent
# once the first page is read).
# FENCES=N (STORE postgres, one cluster, or sqlite): the server decides N geofences after each commit (`--fences`: half
# OSM polygons, half circles, where the devices are; Benchmarks/tracking-fences.py). Prints the
# fences' load time (server start → listening, beside the same without fences in FENCES_BASE=1
# runs), the server's RSS once listening, the fence-decision thread's CPU seconds per fix, the
# decision latency after the ack (tracking_fence_decision_seconds buckets), and then compares every stored
# enter/exit event with PostGIS (`ST_Intersects` for polygons, `ST_DWithin` on geography for
# circles) at the fix that decided it, leaving out fixes within 1 m of the fence's edge and
# crossings inferred between two fixes (their times lie between fixes). With STORE sqlite the
# check runs on a PostgreSQL cluster of its own started after the run, into which the SQLite
# file's devices, fixes, latest positions and events are copied.
# PILOT=P (STORE postgres): before the run, P devices ("pilot-…") send Overland batches of 20
# for 15 s, with `devices` analysed after 10 s (as autovacuum does past 50 rows): the run's N
# devices then register at once onto a store that had served a few, the onboarding of a fleet
# (session 70, before `tracking_insert_batch` turned sequential scans off: a plan cached on the
# pilot's statistics gave p99 50–150 ms over the run, 0.1–0.8 s in its first 10 s, until
# autovacuum's next round).
# Prints the pilot's generator line; the run's lines show the onboarding.
# LIVE=S: S WebSocket subscribers on /live following FOLLOW (default 100) devices each during
# the run (Benchmarks/tracking-live.py, PyPI websockets, in LIVE_PROCESSES processes, default 2);
# STALLED=1 adds one that never reads. Prints their fix time → delivery p50/p99 (an upper bound
# of ack → delivery), the fixes and messages they got and their CPU seconds. LIVE_INTERVAL=MS
# is the server's --live-interval (the least time between two messages to one subscriber).
# LIVE_CLIENT=swift runs the S subscribers in `geo loadgen --live S×FOLLOW` instead (SwiftNIO, no
# JSON parser: its CPU is then in the generator's; STALLED is not run).
# INSTANCES=2 (STORE postgres, LIVE): a second `geo serve-tracking` on
# the same database; the generator posts to the first, the subscribers follow on the second, so
# their delivery times cross instances (PostgreSQL LISTEN/NOTIFY; issue 35: p99 ≤ 100 ms). With
# FENCES the second decides the fences too, on the latest positions the first's batches name:
# its decision CPU is printed, and the events stay in turn (one store check for both).
# With STORE postgres it prints PostgreSQL's CPU time over the run too, in all and per fix stored.
# Also prints the group committer's writer threads' CPU time over the run, in all and per fix
# stored in the run (their commits and `settle` moves; SQLite has one writer, PostgreSQL two).
# SHARDS=K (STORE postgres): K clusters, each device stored on one of them (`--postgres` given K
# times: ShardedPositionStore's rendezvous hashing); CPU and WAL lines sum over them, verify reads all.
# REPLICA=1 (STORE postgres, one cluster): a streaming replica of it (`pg_basebackup -R`) serves
# the server's history reads (`--postgres-replica`), e.g. beside HISTORY_READS.
# PG_SETTINGS="-c NAME=VALUE …" (STORE postgres): settings the cluster starts with beside initdb's
# defaults, e.g. "-c shared_buffers=256MB" for runs past a few minutes at 20,000 devices.
# PERF=FILE records the server with `perf record -g` (499 Hz) during the generator's run into FILE.
# Usage: Benchmarks/tracking.sh [DEVICES] [SECONDS] [GEO] [STORE]   (GEO: a built geo; default release)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-2000}"; D="${2:-60}"
GEO="${3:-}"; STORE="${4:-sqlite}"
if [ -z "$GEO" ]; then swift build -c release --product geo >/dev/null; GEO="$(swift build -c release --show-bin-path)/geo"; fi
# In /tmp itself: the `postgres` user must be able to enter it.
WORK="$(mktemp -d /tmp/tracking-bench.XXXXXX)"
SERVER=""; SERVER2=""; PGBIN=""; REPLICA_ARGS=()
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
    [ -n "$SERVER2" ] && kill "$SERVER2" 2>/dev/null || true
    for dir in "$WORK"/pg "$WORK"/pg[0-9]* "$WORK"/replica; do
        [ -n "$PGBIN" ] && [ -d "$dir" ] && as_pg "$PGBIN/pg_ctl" -D "$dir" -m immediate stop >/dev/null 2>&1 || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
# One descriptor per device in the generator and one per connection in the server (both run
# from this shell), one per LIVE subscriber, the server's 128 kept from its clients (event
# loops, the database, standard streams; `OpenConnections`: before that bound, a server out of
# descriptors ended when libdispatch's thread-pool monitor could not open /proc), and the
# generator's own.
WANT=$((N + ${LIVE:-0} + 200))
if ! ulimit -n "$WANT" 2>/dev/null; then
    HARD="$(ulimit -Hn)"
    if [ "$HARD" != unlimited ] && [ "$HARD" -lt "$WANT" ]; then
        FIT=$((HARD - ${LIVE:-0} - 200))
        echo "tracking.sh: the hard open-file limit is $HARD (ulimit -Hn; not raisable here): $N devices${LIVE:+ and $LIVE subscribers} need $WANT descriptors per process; running $FIT devices instead" >&2
        N="$FIT"
    fi
    ulimit -n "$(ulimit -Hn)"
fi
echo "devices: $N for $D s; machine load before: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min, $(nproc) cores)"
case "$STORE" in
sqlite)
    STORE_ARGS=(--db "$WORK/t.sqlite") ;;
postgres)
    PGBIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    [ -x "$PGBIN/initdb" ] || { echo "tracking.sh: no PostgreSQL (scripts/setup.sh installs postgresql-15)" >&2; exit 1; }
    [ "$(id -u)" -eq 0 ] && chown postgres "$WORK"
    # Cluster k (1…SHARDS) in $WORK/pg (the first) or $WORK/pgK, logging to its folder's .log.
    PGDIRS=(); PGPORTS=(); STORE_ARGS=()
    for k in $(seq "${SHARDS:-1}"); do
        dir="$WORK/pg$([ "$k" = 1 ] || echo "$k")"
        port="$(free_port)"
        as_pg "$PGBIN/initdb" -D "$dir" -U tracking -A trust -E UTF8 --no-sync >/dev/null
        as_pg "$PGBIN/pg_ctl" -D "$dir" -l "$dir.log" -w -o "-p $port -k $WORK -c listen_addresses=127.0.0.1 ${PG_SETTINGS:-}" start >/dev/null
        PGDIRS+=("$dir"); PGPORTS+=("$port"); STORE_ARGS+=(--postgres "postgres://tracking@127.0.0.1:$port/postgres")
    done
    PGPORT="${PGPORTS[0]}"; PGURL="postgres://tracking@127.0.0.1:$PGPORT/postgres"
    if [ -n "${REPLICA:-}" ]; then
        [ "${SHARDS:-1}" = 1 ] || { echo "tracking.sh: REPLICA=1 needs one cluster (no SHARDS)" >&2; exit 2; }
        port="$(free_port)"
        as_pg "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$PGPORT" -U tracking -D "$WORK/replica" -R -X stream --checkpoint=fast --no-sync
        as_pg "$PGBIN/pg_ctl" -D "$WORK/replica" -l "$WORK/replica.log" -w -o "-p $port -k $WORK -c listen_addresses=127.0.0.1 ${PG_SETTINGS:-}" start >/dev/null
        REPLICA_ARGS=(--postgres-replica "postgres://tracking@127.0.0.1:$port/postgres")
        PGDIRS+=("$WORK/replica")  # its CPU and its log with the others
        echo "replica for history reads at postgres://tracking@127.0.0.1:$port/postgres"
    fi
    echo "store: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') at $PGURL${SHARDS:+ and $((SHARDS - 1)) more shards}${PG_SETTINGS:+ ($PG_SETTINGS)}" ;;
*) echo "tracking.sh: STORE is sqlite or postgres, not $STORE" >&2; exit 2 ;;
esac
FENCE_ARGS=()
if [ -n "${FENCES:-}" ]; then
    [ "${SHARDS:-1}" = 1 ] || { echo "tracking.sh: FENCES=N needs one cluster (PostGIS checks the events)" >&2; exit 2; }
    PGBIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    [ -x "$PGBIN/initdb" ] || { echo "tracking.sh: FENCES=N needs PostgreSQL and PostGIS for its check (scripts/setup.sh installs them)" >&2; exit 1; }
    python3 Benchmarks/tracking-fences.py "$FENCES" "${LOCATIONKIT_DATA:-../shared/data}/osm" "$WORK"
    FENCE_ARGS=(--fences "$WORK/fences.geojson")
fi
TELTONIKA_ARGS=()
case "${PROTOCOL:-}" in teltonika*)
    TELTONIKA_PORT="$(free_port)"
    TELTONIKA_ARGS=(--teltonika-port "$TELTONIKA_PORT") ;;
esac
STARTED="$(date +%s.%N)"
"$GEO" serve-tracking "${STORE_ARGS[@]}" "${REPLICA_ARGS[@]}" "${FENCE_ARGS[@]}" "${TELTONIKA_ARGS[@]}" ${LIVE_INTERVAL:+--live-interval "$LIVE_INTERVAL"} --port 0 --host 127.0.0.1 --auto-register > "$WORK/url" 2> "$WORK/server.err" &
SERVER=$!
for _ in $(seq 3000); do [ -s "$WORK/url" ] && break; sleep 0.1; done
URL="$(head -1 "$WORK/url")"
echo "server listening after $(awk -v a="$STARTED" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f s", b - a }')${FENCES:+ (loading $FENCES fences)}; RSS then $(grep VmRSS /proc/$SERVER/status | awk '{print $2, $3}')"
if [ -z "$URL" ] || ! kill -0 "$SERVER" 2>/dev/null; then
    echo "tracking.sh: the server did not start; its standard error:" >&2
    cat "$WORK/server.err" >&2
    exit 1
fi
LIVE_URL="$URL"
if [ "${INSTANCES:-1}" = 2 ]; then
    [ "$STORE" = postgres ] && [ -n "${LIVE:-}" ] \
        || { echo "tracking.sh: INSTANCES=2 needs STORE postgres and LIVE" >&2; exit 2; }
    "$GEO" serve-tracking "${STORE_ARGS[@]}" "${FENCE_ARGS[@]}" ${LIVE_INTERVAL:+--live-interval "$LIVE_INTERVAL"} --port 0 --host 127.0.0.1 --auto-register > "$WORK/url2" 2> "$WORK/server2.err" &
    SERVER2=$!
    for _ in $(seq 3000); do [ -s "$WORK/url2" ] && break; sleep 0.1; done
    LIVE_URL="$(head -1 "$WORK/url2")"
    [ -n "$LIVE_URL" ] || { echo "tracking.sh: the second server did not start; its standard error:" >&2; cat "$WORK/server2.err" >&2; exit 1; }
    echo "second instance at $LIVE_URL: the subscribers follow there, the generator posts to the first"
fi
# CPU seconds (user + system) of a live process, from /proc/PID/stat (clock ticks).
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
# CPU seconds of a live process's threads named NAME or NAME-… (their comm, 15 characters at
# most: the group committer's writers are group-commit, group-commit-2, …); 0 when none.
thread_cpu_seconds() {
    local total=0
    for t in /proc/"$1"/task/*; do
        case "$(cat "$t/comm" 2>/dev/null)" in
            "$2"|"$2"-*) total="$(awk -v s="$total" -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", s + ($14 + $15) / hz }' "$t/stat")" ;;
        esac
    done
    echo "$total"
}
HISTORY_PY='
import json, sys, time, urllib.request
url, mode, reads, delay = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
day = (int(time.time()) // 86400 - 1) * 86400
if mode == "write":
    for start in range(0, 86400, 1000):
        features = [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [2 + (t % 3600) * 1e-5, 48 + (t // 3600) * 1e-3]},
                     "properties": {"timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(day + t)), "device_id": "history-day", "horizontal_accuracy": 5}}
                    for t in range(start, start + 1000)]
        request = urllib.request.Request(url + "overland", json.dumps({"locations": features}).encode(), {"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=60).read()
    sys.exit(0)
time.sleep(delay)
took, head = [], []
for _ in range(reads):
    t0 = time.monotonic()
    reply = urllib.request.urlopen(f"{url}api/positions?device=history-day&from={day}&to={day + 86400}", timeout=60)
    head.append(time.monotonic() - t0)
    body = reply.read()
    took.append(time.monotonic() - t0)
    fixes = len(json.loads(body)["features"]) if body.startswith(b"{") else -1
    if fixes != 86400: sys.exit(f"history read: {fixes} fixes, not 86400")
took.sort()
head.sort()
pick = lambda times, q: times[min(len(times) - 1, int(q * len(times)))] * 1000
print("device-day read (86,400 fixes, GeoJSON) under the load, %d reads: p50 %.0f ms, p99 %.0f ms, max %.0f ms; "
      "its reply head (the first page read) p50 %.0f ms, p99 %.0f ms"
      % (len(took), pick(took, 0.5), pick(took, 0.99), took[-1] * 1000, pick(head, 0.5), pick(head, 0.99)))
'
if [ -n "${PILOT:-}" ]; then
    [ "$STORE" = postgres ] || { echo "tracking.sh: PILOT=P needs STORE postgres" >&2; exit 2; }
    ( sleep 10; "$PGBIN/psql" -X -q -h 127.0.0.1 -p "$PGPORT" -U tracking postgres -c "ANALYZE devices" ) &
    "$GEO" loadgen --url "$URL" --devices "$PILOT" --duration 15 --overland-batch 20 --prefix pilot- --ack-log "$WORK/pilot-acks.csv" | sed 's/^/pilot: /'
    wait $!
fi
if [ -n "${HISTORY_READS:-}" ]; then
    python3 -c "$HISTORY_PY" "$URL" write 0 0
    python3 -c "$HISTORY_PY" "$URL" read "$HISTORY_READS" "$(awk -v d="$D" 'BEGIN { print d / 3 }')" > "$WORK/history.txt" 2>&1 &
    HISTORY=$!
fi
# Bytes the server had written to the disk (its WAL, checkpoints), from /proc/PID/io.
disk_writes() { awk '$1 == "write_bytes:" { print $2 }' "/proc/$1/io"; }
# Fixes the server has stored (Prometheus text), to divide the run's disk writes by.
# Each device's latest fix in the SQLite store, as `SQLitePositionStore.latest` reads it: the
# greatest fix time of `latest` and `recent` (SQLite takes a bare column from the max's row), as
# `l`, joined with `devices` as `d`; $1 the columns.
sqlite_latest() {
    echo "SELECT $1 FROM (SELECT device_id, max(fix_time) AS fix_time, latitude, longitude FROM
          (SELECT device_id, fix_time, latitude, longitude FROM latest UNION ALL SELECT device_id, fix_time, latitude, longitude FROM recent)
          GROUP BY device_id) l JOIN devices d ON d.id = l.device_id"
}
stored_fixes() { curl -s "${URL}metrics" | awk '$1 == "tracking_acknowledged_fixes_total" { print $2 }'; }
# The machine's CPU time so far, all cores, in clock ticks (proc(5) /proc/stat "cpu": user nice
# system idle iowait irq softirq steal): busy, idle (with iowait) and steal, the time the
# hypervisor ran something else on our vCPUs. Runs in different hours differ mostly by steal.
machine_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $5 + $6, $9 }' /proc/stat; }
# CPU seconds of this run's PostgreSQL cluster (STORE postgres; else 0): its postmaster's, its
# children's, and in the postmaster's cutime/cstime its children that ended (proc(5)).
postgres_cpu_seconds() {
    [ "$STORE" = postgres ] || { echo 0; return; }
    local pms="" dir
    for dir in "${PGDIRS[@]}"; do pms="$pms $(head -1 "$dir/postmaster.pid")"; done
    # A process may end between the glob and its reading: awk then says so (hidden) and reads on.
    awk -v pms="$pms" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { split(pms, list, " "); for (i in list) pm[list[i]] = 1 }
         $2 == "(postgres)" && ($1 in pm) { s += $14 + $15 + $16 + $17 } $2 == "(postgres)" && ($4 in pm) { s += $14 + $15 } END { printf "%.2f", s / hz }' \
        /proc/[0-9]*/stat 2>/dev/null || true
}
# The cluster's WAL so far (STORE postgres; PostgreSQL 14's pg_stat_wal, 15's pg_stat_bgwriter): bytes,
# full-page images (a page's first change after a checkpoint writes the whole page) and
# checkpoints, timed and requested (max_wal_size reached).
postgres_wal() {
    [ "$STORE" = postgres ] || { echo "0 0 0 0"; return; }
    local port
    for port in "${PGPORTS[@]}"; do
        "$PGBIN/psql" -X -q -A -F ' ' -t -h 127.0.0.1 -p "$port" -U tracking postgres \
            -c "SELECT w.wal_bytes, w.wal_fpi, b.checkpoints_timed, b.checkpoints_req FROM pg_stat_wal w, pg_stat_bgwriter b"
    done | awk '{ for (i = 1; i <= 4; i++) s[i] += $i } END { printf "%d %d %d %d\n", s[1], s[2], s[3], s[4] }'
}
MACHINE0="$(machine_ticks)"; POSTGRES_CPU0="$(postgres_cpu_seconds)"; POSTGRES_WAL0="$(postgres_wal)"
SERVER_CPU0="$(cpu_seconds "$SERVER")"; SERVER_WRITES0="$(disk_writes "$SERVER")"; STORED0="$(stored_fixes)"
[ -n "$SERVER2" ] && FENCE2_CPU0="$(thread_cpu_seconds "$SERVER2" fence-decisions)"
FENCE_CPU0="$(thread_cpu_seconds "$SERVER" fence-decisions)"; WRITER_CPU0="$(thread_cpu_seconds "$SERVER" group-commit)"
if [ -n "${PERF:-}" ]; then
    perf record -F 499 -g -p "$SERVER" -o "$PERF" >/dev/null 2>&1 &
    PERF_PID=$!
fi
LIVE_ARGS=()
if [ -n "${LIVE:-}" ] && [ "${LIVE_CLIENT:-python}" = swift ]; then
    LIVE_ARGS=(--live "${LIVE}x${FOLLOW:-100}" --live-url "$LIVE_URL")
elif [ -n "${LIVE:-}" ]; then
    python3 Benchmarks/tracking-live.py "$LIVE_URL" "$LIVE" "${FOLLOW:-100}" "$N" "$((D + 20))" "${STALLED:-0}" "${LIVE_PROCESSES:-2}" > "$WORK/live.txt" 2>&1 &
    LIVE_PID=$!
fi
# The server's RSS every 10 s of the run, for its flatness (issue 35: within 5 %), and its counts
# of ingest replies and of fixes queued for the writer, in all and within 25 and 100 ms (the
# histograms' buckets): per window, how much of the tail is the server's and the writer's.
server_counts() {
    curl -s "${URL}metrics" | awk -F'[{}" ]+' '
        /^tracking_(ingest_duration|queue_wait)_seconds_(bucket|count)/ {
            n = ($1 ~ /ingest/) ? "i" : "q"
            if ($1 ~ /_count$/) c[n] = $2; else if ($3 == "0.025") f[n] = $4; else if ($3 == "0.1") h[n] = $4 }
        END { printf "%d %d %d %d %d %d", c["i"], f["i"], h["i"], c["q"], f["q"], h["q"] }'
}
( while kill -0 "$SERVER" 2>/dev/null; do echo "$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$SERVER/status") $(server_counts)"; sleep 10; done ) > "$WORK/rss.txt" 2>/dev/null &
RSS_PID=$!
GENERATOR_START="$(date -u +%T)"
LOAD_URL="$URL"; [ -n "${TELTONIKA_PORT:-}" ] && LOAD_URL="tcp://127.0.0.1:$TELTONIKA_PORT"
/usr/bin/time -f "generator CPU: %U s user + %S s system over %e s (%P); peak RSS %M KiB" \
    "$GEO" loadgen --url "$LOAD_URL" --devices "$N" --duration "$D" --ack-log "$WORK/acks.csv" \
        ${PROTOCOL:+--protocol "$PROTOCOL"} ${OVERLAND_BATCH:+--overland-batch "$OVERLAND_BATCH"} "${LIVE_ARGS[@]}"
if ! kill -0 "$SERVER" 2>/dev/null; then
    echo "tracking.sh: the server ended during the run; its standard error:" >&2
    tail -40 "$WORK/server.err" >&2
    exit 1
fi
MACHINE1="$(machine_ticks)"
[ -n "${PERF_PID:-}" ] && { kill -INT "$PERF_PID"; wait "$PERF_PID" || true; }
[ -n "${HISTORY:-}" ] && { wait "$HISTORY" || true; cat "$WORK/history.txt"; }
[ -n "${LIVE_PID:-}" ] && { wait "$LIVE_PID" || true; cat "$WORK/live.txt"; echo "server RSS with the subscribers: $(grep VmRSS /proc/$SERVER/status | awk '{print $2, $3}')"; }
if [ -n "${FENCES:-}" ]; then
    # The decisions trail the acks: wait (up to 60 s) until every committed batch is decided.
    for _ in $(seq 600); do
        curl -s "${URL}metrics" | awk '$1 == "tracking_commits_total" { c = $2 } $1 == "tracking_fence_decision_seconds_count" { d = $2 } END { exit !(d >= c) }' && break
        sleep 0.1
    done
    FENCE_CPU1="$(thread_cpu_seconds "$SERVER" fence-decisions)"; STORED1="$(stored_fixes)"
    # Every device's membership where it ended: two decisive fixes there (see tracking-fences.py).
    LATEST_SQL="SELECT d.name, l.latitude, l.longitude, l.fix_time FROM latest l JOIN devices d ON d.id = l.device_id WHERE d.name LIKE 'loadgen-%'"
    if [ "$STORE" = postgres ]; then
        "$PGBIN/psql" -X -q -A -F $'\t' -t -h 127.0.0.1 -p "$PGPORT" -U tracking postgres -c "$LATEST_SQL" > "$WORK/latest.tsv"
    else
        # SQLite's `latest` holds the latest moved fix; a later one may still be in `recent`.
        sqlite3 -readonly -separator $'\t' "$WORK/t.sqlite" "$(sqlite_latest "d.name, l.latitude, l.longitude, l.fix_time") WHERE d.name LIKE 'loadgen-%'" > "$WORK/latest.tsv"
    fi
    python3 Benchmarks/tracking-fences.py settle "$URL" "$WORK/latest.tsv"
    for _ in $(seq 600); do
        curl -s "${URL}metrics" | awk '$1 == "tracking_commits_total" { c = $2 } $1 == "tracking_fence_decision_seconds_count" { d = $2 } END { exit !(d >= c) }' && break
        sleep 0.1
    done
    echo "fence-decision thread CPU during the run: $(awk -v a="$FENCE_CPU0" -v b="$FENCE_CPU1" -v m="${STORED0:-0}" -v n="$STORED1" \
        'BEGIN { printf "%.1f s, %.1f µs per fix stored in the run", b - a, (n > m ? (b - a) / (n - m) * 1e6 : 0) }')"
    curl -s "${URL}metrics" | grep -E '^tracking_fence_(events_total|decision_seconds_bucket|decision_seconds_count|batches_dropped_total|store_failures_total)'
    if [ -n "$SERVER2" ]; then
        echo "second instance's fence-decision thread CPU (every batch the first committed, as its notes name them): $(awk -v a="$FENCE2_CPU0" -v b="$(thread_cpu_seconds "$SERVER2" fence-decisions)" -v m="${STORED0:-0}" -v n="$STORED1" \
            'BEGIN { printf "%.1f s, %.1f µs per fix stored in the run", b - a, (n > m ? (b - a) / (n - m) * 1e6 : 0) }')"
        curl -s "${LIVE_URL}metrics" | grep -E '^tracking_fence_(events_total|batches_dropped_total|store_failures_total)' | sed 's/^/second instance: /'
    fi
fi
echo "server CPU during the run: $(awk -v a="$SERVER_CPU0" -v b="$(cpu_seconds "$SERVER")" 'BEGIN { printf "%.1f s", b - a }') (wall time: the generator's)"
[ "$STORE" = postgres ] && echo "PostgreSQL CPU during the run: $(awk -v a="$POSTGRES_CPU0" -v b="$(postgres_cpu_seconds)" -v m="${STORED0:-0}" -v n="$(stored_fixes)" \
    'BEGIN { printf "%.1f s, %.1f µs per fix stored in the run", b - a, (n > m ? (b - a) / (n - m) * 1e6 : 0) }')"
[ "$STORE" = postgres ] && echo "PostgreSQL WAL during the run: $(echo "$POSTGRES_WAL0 $(postgres_wal)" | awk -v m="${STORED0:-0}" -v n="$(stored_fixes)" \
    '{ f = (n > m ? n - m : 1); printf "%.0f MB (%.0f bytes per fix stored), %d full-page images (%.3f per fix), checkpoints: %d timed, %d requested", ($5 - $1) / 1e6, ($5 - $1) / f, $6 - $2, ($6 - $2) / f, $7 - $3, $8 - $4 }')"
echo "writer threads (group-commit…) CPU during the run: $(awk -v a="$WRITER_CPU0" -v b="$(thread_cpu_seconds "$SERVER" group-commit)" -v m="${STORED0:-0}" -v n="$(stored_fixes)" \
    'BEGIN { printf "%.1f s, %.2f µs per fix stored in the run", b - a, (n > m ? (b - a) / (n - m) * 1e6 : 0) }')"
echo "server disk writes during the run: $(awk -v a="$SERVER_WRITES0" -v b="$(disk_writes "$SERVER")" -v d="$D" -v m="${STORED0:-0}" -v n="$(stored_fixes)" \
    'BEGIN { printf "%.1f MB (%.2f MB/s, %.0f bytes per fix stored in the run)", (b - a) / 1e6, (b - a) / 1e6 / d, (n > m ? (b - a) / (n - m) : 0) }')"
echo "machine load after: $(cut -d' ' -f1-3 /proc/loadavg); its CPU time during the generator's run: $(echo "$MACHINE0 $MACHINE1" | awk -v n="$(nproc)" -v hz="$(getconf CLK_TCK)" \
    '{ b = $4 - $1; i = $5 - $2; s = $6 - $3; t = b + i + s; printf "%.0f %% busy, %.0f %% idle, %.0f %% steal (of %.0f s on %d vCPUs)", 100 * b / t, 100 * i / t, 100 * s / t, t / hz, n }')"
curl -s "${URL}metrics" | grep -E '^tracking_(commits|commit_failures|commit_seconds|settles|settled_rows|settle_seconds|settle_failures|acknowledged_fixes|duplicate_fixes|memory_released_bytes)_total|^tracking_(batch_rows|memory_release_duration_seconds)_(sum|count)'
# The server's own request → reply time, the writer's and the heap releases' histograms, one line each: the
# observations at most each bound (ms). What the generator's latency has beyond the server's own
# time waited outside it: in the kernel, or for a core (the generator's and the server's).
curl -s "${URL}metrics" | awk -F'[{}" ]+' '/^tracking_(ingest_duration|queue_wait|commit_duration|settle_duration|memory_release_duration)_seconds_(bucket|count)/ {
        name = $1; sub(/_(bucket|count)$/, "", name)
        if ($1 ~ /_count$/) { total[name] = $2; next }
        if ($3 != "+Inf") { line[name] = line[name] sprintf(" ≤%gms:%s", $3 * 1000, $4) } }
    END { for (n in line) printf "%s (cumulative counts of %d):%s\n", n, total[n], line[n] }'
echo "server peak RSS: $(grep VmHWM /proc/$SERVER/status | awk '{print $2, $3}')"
kill "$RSS_PID" 2>/dev/null; wait "$RSS_PID" 2>/dev/null || true
# Flat from the end of the first fifth of the run on (before it, caches fill): the samples'
# spread there against their least.
awk -v d="$D" '{ t = (NR - 1) * 10; rss[NR] = $1; if (t % 60 == 0) line = line sprintf(" %ds:%d", t, $1) }
    END { from = int(d / 5 / 10) + 1; lo = 1e18; hi = 0
          for (i = from; i <= NR; i++) { if (rss[i] < lo) lo = rss[i]; if (rss[i] > hi) hi = rss[i] }
          if (hi > 0) printf "server RSS (kB) each minute:%s; from %d s on %d–%d kB, spread %.1f %% (issue 35: flat within 5 %%)\n", line, (from - 1) * 10, lo, hi, 100 * (hi - lo) / lo }' "$WORK/rss.txt"
# Per window (a minute, or 10 s in runs under 3 minutes): the share of ingest replies that took
# the server over 25 and over 100 ms, and of fixes that waited as long for the writer.
awk -v d="$D" 'function pct(a, b) { return b > 0 ? 100 * a / b : 0 }
    { t = (NR - 1) * 10; w = d >= 180 ? 60 : 10
      if (NR > 1 && t % w == 0) {
          i = $2 - p2; q = $5 - p5
          line = line sprintf(" %d–%ds: %.2f/%.2f %% (writer %.2f/%.2f %%);", t - w, t, pct(i - ($3 - p3), i), pct(i - ($4 - p4), i), pct(q - ($6 - p6), q), pct(q - ($7 - p7), q)) }
      if (t % w == 0) { p2 = $2; p3 = $3; p4 = $4; p5 = $5; p6 = $6; p7 = $7 } }
    END { if (line != "") print "server, per window: ingest replies over 25/100 ms after the request reached the route (fixes that waited over 25/100 ms for the writer):" line }' "$WORK/rss.txt"
kill -TERM "$SERVER"; wait "$SERVER" || true; SERVER=""
# PostgreSQL's checkpoints (logged by default since 15) and, with log_autovacuum_min_duration
# in PG_SETTINGS, its vacuums: their times beside the generator's 10 s windows show what a
# slow window waited for.
if [ "$STORE" = postgres ]; then
    echo "generator started at $GENERATOR_START (UTC); PostgreSQL's log of checkpoints and vacuums:"
    for dir in "${PGDIRS[@]}"; do
        grep -E "checkpoint (starting|complete)|automatic (vacuum|analyze)|system usage" "$dir.log" | sed "s|^|  $(basename "$dir"): |" || true
    done
fi
VERIFY0="$(date +%s.%N)"
if [ "$STORE" = postgres ]; then
    "$GEO" loadgen verify "${STORE_ARGS[@]}" --ack-log "$WORK/acks.csv"
    if [ -n "${PILOT:-}" ]; then "$GEO" loadgen verify "${STORE_ARGS[@]}" --ack-log "$WORK/pilot-acks.csv" | sed 's/^/pilot: /'; fi
else
    "$GEO" loadgen verify --db "$WORK/t.sqlite" --ack-log "$WORK/acks.csv"
fi
echo "verify took $(awk -v a="$VERIFY0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }')"
# What the server logged (a failing store's lines, StoreFailureLog), beside the counts above.
if [ -s "$WORK/server.err" ]; then
    echo "the server's standard error (last 20 lines):"
    tail -20 "$WORK/server.err" | sed 's/^/  /'
fi
if [ -n "${FENCES:-}" ] && [ "$STORE" = sqlite ]; then
    # PostGIS for the check: a cluster of its own, with the SQLite file's tables under the names
    # and columns PostgreSQL's store has (`positions` is the SQLite store's hours, slots and
    # recent batches together). Doubles go through Python's repr, exact both ways.
    [ "$(id -u)" -eq 0 ] && chown postgres "$WORK"
    PGPORT="$(free_port)"
    as_pg "$PGBIN/initdb" -D "$WORK/pg" -U tracking -A trust -E UTF8 --no-sync >/dev/null
    as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg.log" -w -o "-p $PGPORT -k $WORK -c listen_addresses=127.0.0.1" start >/dev/null
    PGDIRS=("$WORK/pg")
    python3 - "$WORK/t.sqlite" "$WORK" "$(sqlite_latest "l.device_id, l.fix_time, l.latitude, l.longitude")" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
fixes = " UNION ALL ".join(f"SELECT device_id, fix_time, latitude, longitude FROM {t}" for t in ("positions", "slots", "recent"))
for name, sql in (("devices", "SELECT id, name FROM devices"), ("positions", fixes),
                  ("latest", sys.argv[3]),
                  ("events", "SELECT device, fence, kind, time, latitude, longitude FROM events")):
    with open(f"{sys.argv[2]}/oracle-{name}.tsv", "w") as out:
        for row in db.execute(sql):
            out.write("\t".join(repr(v) if isinstance(v, float) else str(v) for v in row) + "\n")
PY
    as_pg "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" -U tracking postgres \
        -c "CREATE TABLE devices (id bigint PRIMARY KEY, name text)" \
        -c "CREATE TABLE positions (device_id bigint, fix_time bigint, latitude float8, longitude float8)" \
        -c "CREATE TABLE latest (device_id bigint PRIMARY KEY, fix_time bigint, latitude float8, longitude float8)" \
        -c "CREATE TABLE events (device text, fence text, kind text, time bigint, latitude float8, longitude float8)" \
        -c "\\copy devices FROM '$WORK/oracle-devices.tsv'" -c "\\copy positions FROM '$WORK/oracle-positions.tsv'" \
        -c "\\copy latest FROM '$WORK/oracle-latest.tsv'" -c "\\copy events FROM '$WORK/oracle-events.tsv'" \
        -c "CREATE INDEX ON positions (device_id, fix_time)"
fi
if [ -n "${FENCES:-}" ]; then
    # Every stored enter/exit at a stored fix of its device against PostGIS at that fix:
    # kind | at a fix | events | agree | disagree | within 1 m of the edge.
    PSQL=("$PGBIN/psql" -X -q -A -F ' | ' -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" -U tracking postgres)
    as_pg "${PSQL[@]}" -c "CREATE EXTENSION IF NOT EXISTS postgis" \
        -c "CREATE TABLE fence_text (id text PRIMARY KEY, wkt text, radius float8)" \
        -c "\\copy fence_text FROM '$WORK/fences.tsv'" \
        -c "CREATE TABLE fences AS SELECT id, ST_GeomFromText(wkt, 4326) AS geom, radius FROM fence_text" \
        -c "CREATE UNIQUE INDEX ON fences (id)" -c "CREATE INDEX ON fences USING gist (geom)"
    echo "PostGIS check of the stored events (kind | at a fix (f: an inferred crossing) | events | agree | disagree | within 1 m of an edge):"
    as_pg "${PSQL[@]}" -c "
        WITH ev AS (
            SELECT e.*, ST_SetSRID(ST_MakePoint(e.longitude, e.latitude), 4326) AS pt,
                   EXISTS (SELECT 1 FROM positions p JOIN devices d ON d.id = p.device_id
                           WHERE d.name = e.device AND p.fix_time = e.time AND p.latitude = e.latitude AND p.longitude = e.longitude) AS at_fix
            FROM events e WHERE e.kind IN ('enter', 'exit')),
        j AS (
            SELECT ev.kind, ev.at_fix,
                   CASE WHEN f.radius IS NULL THEN ST_Intersects(f.geom, ev.pt) ELSE ST_DWithin(f.geom::geography, ev.pt::geography, f.radius) END AS inside,
                   CASE WHEN f.radius IS NULL THEN ST_Distance(ST_Boundary(f.geom)::geography, ev.pt::geography)
                        ELSE abs(ST_Distance(f.geom::geography, ev.pt::geography) - f.radius) END AS edge
            FROM ev JOIN fences f ON f.id = ev.fence)
        SELECT kind, at_fix, count(*), count(*) FILTER (WHERE edge >= 1 AND inside = (kind = 'enter')),
               count(*) FILTER (WHERE edge >= 1 AND inside <> (kind = 'enter')), count(*) FILTER (WHERE edge < 1)
        FROM j GROUP BY 1, 2 ORDER BY 1, 2"
    # Each device's events per fence in turn (FenceEvent.follows): an enter after none or an
    # exit, an exit after an enter or a dwell, a dwell after an enter.
    echo "events out of turn (a second enter, an exit or dwell outside) | events:"
    as_pg "${PSQL[@]}" -c "
        SELECT count(*) FILTER (WHERE NOT CASE kind WHEN 'enter' THEN coalesce(previous = 'exit', true)
                                                    WHEN 'exit' THEN coalesce(previous IN ('enter', 'dwell'), false)
                                                    ELSE coalesce(previous = 'enter', false) END), count(*)
        FROM (SELECT kind, lag(kind) OVER (PARTITION BY device, fence ORDER BY time, CASE kind WHEN 'enter' THEN 0 WHEN 'dwell' THEN 1 ELSE 2 END) AS previous
              FROM events) e"
    # Each device's membership where it ended (after the settling fixes): its latest event per
    # fence (enter or dwell: inside) against PostGIS at its latest position, for every
    # (device, fence) pair; pairs within 1 m of an edge are not counted.
    echo "PostGIS check of every device's final membership (devices | fences | (device, fence) pairs inside by PostGIS | entered and inside | inside, not entered | entered, outside | within 1 m of an edge):"
    as_pg "${PSQL[@]}" -c "
        WITH pts AS (
            SELECT d.name, ST_SetSRID(ST_MakePoint(l.longitude, l.latitude), 4326) AS pt
            FROM latest l JOIN devices d ON d.id = l.device_id WHERE d.name LIKE 'loadgen-%'),
        pairs AS (
            SELECT p.name, f.id,
                   CASE WHEN f.radius IS NULL THEN ST_Intersects(f.geom, p.pt) ELSE ST_DWithin(f.geom::geography, p.pt::geography, f.radius) END AS inside,
                   CASE WHEN f.radius IS NULL THEN ST_Distance(ST_Boundary(f.geom)::geography, p.pt::geography)
                        ELSE abs(ST_Distance(f.geom::geography, p.pt::geography) - f.radius) END AS edge
            FROM pts p JOIN fences f ON ST_DWithin(f.geom, p.pt, 0.01)),
        decided AS (
            SELECT DISTINCT ON (device, fence) device, fence, kind <> 'exit' AS entered FROM events
            ORDER BY device, fence, time DESC, CASE kind WHEN 'enter' THEN 0 WHEN 'dwell' THEN 1 ELSE 2 END DESC),
        j AS (
            SELECT coalesce(p.name, e.device) AS device, p.inside, p.edge, coalesce(e.entered, false) AS entered
            FROM pairs p FULL JOIN (SELECT * FROM decided WHERE entered) e ON e.device = p.name AND e.fence = p.id)
        SELECT (SELECT count(*) FROM pts), (SELECT count(*) FROM fences),
               count(*) FILTER (WHERE inside AND edge >= 1), count(*) FILTER (WHERE inside AND edge >= 1 AND entered),
               count(*) FILTER (WHERE inside AND edge >= 1 AND NOT entered), count(*) FILTER (WHERE entered AND coalesce(edge >= 1 AND NOT inside, true)),
               count(*) FILTER (WHERE edge < 1)
        FROM j"
fi
