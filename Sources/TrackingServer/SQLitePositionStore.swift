import Platform
public import GeoCore
import GRDB
import Synchronization
import SystemIO
import TrackingProtocols

/// The default store: one SQLite file through GRDB, in WAL mode with `synchronous = FULL`, so a
/// commit that returned survives a crash of the process or the machine (sqlite.org/pragma.html
/// #pragma_synchronous: FULL syncs the WAL at every commit); only the moves below are not
/// synced of their own (`write(synced:)`).
///
/// Three tables of fixes, all `WITHOUT ROWID`, same columns. A group commit appends to `recent`,
/// keyed by (batch, device, fix time, payload hash), `batch` numbering the commits in arrival
/// order: a commit fills new pages at the right edge of its B-tree and dirties no other. (Keyed
/// by fix time first, an Overland batch — 100 fixes of one device over its last second — put
/// its rows among every other device's of that second: tracking.sh 1,000 devices × 100 wrote
/// 12 GB in 30 s.) The writer keeps the key of every fix in `recent` in memory and skips a fix
/// it holds there, so `recent` needs no unique (device, fix time, payload hash) of its own.
/// A history read wants a device's fixes together; writing a batch from 1,000 random devices
/// into a table keyed so dirtied ~1,700 pages, each written whole to the WAL (6.8 MB per
/// commit; tracking.sh 20,000 devices spent 51 of 60 s in commits). So `settle`, between group
/// commits, moves the fixes in rounds, once the oldest 10 s slot of fix time in `recent` is
/// `moveAfter` over: a round takes every fix below its boundary (the end of the last slot that
/// is; keeping up, one slot) and copies them into `slots`, keyed (slot, device, fix time, payload hash), device by device
/// in slices of `sliceDevices` and at most `sliceRows` rows, then deletes them from `recent` in
/// pieces of ~`sliceRows` rows, whole batches from the least up to the round's last (ranges of
/// its key). An hour of `slots` is merged into `positions`, keyed (hour, device, …), once it is
/// `mergeAfter` over (`SQLiteHourMerge.swift`); every move appends at the right edge of its tree.
/// Reads see all three tables and count a fix found in two once (a round or merge interrupted by
/// a crash leaves copies until it is done again); a device's fixes are read one seek an hour in
/// `positions`, a slot in `slots`, a batch in `recent` (of the batches whose span of fix times,
/// in `recent_batches`, meets the range). A fix whose time is below the boundary
/// (late, or a retry of one already moved) goes to `slots` or, its hour merged, `positions`
/// directly (`ON CONFLICT DO NOTHING`), unless `recent` has it.
///
/// `latest(device, …)` holds each device's latest moved fix and is updated by the moves, so a
/// commit does not dirty its pages (every one of them, for 1,000 random devices); the writer
/// keeps every device's latest fix in memory, loaded at open from `latest` and `recent`.
/// `events` is keyed by (device, fence, kind, time), with an index on (device, time); `moves`
/// holds the boundary of the last round begun, the hours merged and the merge's next device.
///
/// One writer per file: a writable store holds an exclusive `flock(2)` on `PATH-lock` (its
/// process id inside) until `stopWriting()` or its end, and a second one, in any process, is
/// refused with `SQLiteStoreInUse` — two writers would each trust their own memory of `recent`
/// and of every device's latest fix (a retry stored twice, a device's latest moved backwards).
/// Read-only stores take no lock.
public final class SQLitePositionStore: PositionStore {
    let pool: DatabasePool
    let readOnly: Bool
    /// `PATH-lock`, locked while this store may write (nil when read-only), the WAL's
    /// checkpointer while it writes, whether `stopWriting()` gave them up, and whether the
    /// writing connection syncs its commits (`write(synced:)`); held through every write transaction.
    let writer: Mutex<(lock: FileDescriptor?, checkpointer: SQLiteCheckpointer?, stopped: Bool, synced: Bool)>
    /// A 10 s slot of fixes is moved to `slots` once it ended this long ago (ms, by fix time).
    /// 10 s by default. (Measured when the moves went into the device-first `positions`:) 30 s
    /// gave a device's leaf ~30 rows a dirtying instead of ~10: at 19,900
    /// devices × 1 Hz over 120 s (tracking.sh, 2026-12-03) a moved row cost 10.2 → 6.6 µs of
    /// the writer's time (copy and delete, `tracking_settle_seconds_total` over
    /// `tracking_settled_rows_total`) and the disk writes went 1,432 → 682 bytes a fix, but the
    /// server's peak RSS 625 → 754 MB in a run whose first 60 s had no moves (the writer holds
    /// every fix of `recent` in memory three times as long), and the machine stayed saturated
    /// (p99 1.9 and 2.0 s): not taken.
    let moveAfter: Int64
    /// An hour of `slots` is merged into `positions` once it ended this long ago (ms): later
    /// fixes of it then go to `positions` directly, each inside the tree. 60 s by default.
    let mergeAfter: Int64
    /// Devices per move transaction: bounds the time a move holds the writer, which went with
    /// the device-first `positions` leaves it dirtied (one or two a device) more than with its rows (when
    /// the machine could not keep 19,900 devices at 1 Hz, slices of 2,000 rows from ~1,000
    /// devices took 147 ms each). 50 by default: at 19,900 devices × 1 Hz over 180 s, slices of
    /// 200 devices took 8.5 ms on average, 3.3 % of them over 25 ms, and 1.44 % of requests
    /// waited over 25 ms for the writer; slices of 50 (at most 1,250 rows) took 3.4 ms, 0.17 %
    /// over 25 ms, and 0.38 % of requests waited over 25 ms — for 60 % more time in moves (a
    /// transaction's fixed cost) and 4 % more bytes written (tracking.sh; the metrics
    /// `tracking_settle_duration_seconds`, `tracking_queue_wait_seconds`).
    let sliceDevices: Int
    /// Rows per move transaction (one device's at least), copied or deleted: devices sending
    /// many fixes a second fill a slice with few devices (1,000 Overland devices × 100 fixes a
    /// second put ~200,000 rows in a slice of 200 devices and ~1 M in the round's delete; each
    /// held the writer, and every commit waiting behind it, for seconds).
    let sliceRows: Int
    /// Device name → id; filled from the table, extended after each commit that added devices.
    let ids = Mutex<[String: Int64]>([:])
    /// Device name → its latest fix, over both tables (the writer's; a read-only store queries).
    let latestFixes = Mutex<[String: StoredFix]>([:])
    /// The fixes of `recent` and the round moving them; the lock is held through a commit's, a
    /// move's and retention's transactions, so none writes rows another has just removed or
    /// skips a fix by what another is changing.
    let moves = Mutex(MoveState())

