#!/usr/bin/env python3
"""What a move costs the SQLite WAL by the key of `positions` (issue 35, SQLitePositionStore).

Replays the moves of `geo serve-tracking` without the server: DEVICES devices each moving PER
fixes a round (1 Hz fixes moved every PER seconds), in transactions of 50 devices in ascending
id, rows shaped like the server's (12 columns, WITHOUT ROWID), on the machine's libsqlite3 (the one
the server links), WAL mode with an 8 MiB page cache as the server's writer. After each round it
prints the WAL's bytes per row moved (the WAL is then checkpointed and truncated) for a table
keyed by

- `device`: (device, fix time, payload hash), the server's `positions` in sessions 30–54: a
  device's history is one range, but each move appends inside the tree;
- `round`: (round, device, fix time, payload hash): every move appends at the tree's right edge,
  and a device's history takes one seek per round (the server's `slots` since session 55, keyed
  by 10 s slot, whose hours it merges into a `positions` keyed by hour: 24 seeks a day);

and at the end, for both, the time to read one device's rows (all rounds), in milliseconds, and
per round for `round`. Usage: Benchmarks/sqlite-layout.py [ROUNDS] [DEVICES] [PER]
(default 18 rounds, 20,000 devices, 10 fixes: 180 s of tracking.sh 19,900 devices).
"""
import os
import random
import sqlite3
import sys
import tempfile
import time

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 18
DEVICES = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
PER = int(sys.argv[3]) if len(sys.argv) > 3 else 10
SLICE = 50
KEYS = {"device": "device_id, fix_time, payload_hash", "round": "round, device_id, fix_time, payload_hash"}


def run(layout, folder):
    db = sqlite3.connect(os.path.join(folder, layout + ".sqlite"), isolation_level=None)
    for pragma in ("journal_mode = WAL", "wal_autocheckpoint = 0", "cache_size = -8192", "synchronous = OFF"):
        db.execute("PRAGMA " + pragma)
    db.execute(f"""CREATE TABLE positions (round INTEGER, device_id INTEGER, fix_time INTEGER, payload_hash INTEGER,
        latitude REAL, longitude REAL, altitude REAL, accuracy REAL, speed REAL, course REAL, received_at INTEGER, source TEXT,
        PRIMARY KEY ({KEYS[layout]})) WITHOUT ROWID""")
    wal = os.path.join(folder, layout + ".sqlite-wal")
    rnd = random.Random(1)
    start = 1_700_000_000_000
    per_row = []
    for r in range(ROUNDS):
        for first in range(0, DEVICES, SLICE):
            rows = []
            for d in range(first, min(first + SLICE, DEVICES)):
                for k in range(PER):
                    t = start + (r * PER + k) * 1000 + d % 1000
                    rows.append((r, d, t, rnd.getrandbits(62), 48 + rnd.random(), 2 + rnd.random(), 40.0, 5.0, 1.2, 180.0, t + 30, "osmand"))
            db.execute("BEGIN")
            db.executemany("INSERT INTO positions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)
            db.execute("COMMIT")
        per_row.append(os.path.getsize(wal) / (DEVICES * PER))
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    device = DEVICES // 2
    began = time.perf_counter()
    if layout == "device":
        n = len(db.execute("SELECT * FROM positions WHERE device_id = ? ORDER BY fix_time", (device,)).fetchall())
    else:
        # One statement, one seek a round, as the server reads `recent` batch by batch.
        n = len(db.execute("""WITH RECURSIVE rounds(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM rounds WHERE n < ?)
            SELECT p.* FROM rounds CROSS JOIN positions p ON p.round = rounds.n AND p.device_id = ?""", (ROUNDS - 1, device)).fetchall())
    read_ms = (time.perf_counter() - began) * 1000
    db.close()
    return per_row, n, read_ms


with tempfile.TemporaryDirectory() as folder:
    results = {layout: run(layout, folder) for layout in KEYS}
print(f"WAL bytes per row moved, by round ({DEVICES} devices × {PER} fixes a round, {SLICE} devices a transaction):")
for layout, (per_row, _, _) in results.items():
    print(f"  {layout:6} " + " ".join(f"{b:.0f}" for b in per_row))
for layout, (_, n, ms) in results.items():
    print(f"one device's {n} rows read back, {layout} key: {ms:.2f} ms" + (f" ({ms / ROUNDS:.3f} ms a round)" if layout == "round" else ""))