    /// Opens (creating when absent) the database at `path`.
    /// - Parameters:
    ///   - readOnly: open without writing (`geo loadgen verify`; a replica); commits then fail.
    ///   - maximumPages: caps the file at this many pages (`PRAGMA max_page_count`; 4 KiB pages),
    ///     after which commits fail with SQLITE_FULL as on a full disk; nil for no cap.
    ///   - moveAfter: a slot of fixes this long over, by fix time, is moved from `recent` to `slots`.
    ///   - mergeAfter: an hour this long over is merged from `slots` into `positions`.
    ///   - sliceDevices: devices per move transaction.
    ///   - sliceRows: rows per move transaction (one device's at least).
    public init(path: String, readOnly: Bool = false, maximumPages: Int? = nil, moveAfter: Duration = .seconds(10),
                mergeAfter: Duration = .seconds(60), sliceDevices: Int = 50, sliceRows: Int = 1250) throws {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(5)
        if let maximumPages {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA max_page_count = \(maximumPages)") }
        }
        self.readOnly = readOnly
        self.moveAfter = moveAfter.milliseconds
        self.mergeAfter = mergeAfter.milliseconds
        self.sliceDevices = sliceDevices
        self.sliceRows = sliceRows
        let lock = readOnly ? nil : try Self.lockWriter(of: path)
        writer = Mutex((lock, nil, false, true))
        // Past this point a throw runs `deinit`, which gives the lock up; before it, here.
        do { pool = try DatabasePool(path: path, configuration: configuration) } catch {
            try? lock?.close()
            throw error
        }
        if !readOnly {
            // FULL set here, on the pool's one writing connection: GRDB's DatabasePool sets
            // `synchronous = NORMAL` when it turns WAL on, after `prepareDatabase` ran, and under
            // NORMAL a commit is not synced (the WAL only at checkpoints): an acknowledged fix
            // could be lost to a power cut. (strace under tracking.sh 2,000 devices: 12 WAL syncs
            // in 10 s over ~1,600 commits, before this.)
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(SQLiteCheckpointer.writerThresholdPages)")
            }
            try Self.migrate(pool)
            // The writer's page cache, 8 MiB rather than SQLite's 2 MiB: a move writes to pages
            // all over the (device, fix time) key, and with the small cache it read many of them
            // back (pread was 3.5 % of the server's CPU samples under tracking.sh 19,900 devices,
            // perf, when commits wrote there). Not larger: while the file is under 1 GiB, every
            // commit after a page split walks every page the cache holds. `balance_nonroot`
            // (btree.c) sorts the new pages by swapping them through the page number of the lock
            // byte (2^30 / page size + 1, past the end of the file), and the commit's
            // `sqlite3PcacheTruncate(dbSize)` (pager.c `pager_end_transaction`) then scans the whole
            // hash of pcache1 (`pcache1TruncateUnsafe`). With 64 MiB (16,384 pages) that scan was
            // 19 % of the writer thread's CPU samples (perf); at 19,900 devices × 120 s the writer
            // took 11.2–12.5 s of CPU per 30 s with 64 MiB and 9.9–10.9 s with 8 MiB (two runs
            // each, every 30 s window after the first), the same with 2 MiB and a memory map.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA cache_size = -8192") }
        }
        let known = try pool.read { db in try Row.fetchAll(db, sql: "SELECT id, name FROM devices") }
        ids.withLock { map in for row in known { map[row["name"]] = row["id"] } }
        if !readOnly {
            let names = Dictionary(known.map { ($0["id"] as Int64, $0["name"] as String) }) { a, _ in a }
            let (latest, state, spans) = try pool.read { db in
                var state = MoveState(), spans: [Int64: ClosedRange<Int64>] = [:]
                let saved = try Row.fetchOne(db, sql: "SELECT boundary, merged_below, merge_device FROM moves")
                state.boundary = saved?[0] ?? .min
                state.mergedBelow = saved?[1] ?? 0
                state.merge = try Self.merge(resuming: db, state, device: saved?[2])
                state.positionsEnd = try Int64.fetchOne(db, sql: "SELECT max(hour) + 1 FROM positions") ?? 0
                // Hours after the last in `slots` are all written by this store: a merge visits their devices only.
                state.trackedFrom = try Int64.fetchOne(db, sql: "SELECT max(slot) FROM slots").map { $0 / Self.slotsPerHour + 1 } ?? 0
                let cut = state.boundary
                // Each device's latest fix: that of `latest`, unless `recent` has a later one (of
                // equal times the first read, as a commit keeps the first it takes); `recent` read
                // in commit order. On the start measured in `SQLiteFixCursor`, the `GROUP BY` of
                // `latest(_:device:)` (a read-only store's) took 0.54 s more over these rows;
                // this and the read of `recent` now take 0.50 s, where they took 1.63 s.
                var latest: [Int64: StoredFix] = [:]
                var rows = try SQLiteFixCursor(db, sql: "SELECT \(Self.tableColumns) FROM latest")
                while let (id, fix) = try rows.next(name: { names[$0] }) { latest[id] = fix }
                rows = try SQLiteFixCursor(db, sql: "SELECT \(Self.tableColumns), batch FROM recent ORDER BY batch")
                while let (id, fix) = try rows.next(name: { names[$0] }) {
                    let batch = rows.integer(at: 11)
                    state.wait(fix, id: id, batch: batch)
                    spans[batch] = spans[batch].map { min($0.lowerBound, fix.fixTime)...max($0.upperBound, fix.fixTime) } ?? fix.fixTime...fix.fixTime
                    if latest[id].map({ fix.fixTime > $0.fixTime }) ?? true { latest[id] = fix }
                }
                // A round the last run began and did not finish: done again (a copy already made is skipped).
                if state.oldestWaiting < cut { state.begin(cut: cut) }
                return (latest.values, state, spans)
            }
            // Made again from `recent` itself, so that batches an older version appended (it
            // wrote no spans) are read too.
            try pool.write { db in
                try db.execute(sql: "DELETE FROM recent_batches")
                let insert = try db.makeStatement(sql: "INSERT INTO recent_batches (batch, oldest, newest) VALUES (?, ?, ?)")
                for (batch, span) in spans { try insert.execute(arguments: [batch, span.lowerBound, span.upperBound]) }
            }
            latestFixes.withLock { map in for fix in latest { map[fix.device] = fix } }
            moves.withLock { $0 = state }
            let checkpointer = try SQLiteCheckpointer(path: path)
            writer.withLock { $0.checkpointer = checkpointer }
        }
    }

    deinit { stopWriting() }

    /// Gives up writing: waits for a write in progress and the checkpointer's pass, then
    /// releases `PATH-lock`, so another store may open the file for writing (a restarted
    /// server); writes here fail from then on with `SQLiteStoreStopped`, reads go on.
    public func stopWriting() {
        writer.withLock { state in
            state.checkpointer?.stop()
            try? state.lock?.close()
            state = (nil, nil, true, state.synced)
        }
    }

    /// `pool.write`, while this store is its file's writer.
    /// - Parameter synced: whether the commit syncs the WAL (`synchronous = FULL`, the
    ///   default). `settle`'s moves need not: a WAL is durable in commit order, so the next group
    ///   commit's sync covers them (sqlite.org/wal.html), and a power cut before it loses only
    ///   copies `recent` still holds, or deletes of rows already copied, which the restarted
    ///   store makes again. tracking.sh 19,900 devices × 180 s, two runs each, alternating: the
    ///   moves' time 35.4 → 21.2 s, the commits' 46.8 → 51.5 s (their syncs now carry the moves'
    ///   pages), the writer's time in transactions −11.5 %; p99 request → ack within the runs' noise.
    /// - Throws: `SQLiteStoreStopped` after `stopWriting()`; what the write throws (GRDB's
    ///   read-only error on a read-only store).
    func write<T: Sendable>(synced: Bool = true, _ updates: (Database) throws -> T) throws -> T {
        try writer.withLock { state in
            if state.stopped { throw SQLiteStoreStopped(path: pool.path) }
            if state.synced != synced {
                // Set on the connection between transactions; a failure leaves `state.synced` as
                // it was, so a commit that needs FULL sets it again (or fails, unacknowledged).
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(synced ? "FULL" : "NORMAL")") }
                state.synced = synced
            }
            return try pool.write(updates)
        }
    }

    /// Takes `PATH-lock` (created when absent) and writes this process's id into it.
    /// - Throws: `SQLiteStoreInUse` when another store holds it; `SystemIOError` when the
    ///   lock file cannot be opened or written.
    static func lockWriter(of path: String) throws -> FileDescriptor {
        let lockPath = path + "-lock"
        let fd = try FileDescriptor(opening: lockPath, .readWrite, options: [.create])
        do {
            guard try fd.lockExclusive() else {
                let holder = String(decoding: ((try? fd.readToEnd(limit: 32)) ?? []).prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
                throw SQLiteStoreInUse(path: path, holder: Int32(holder))
            }
            try fd.truncate(toSize: 0)
            try fd.writeAll("\(getpid())\n")
            return fd
        } catch {
            try? fd.close()
            throw error
        }
    }

    static func migrate(_ pool: DatabasePool) throws {
        let fixColumns = """
            device_id INTEGER NOT NULL, fix_time INTEGER NOT NULL, payload_hash INTEGER NOT NULL,
            latitude REAL NOT NULL, longitude REAL NOT NULL, altitude REAL, accuracy REAL, speed REAL, course REAL,
            received_at INTEGER NOT NULL, source TEXT NOT NULL
            """
        try pool.write { db in
            // `recent` as the layout before batches had it (keyed by fix time): its rows become batch 0.
            let recentColumns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('recent')")
            let byTime = !recentColumns.isEmpty && !recentColumns.contains("batch")
            if byTime { try db.execute(sql: "ALTER TABLE recent RENAME TO recent_by_time") }
            // `positions` keyed device first (before hours and slots): its rows are copied, hour by hour.
            let positionsColumns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('positions')")
            let byDevice = !positionsColumns.isEmpty && !positionsColumns.contains("hour")
            if byDevice { try db.execute(sql: "ALTER TABLE positions RENAME TO positions_by_device") }
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS devices (
                    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, osmand_speed_unit TEXT NOT NULL DEFAULT 'mps');
                CREATE TABLE IF NOT EXISTS positions (
                    hour INTEGER NOT NULL, \(fixColumns), PRIMARY KEY (hour, device_id, fix_time, payload_hash)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS slots (
                    slot INTEGER NOT NULL, \(fixColumns), PRIMARY KEY (slot, device_id, fix_time, payload_hash)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS recent (
                    batch INTEGER NOT NULL, \(fixColumns), PRIMARY KEY (batch, device_id, fix_time, payload_hash)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS recent_batches (batch INTEGER PRIMARY KEY, oldest INTEGER NOT NULL, newest INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS moves (boundary INTEGER NOT NULL, merged_below INTEGER NOT NULL DEFAULT 0, merge_device INTEGER);
                CREATE TABLE IF NOT EXISTS latest (
                    device_id INTEGER PRIMARY KEY, fix_time INTEGER NOT NULL, payload_hash INTEGER NOT NULL,
                    latitude REAL NOT NULL, longitude REAL NOT NULL, altitude REAL, accuracy REAL, speed REAL, course REAL,
                    received_at INTEGER NOT NULL, source TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS events (
                    device TEXT NOT NULL, fence TEXT NOT NULL, kind TEXT NOT NULL, time INTEGER NOT NULL,
                    latitude REAL NOT NULL, longitude REAL NOT NULL,
                    PRIMARY KEY (device, fence, kind, time)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS events_device_time ON events (device, time);
                CREATE INDEX IF NOT EXISTS events_device_fence_time ON events (device, fence, time);
                """)
            if byTime {
                try db.execute(sql: """
                    INSERT INTO recent (batch, \(tableColumns)) SELECT 0, \(tableColumns) FROM recent_by_time;
                    DROP TABLE recent_by_time;
                    """)
            }
            if byDevice {
                try db.execute(sql: """
                    INSERT INTO positions (hour, \(tableColumns))
                        SELECT fix_time / \(hourSpan), \(tableColumns) FROM positions_by_device ORDER BY 1, device_id, fix_time, payload_hash;
                    DROP TABLE positions_by_device;
                    """)
            }
            if try !String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('moves')").contains("merged_below") {
                try db.execute(sql: "ALTER TABLE moves ADD COLUMN merged_below INTEGER NOT NULL DEFAULT 0")
                try db.execute(sql: "ALTER TABLE moves ADD COLUMN merge_device INTEGER")
            }
            if byDevice {
                // The old table holds fixes below the boundary only: the hours before the
                // boundary's count as merged, later fixes of them go to `positions`.
                try db.execute(sql: "UPDATE moves SET merged_below = max(merged_below, boundary / \(hourSpan))")
            }
        }
    }

    /// The columns of `positions`, `recent` and `latest`, in the order of their tables.
    static let tableColumns = "device_id, fix_time, payload_hash, latitude, longitude, altitude, accuracy, speed, course, received_at, source"

    /// Moves `latest` of the fix's device to it if it is later (an out-of-order fix never moves it back).
    static func advanceLatest(_ db: Database) throws -> SQLiteFixInsert {
        try SQLiteFixInsert(db, into: "latest", conflict: """
            ON CONFLICT (device_id) DO UPDATE SET fix_time = excluded.fix_time, payload_hash = excluded.payload_hash,
                latitude = excluded.latitude, longitude = excluded.longitude, altitude = excluded.altitude,
                accuracy = excluded.accuracy, speed = excluded.speed, course = excluded.course,
                received_at = excluded.received_at, source = excluded.source
            WHERE excluded.fix_time > latest.fix_time
            """)
    }

    public func commit(_ rows: [StoredFix]) throws -> Int {
        var added: [String: Int64] = [:]
        let known = ids.withLock { $0 }
        var fresh: [(id: Int64, fix: StoredFix)] = []
        // What `recent` holds is read under one lock, held through the transaction: `settle`
        // runs on this thread and retention takes the same lock before its transaction.
        try moves.withLock { state in
            let boundary = state.boundary, batch = state.nextBatch
            try write { db in
                fresh = []
                fresh.reserveCapacity(rows.count)
                // The fixes for `recent`, skipped when it holds them (or this batch does).
                var appended: [(id: Int64, fix: StoredFix)] = [], batchKeys = Set<FixKey>(minimumCapacity: rows.count)
                appended.reserveCapacity(rows.count)
                let late = try LateFixes(db), latest = try Self.advanceLatest(db)
                // The device of the row before, with its id and fixes in `recent`: a request's
                // fixes are one device's, one after another.
                var last: (name: String, id: Int64, waiting: Waiting?)? = nil
                for row in rows {
                    if last?.name != row.device {
                        let id: Int64
                        if let known = known[row.device] ?? added[row.device] {
                            id = known
                        } else {
                            try db.execute(sql: "INSERT INTO devices (name) VALUES (?) ON CONFLICT DO NOTHING", arguments: [row.device])
                            id = try Int64.fetchOne(db, sql: "SELECT id FROM devices WHERE name = ?", arguments: [row.device])!
                            added[row.device] = id
                        }
                        last = (row.device, id, state.waiting[id])
                    }
                    guard let (_, id, waiting) = last, !state.holds(row, id: id, device: waiting) else { continue }
                    if row.fixTime >= boundary {
                        guard batchKeys.insert(FixKey(id, row)).inserted else { continue }
                        appended.append((id, row))
                    } else {
                        // Below the round's boundary: late, or a retry of a fix that may be in `slots` or `positions`.
                        guard try late.store(row, id: id, state: &state) else { continue }
                        try latest.run(row, id: id)
                    }
                    fresh.append((id, row))
                }
                // In key order, so the batch's rows fill its pages one after another.
                appended.sort { ($0.id, $0.fix.fixTime, $0.fix.payloadHash) < ($1.id, $1.fix.fixTime, $1.fix.payloadHash) }
                try SQLiteFixRows(db, into: "recent", leading: "batch").insert(appended, leading: batch)
                if let oldest = appended.lazy.map(\.fix.fixTime).min(), let newest = appended.lazy.map(\.fix.fixTime).max() {
                    try db.cachedStatement(sql: "INSERT INTO recent_batches (batch, oldest, newest) VALUES (?, ?, ?)").execute(arguments: [batch, oldest, newest])
                }
            }
            // In the order they came, each run of one device's fixes at once.
            let appended = fresh.filter { $0.fix.fixTime >= boundary }
            var start = 0
            while start < appended.count {
                var end = start + 1
                while end < appended.count && appended[end].id == appended[start].id { end += 1 }
                state.wait(appended[start..<end].lazy.map(\.fix), id: appended[start].id, batch: batch)
                start = end
            }
        }
        if !added.isEmpty { ids.withLock { $0.merge(added) { a, _ in a } } }
        latestFixes.withLock { map in
            for (_, fix) in fresh where map[fix.device].map({ fix.fixTime > $0.fixTime }) ?? true { map[fix.device] = fix }
        }
        return fresh.count
    }

    /// One transaction of moving fixes from `recent` to `positions`: begins a round when a fix
    /// in `recent` is older than twice `moveAfter`, copies the next slice of the round's devices (and
    /// advances their `latest`), or, the round copied, deletes it from `recent`. Called by the
    /// group committer between batches. Returns the rows copied or deleted (0: nothing to do).
    public func settle() throws -> Int {
        guard !readOnly else { return 0 }
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        return try moves.withLock { state in
            if state.round.isEmpty {
                // A round once the oldest slot is `moveAfter` over, of every slot that is: each
                // round takes a slot of every device's fixes (10 at 1 Hz), where cutting as soon
                // as one was older took what came during the last round, one fix a device
                // (tracking.sh 2,000 devices: 4.9 KB written per fix); and, keeping up, one slot,
                // whose rows then append to `slots`. (A round a slot, a day of one device's fixes
                // in `recent` took 8,640 rounds, each O(devices) at its beginning.)
                let cut = Self.slot(now - moveAfter) * Self.slotSpan
                guard state.oldestWaiting < cut else { return try mergeStep(&state, now: now) }
                var next = state
                next.begin(cut: cut)
                try write(synced: false) { db in try Self.saveMoves(db, next) }
                state = next
            }
            if state.copied < state.round.count {
                var end = state.copied, rows = 0
                while end < state.round.count && end - state.copied < sliceDevices {
                    state.split(through: end)
                    // One device at least, then as many as `sliceRows` holds.
                    guard end == state.copied || rows + state.round[end].fixes.count <= sliceRows else { break }
                    rows += state.round[end].fixes.count
                    end += 1
                }
                let slice = state.round[state.copied..<end]
                // In the key order of `slots` (a round's fixes are mostly of one slot; those of
                // older slots came late, or were held back by a crash).
                let copies = slice.flatMap { id, fixes in fixes.map { (id: id, fix: $0) } }.sorted {
                    (Self.slot($0.fix.fixTime), $0.id, $0.fix.fixTime, $0.fix.payloadHash) < (Self.slot($1.fix.fixTime), $1.id, $1.fix.fixTime, $1.fix.payloadHash)
                }
                try write(synced: false) { db in
                    try SQLiteFixRows(db, into: "slots", leading: "slot", conflict: "ON CONFLICT DO NOTHING").insert(copies) { Self.slot($0.fixTime) }
                    let latest = try Self.advanceLatest(db)
                    for (id, fixes) in slice {
                        // The first of the latest fixes, as a commit keeps the first of equal times.
                        if let last = fixes.min(by: { $0.fixTime > $1.fixTime }) { try latest.run(last, id: id) }
                    }
                }
                state.copied = end
                // Once per device and hour (a Set insert for each fix was ~199,000 a round at
                // 19,900 devices).
                for (id, fixes) in slice {
                    var noted: Int64?
                    for fix in fixes {
                        let hour = Self.hour(fix.fixTime)
                        if hour != noted { state.noteSlot(hour: hour, device: id) }
                        noted = hour
                    }
                }
                return rows
            }
            // The round copied: deleted from `recent` in pieces of whole batches, from the least
            // on, each of ~`sliceRows` rows (one batch at least), the last ending at the round's last.
            let boundary = state.boundary, lastBatch = state.roundLastBatch, from = state.deletedBelow
            let piece = "SELECT batch FROM recent WHERE batch >= ? AND batch <= ? AND fix_time < ? LIMIT 1 OFFSET ?"
            let (deleted, below) = try write(synced: false) { db -> (Int, Int64?) in
                guard let first = try Int64.fetchOne(db, sql: piece, arguments: [from, lastBatch, boundary, 0]) else { return (0, nil) }
                // The batch after the piece: that of its row `sliceRows`, or the next; nil: the round's rest.
                let below = try Int64.fetchOne(db, sql: piece, arguments: [first, lastBatch, boundary, sliceRows]).map { max($0, first + 1) }
                let end = below ?? lastBatch + 1
                try db.execute(sql: "DELETE FROM recent WHERE batch >= ? AND batch < ? AND fix_time < ?", arguments: [first, end, boundary])
                let deleted = db.changesCount
                // The piece's spans: gone with their batches, else those of the fixes left (later than the round's).
                try db.execute(sql: """
                    DELETE FROM recent_batches WHERE batch >= ? AND batch < ? AND NOT EXISTS (SELECT 1 FROM recent r WHERE r.batch = recent_batches.batch)
                    """, arguments: [first, end])
                try db.execute(sql: """
                    UPDATE recent_batches SET oldest = (SELECT min(fix_time) FROM recent r WHERE r.batch = recent_batches.batch)
                    WHERE batch >= ? AND batch < ? AND oldest < ?
                    """, arguments: [first, end, boundary])
                return (deleted, below)
            }
            if let below {
                state.deletedBelow = below
            } else {
                state.end()
            }
            return max(deleted, 1)
        }
    }

    public func devices() throws -> [DeviceSettings] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT name, osmand_speed_unit FROM devices ORDER BY name").map {
                DeviceSettings(name: $0["name"], osmAndSpeedUnit: OsmAndSpeedUnit(rawValue: $0["osmand_speed_unit"]) ?? .metersPerSecond)
            }
        }
    }

    public func register(_ devices: [DeviceSettings]) throws {
        try write { db in
            for d in devices {
                try db.execute(sql: """
                    INSERT INTO devices (name, osmand_speed_unit) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET osmand_speed_unit = excluded.osmand_speed_unit
                    """, arguments: [d.name, d.osmAndSpeedUnit.rawValue])
            }
        }
        let known = try pool.read { db in try Row.fetchAll(db, sql: "SELECT id, name FROM devices") }
        ids.withLock { map in for row in known { map[row["name"]] = row["id"] } }
    }

    /// The fixes of one device (`?1`, its id) with `?2 <= fix_time < ?3`, over the three
    /// tables, one statement a table: a fix already copied to the next table (a round or merge
    /// under way) counted once. Each is read one seek of its key to the device's range at a
    /// time: hour by hour in `positions` and slot by slot in `slots` (in fix time order, then),
    /// over the hours (slots) both in the range and in the table; in `recent` batch by batch, of
    /// the batches whose span of fix times (`recent_batches`, written with the batch and
    /// narrowed as moves delete from it) meets the range: a scan reads every device's rows, and
    /// a walk of every batch (~3,000 under 19,800 devices) took ~4 ms a page even for a range
    /// long moved out of `recent`, as a day's history is.
    static let deviceFixes = [
        """
        WITH RECURSIVE hours(n) AS (
            SELECT max(?2 / \(hourSpan), (SELECT min(hour) FROM positions))
            UNION ALL SELECT n + 1 FROM hours WHERE n < min((?3 - 1) / \(hourSpan), (SELECT max(hour) FROM positions)))
        SELECT p.device_id, p.fix_time, p.payload_hash, p.latitude, p.longitude, p.altitude, p.accuracy, p.speed, p.course, p.received_at, p.source
        FROM hours CROSS JOIN positions p ON p.hour = hours.n AND p.device_id = ?1 AND p.fix_time >= ?2 AND p.fix_time < ?3
        """,
        """
        WITH RECURSIVE tens(n) AS (
            SELECT max(?2 / \(slotSpan), (SELECT min(slot) FROM slots))
            UNION ALL SELECT n + 1 FROM tens WHERE n < min((?3 - 1) / \(slotSpan), (SELECT max(slot) FROM slots)))
        SELECT s.device_id, s.fix_time, s.payload_hash, s.latitude, s.longitude, s.altitude, s.accuracy, s.speed, s.course, s.received_at, s.source
        FROM tens CROSS JOIN slots s ON s.slot = tens.n AND s.device_id = ?1 AND s.fix_time >= ?2 AND s.fix_time < ?3
        WHERE NOT EXISTS (SELECT 1 FROM positions c
            WHERE c.hour = s.fix_time / \(hourSpan) AND c.device_id = s.device_id AND c.fix_time = s.fix_time AND c.payload_hash = s.payload_hash)
        """,
        """
        SELECT r.device_id, r.fix_time, r.payload_hash, r.latitude, r.longitude, r.altitude, r.accuracy, r.speed, r.course, r.received_at, r.source
        FROM recent_batches b CROSS JOIN recent r ON r.batch = b.batch AND r.device_id = ?1 AND r.fix_time >= ?2 AND r.fix_time < ?3
        WHERE b.oldest < ?3 AND b.newest >= ?2 AND NOT EXISTS (SELECT 1 FROM slots c
            WHERE c.slot = r.fix_time / \(slotSpan) AND c.device_id = r.device_id AND c.fix_time = r.fix_time AND c.payload_hash = r.payload_hash)
        """,
    ]

    public func positions(device: String, from: Int64, to: Int64, limit: Int) throws -> [StoredFix] {
        try pool.read { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM devices WHERE name = ?", arguments: [device]) else { return [] }
            // Each table's fixes in fix time order, then merged: an ORDER BY over their union
            // sorted a day's 86,400 rows through a temporary B-tree, 60 of the 86 ms the query
            // took (python3 sqlite3, one device's day in `positions`). `positions` and `slots` come in that
            // order along their keys (checked, not assumed: sorted when they do not).
            func fetch(_ part: Int, limit: Int) throws -> [StoredFix] {
                var rows = try SQLiteFixCursor(db, sql: Self.deviceFixes[part], arguments: [id, from, to])
                var fixes: [StoredFix] = []
                while fixes.count < limit, let (_, fix) = try rows.next(name: { _ in device }) { fixes.append(fix) }
                return fixes
            }
            // The first `limit` of `positions` and `slots`; all of `recent`, read in commit order.
            var parts = try Self.deviceFixes.indices.map { try fetch($0, limit: $0 < 2 ? limit : .max) }
            for k in parts.indices where !zip(parts[k], parts[k].dropFirst()).allSatisfy({ $0.fixTime <= $1.fixTime }) {
                if k < 2 && parts[k].count == limit { parts[k] = try fetch(k, limit: .max) }
                parts[k].sort { $0.fixTime < $1.fixTime }
            }
            var merged: [StoredFix] = [], next = parts.map { _ in 0 }
            merged.reserveCapacity(min(limit, parts.map(\.count).reduce(0, +)))
            while merged.count < limit {
                var least: Int?
                for k in parts.indices where next[k] < parts[k].count {
                    if least.map({ parts[k][next[k]].fixTime < parts[$0][next[$0]].fixTime }) ?? true { least = k }
                }
                guard let k = least else { break }
                merged.append(parts[k][next[k]])
                next[k] += 1
            }
            return merged
        }
    }

    /// `positions` read device by device (one seek an hour each), `slots` over the range's
    /// slots and `recent` in one scan, a fix found in two tables (a round or merge under way)
    /// counted once: `positions(device:…)` walks the batches of `recent` meeting the range for
    /// each device, and `geo loadgen verify` of 19,900 devices took 106 s that way.
    public func fixTimes(of devices: [String], from: Int64, to: Int64) throws -> [String: [Int64]] {
        try pool.read { db in
            let wanted = Set(devices)
            var names: [Int64: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, name FROM devices") where wanted.contains(row["name"]) { names[row["id"]] = row["name"] }
            var seen = Set<FixKey>(), times: [String: [Int64]] = [:]
            /// Counts the rows of `cursor` (device id, fix time, payload hash) not seen before.
            func count(_ cursor: RowCursor) throws {
                while let row = try cursor.next() {
                    guard let name = names[row[0]], seen.insert(FixKey(id: row[0], fixTime: row[1], payloadHash: row[2])).inserted else { continue }
                    times[name, default: []].append(row[1])
                }
            }
            let hours = try Row.fetchOne(db, sql: "SELECT min(hour), max(hour) FROM positions")!
            if let least: Int64 = hours[0], let most: Int64 = hours[1] {
                let first = max(least, from / Self.hourSpan), last = min(most, (to - 1) / Self.hourSpan)
                let statement = try db.makeStatement(sql: """
                    SELECT device_id, fix_time, payload_hash FROM positions WHERE hour = ? AND device_id = ? AND fix_time >= ? AND fix_time < ?
                    """)
                for id in names.keys where first <= last {
                    for hour in first...last { try count(Row.fetchCursor(statement, arguments: [hour, id, from, to])) }
                }
            }
            try count(Row.fetchCursor(db, sql: """
                SELECT device_id, fix_time, payload_hash FROM slots WHERE slot >= ?1 / \(Self.slotSpan) AND slot <= (?2 - 1) / \(Self.slotSpan)
                AND fix_time >= ?1 AND fix_time < ?2
                """, arguments: [from, to]))
            try count(Row.fetchCursor(db, sql: "SELECT device_id, fix_time, payload_hash FROM recent WHERE fix_time >= ? AND fix_time < ?", arguments: [from, to]))
            return times
        }
    }

    /// The latest fix of every device (nil) or of one, from `latest` and `recent`: the fix of
    /// greatest time (SQLite takes the other columns of an aggregate query with one `max()` from
    /// the row holding the maximum, sqlite.org/lang_select.html#bareagg).
    /// Read through `SQLiteFixCursor`, each device's name from `devices` (a device without one is
    /// left out, as a join would).
    static func latest(_ db: Database, device: String?) throws -> [StoredFix] {
        var names: [Int64: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, name FROM devices WHERE ?1 IS NULL OR name = ?1", arguments: [device]) {
            names[row[0]] = row[1]
        }
        var rows = try SQLiteFixCursor(db, sql: """
            SELECT p.device_id, max(p.fix_time), p.payload_hash, p.latitude, p.longitude, p.altitude, p.accuracy, p.speed, p.course, p.received_at, p.source
            FROM (SELECT \(tableColumns) FROM latest UNION ALL SELECT \(tableColumns) FROM recent) p
            WHERE p.device_id IN (SELECT id FROM devices WHERE ?1 IS NULL OR name = ?1) GROUP BY p.device_id
            """, arguments: [device])
        var fixes: [StoredFix] = []
        while let (_, fix) = try rows.next(name: { names[$0] }) { fixes.append(fix) }
        return fixes
    }

    /// A device's latest fix (greatest fix time), without waiting: `latest(devices:)`'s.
    public func latest(device: String) throws -> StoredFix? {
        try latest(devices: [device]).first
    }

    public func latest(devices: [String]) throws -> [StoredFix] {
        if readOnly { return try pool.read { db in try devices.sorted().flatMap { try Self.latest(db, device: $0) } } }
        return latestFixes.withLock { latest in devices.sorted().compactMap { latest[$0] } }
    }

    public func latest(in box: BoundingBox) throws -> [StoredFix] {
        let all = readOnly ? try pool.read { db in try Self.latest(db, device: nil) } : latestFixes.withLock { Array($0.values) }
        return all.filter { fix in
            let east = fix.longitude >= box.west, west = fix.longitude <= box.east
            return fix.latitude >= box.south && fix.latitude <= box.north && (box.crossesAntimeridian ? east || west : east && west)
        }.sorted { $0.device < $1.device }
    }

    public func count(device: String, fixTime: Int64) throws -> Int {
        try pool.read { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM devices WHERE name = ?", arguments: [device]) else { return 0 }
            return try Self.deviceFixes.reduce(0) { sum, sql in
                sum + (try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(sql))", arguments: [id, fixTime, fixTime + 1]) ?? 0)
            }
        }
    }

    public func add(events: [FenceEvent]) throws -> [FenceEvent] {
        guard !events.isEmpty else { return [] }
        return try write { db in
            // The latest stored event of each device and fence, in the transaction that adds
            // what follows it (`FenceEvent.accepted(_:after:)`).
            let latestOfFence = try db.cachedStatement(sql: """
                SELECT device, fence, kind, time, latitude, longitude FROM events WHERE device = ? AND fence = ?
                ORDER BY time DESC, \(FenceEvent.Kind.rankSQL("kind")) DESC LIMIT 1
                """)
            var latest: [[String]: FenceEvent] = [:]
            for pair in Set(events.map { [$0.device, $0.fence] }) {
                latest[pair] = try Row.fetchOne(latestOfFence, arguments: [pair[0], pair[1]]).flatMap(Self.event)
            }
            let insert = try db.cachedStatement(sql: """
                INSERT INTO events (device, fence, kind, time, latitude, longitude) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """)
            var added: Set<FenceEvent> = []
            for e in FenceEvent.accepted(events, after: latest) {
                try insert.execute(arguments: [e.device, e.fence, e.kind.rawValue, e.time, e.latitude, e.longitude])
                if db.changesCount > 0 { added.insert(e) }
            }
            return events.filter(added.contains)
        }
    }

    static func event(_ row: Row) -> FenceEvent? {
        guard let kind = FenceEvent.Kind(rawValue: row[2]) else { return nil }
        return FenceEvent(device: row[0], fence: row[1], kind: kind, time: row[3], latitude: row[4], longitude: row[5])
    }

    public func events(device: String?, from: Int64, to: Int64, limit: Int) throws -> [FenceEvent] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT device, fence, kind, time, latitude, longitude FROM events
                WHERE (?1 IS NULL OR device = ?1) AND time >= ?2 AND time < ?3
                ORDER BY time, \(FenceEvent.Kind.rankSQL("kind")), fence, device LIMIT ?4
                """, arguments: [device, from, to, limit]).compactMap(Self.event)
        }
    }

    public func latestEvents(devices: [String]) throws -> [FenceEvent] {
        try pool.read { db in
            // One indexed statement per device in one read transaction (no round trips here):
            // of each fence the events at its latest time, of those the last kind (`rankSQL`).
            let statement = try db.cachedStatement(sql: """
                SELECT device, fence, kind, time, latitude, longitude FROM events e
                WHERE device = ?1 AND time = (SELECT max(time) FROM events WHERE device = ?1 AND fence = e.fence)
                AND NOT EXISTS (SELECT 1 FROM events l WHERE l.device = ?1 AND l.fence = e.fence AND l.time = e.time
                                AND \(FenceEvent.Kind.rankSQL("l.kind")) > \(FenceEvent.Kind.rankSQL("e.kind")))
                """)
            return try devices.flatMap { device in
                try Row.fetchAll(statement, arguments: [device]).compactMap(Self.event).sorted(by: FenceEvent.ordered)
            }
        }
    }

    /// Deletes the fixes before `day` from the three tables (`positions` and `slots` each one
    /// range of its key; `recent` in one scan), in one transaction: commits and moves wait for it.
    public func removeDays(before day: Int64) throws {
        let cut = day * FixDay.milliseconds
        try moves.withLock { state in
            try write { db in
                try db.execute(sql: "DELETE FROM positions WHERE hour < ?", arguments: [Self.hour(cut)])
                try db.execute(sql: "DELETE FROM slots WHERE slot < ?", arguments: [Self.slot(cut)])
                try db.execute(sql: "DELETE FROM recent WHERE fix_time < ?", arguments: [cut])
                try db.execute(sql: "DELETE FROM recent_batches WHERE newest < ?", arguments: [cut])
                try db.execute(sql: "UPDATE recent_batches SET oldest = ? WHERE oldest < ?", arguments: [cut, cut])
            }
            state.remove(before: cut)
        }
    }
}

/// A second writable `SQLitePositionStore` on a file another one (in this process or another)
/// still writes.
public struct SQLiteStoreInUse: Error, CustomStringConvertible {
    /// The database file.
    public var path: String
    /// The process id the holder wrote into `PATH-lock`, when it could be read.
    public var holder: Int32?
    public var description: String {
        "\(path) is written by another tracking server" + (holder.map { " (process \($0); its lock: \(path)-lock)" } ?? " (its lock: \(path)-lock)")
    }
}

/// A write to a `SQLitePositionStore` after its `stopWriting()`.
public struct SQLiteStoreStopped: Error, CustomStringConvertible {
    /// The database file.
    public var path: String
    public var description: String { "\(path): this store stopped writing (a server stopping)" }
}
