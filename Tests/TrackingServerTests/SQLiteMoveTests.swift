import Foundation
import GeoCore
import GeoTestSupport
import GRDB
import Synchronization
import Testing
@testable import TrackingServer

/// `SQLitePositionStore`'s three tables: fixes appended to `recent`, moved by `settle` a 10 s
/// slot a round into `slots`, whose hours it merges into `positions`; every read sees all three,
/// counting each fix once.
@Suite struct SQLiteMoveTests {
    /// The start of the current 10 s slot, so that the fixes of a test's 10 s fall in one slot.
    /// The suite's "now", ms, taken at its first use.
    static let now = Int64(Date().timeIntervalSince1970) / 10 * 10_000

    /// Devices a–d, five fixes each, a second apart, 50 s old.
    static var fourDevicesFiveFixes: [StoredFix] {
        ["a", "b", "c", "d"].flatMap { d in (1...5).map { fix(d, now - 50_000 + Int64($0) * 1000) } }
    }

    static func fix(_ device: String, _ time: Int64, latitude: Double = 52.5) -> StoredFix {
        StoredFix(device: device, fixTime: time, payloadHash: time &* 31 &+ Int64(device.utf8.count), latitude: latitude, longitude: 13.4,
                  speed: 3, receivedAt: now, source: "osmand")
    }

    /// Rows of each table, by raw SQL.
    static func rows(_ store: SQLitePositionStore, _ table: String) throws -> Int {
        try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1 }
    }

    /// Rows moved out of `recent`: in `slots` or `positions`.
    static func moved(_ store: SQLitePositionStore) throws -> Int {
        try rows(store, "slots") + rows(store, "positions")
    }

    /// Whether `recent_batches` holds a span for each batch in `recent` and no other, each
    /// span covering its batch's fix times (reads skip the batches whose span misses a range).
    static func spansCoverRecent(_ store: SQLitePositionStore) throws -> Bool {
        try store.pool.read { db in
            let held = try Row.fetchAll(db, sql: "SELECT batch, min(fix_time), max(fix_time) FROM recent GROUP BY batch")
            let spans = try Row.fetchAll(db, sql: "SELECT batch, oldest, newest FROM recent_batches")
            let byBatch = Dictionary(uniqueKeysWithValues: spans.map { ($0[0] as Int64, ($0[1] as Int64, $0[2] as Int64)) })
            return held.count == spans.count && held.allSatisfy { row in
                byBatch[row[0]].map { $0.0 <= row[1] && $0.1 >= row[2] } ?? false
            }
        }
    }

    /// Settles until the store has nothing left to move; the number of turns.
    @discardableResult static func settleAll(_ store: SQLitePositionStore) throws -> Int {
        var turns = 0
        while try store.settle() > 0 { turns += 1 }
        return turns
    }

    /// The writing connection syncs the WAL at every commit (`synchronous = FULL`, 2), so a
    /// commit the server acknowledged survives a power cut; GRDB's pool would leave it NORMAL (1).
    /// The moves' transactions alone are not synced (NORMAL), and a commit after them is again.
    @Test func writer_syncsEveryCommit_notTheMoves() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path, moveAfter: .zero)
            func synchronous(synced: Bool = true) throws -> Int? {
                try store.write(synced: synced) { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            }
            let mode = try store.write { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(try mode == "wal" && synchronous() == 2)
            #expect(try synchronous(synced: false) == 1 && synchronous() == 2)
            #expect(try store.commit(Self.fourDevicesFiveFixes) == 20)
            #expect(try store.settle() > 0)
            #expect(store.writer.withLock { $0.synced } == false, "a move was synced")
            try Self.settleAll(store)
            #expect(try Self.moved(store) == 20)
            #expect(try store.commit([Self.fix("e", Self.now - 1000)]) == 1)
            #expect(store.writer.withLock { $0.synced })
            #expect(try synchronous() == 2)
        }
    }

    @Test func retryAfterTheMove_isNotDuplicated() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path, moveAfter: .zero, mergeAfter: .seconds(7200),
                                                sliceDevices: 1)
            let rows = ["a", "b", "c"].flatMap { d in (0..<10).map { Self.fix(d, Self.now - 100_000 + Int64($0) * 1000) } }
            #expect(try store.commit(rows) == 30)
            #expect(try Self.rows(store, "recent") == 30 && Self.moved(store) == 0)
            // Slices of one device: three copies (the first begins the round), then the delete.
            #expect(try Self.settleAll(store) == 4)
            #expect(try Self.rows(store, "recent") == 0 && Self.moved(store) == 30)
            // The generator's retry of every fix, after the move: none new, none stored twice.
            #expect(try store.commit(rows) == 0)
            #expect(try store.commit(Array(rows.prefix(5)) + [Self.fix("a", Self.now - 200_000)]) == 1)
            try Self.settleAll(store)
            #expect(try Self.rows(store, "recent") + Self.moved(store) == 31)
            for row in rows { #expect(try store.count(device: row.device, fixTime: row.fixTime) == 1) }
            #expect(try store.positions(device: "a", from: 0, to: .max, limit: 100).count == 11)
        }
    }

    @Test func history_acrossBothTables_isCompleteAndOrdered() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path, moveAfter: .seconds(3600), sliceDevices: 1)
            // Two hours of one fix a minute, committed out of order in three batches, with a second
            // device between them: the first hour is moved, the second stays in `recent`.
            let times = (0..<120).map { Self.now - 7_200_000 + Int64($0) * 60_000 + 1 }
            var shuffled = times
            var generator = SystemRandomNumberGenerator()
            shuffled.shuffle(using: &generator)
            for part in 0..<3 {
                let slice = shuffled[(part * 40)..<(part * 40 + 40)]
                #expect(try store.commit(slice.map { Self.fix("car", $0) } + slice.map { Self.fix("van", $0 + 7) }) == 80)
            }
            try Self.settleAll(store)
            let recent = try Self.rows(store, "recent"), moved = try Self.moved(store)
            #expect(recent > 0 && moved > 0 && recent + moved == 240)
            #expect(try Self.spansCoverRecent(store))
            let history = try store.positions(device: "car", from: 0, to: .max, limit: 1000)
            #expect(history.map(\.fixTime) == times)
            #expect(history.allSatisfy { $0.device == "car" })
            // A range across the tables' boundary, and the limit.
            let middle = try store.positions(device: "car", from: times[50], to: times[70], limit: 1000)
            #expect(middle.map(\.fixTime) == Array(times[50..<70]))
            #expect(try store.positions(device: "car", from: times[55], to: .max, limit: 10).map(\.fixTime) == Array(times[55..<65]))
            #expect(try store.positions(device: "nobody", from: 0, to: .max, limit: 10).isEmpty)
        }
    }

    @Test func lateFix_doesNotMoveLatestBack_beforeOrAfterTheMove_norAfterReopening() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let newest = Self.fix("car", Self.now - 30_000, latitude: 1)
            do {
                let store = try SQLitePositionStore(path: path, moveAfter: .zero)
                #expect(try store.commit([newest, Self.fix("car", Self.now - 90_000, latitude: 2)]) == 2)
                #expect(try store.latest(device: "car") == newest)
                try Self.settleAll(store)
                #expect(try Self.rows(store, "recent") == 0)
                // Late: below the moved boundary, straight to `slots`.
                #expect(try store.commit([Self.fix("car", Self.now - 60_000, latitude: 3), Self.fix("bus", Self.now - 70_000, latitude: 4)]) == 2)
                #expect(try Self.rows(store, "recent") == 0)
                #expect(try store.latest(device: "car") == newest)
                #expect(try store.latest(device: "bus")?.latitude == 4)
                #expect(try store.latest(in: BoundingBox(south: 0, west: 13, north: 2, east: 14)) == [newest])
            }
            let reopened = try SQLitePositionStore(path: path)
            #expect(try reopened.latest(device: "car") == newest)
            #expect(try reopened.latest(device: "bus")?.latitude == 4)
            let readOnly = try SQLitePositionStore(path: path, readOnly: true)
            #expect(try readOnly.latest(device: "car") == newest)
            #expect(try reopened.positions(device: "car", from: 0, to: .max, limit: 10).map(\.latitude) == [2, 3, 1])
        }
    }

    /// The writer reads `latest` and `recent` at open (`SQLiteFixCursor`): each device's newest
    /// fix, whichever table holds it, every field as committed (absent ones absent, each source
    /// its own), and the same as a read-only store's query answers.
    @Test func reopened_latestOfEachDevice_isItsNewestFix_inEitherTable_everyField() throws {
        // Its own "now": a fix 5 s before it must stay in `recent` under a 60 s move.
        let now = Int64(Date().timeIntervalSince1970) / 10 * 10_000
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            var moved = Self.fix("a", now - 90_000, latitude: 1)
            moved.altitude = 35.5
            var newer = Self.fix("a", now - 5_000, latitude: 2)
            newer.source = "overland"
            newer.speed = nil
            var onlyMoved = Self.fix("b", now - 80_000, latitude: 3)
            onlyMoved.accuracy = 4.25
            onlyMoved.course = 271
            let onlyRecent = Self.fix("c", now - 4_000, latitude: 4)
            do {
                let store = try SQLitePositionStore(path: path, moveAfter: .seconds(60))
                #expect(try store.commit([moved, onlyMoved]) == 2)
                try Self.settleAll(store)
                #expect(try Self.rows(store, "recent") == 0 && Self.rows(store, "latest") == 2)
                // Newer than a's in `latest`, older than nothing: left in `recent` (a minute not over).
                #expect(try store.commit([newer, onlyRecent, Self.fix("c", now - 6_000, latitude: 5)]) == 3)
                #expect(try Self.rows(store, "recent") == 3)
            }
            let reopened = try SQLitePositionStore(path: path, moveAfter: .seconds(60))
            #expect(try reopened.latest(device: "a") == newer)
            #expect(try reopened.latest(device: "b") == onlyMoved)
            #expect(try reopened.latest(device: "c") == onlyRecent)
            #expect(try reopened.latest(in: BoundingBox(south: -90, west: -180, north: 90, east: 180)) == [newer, onlyMoved, onlyRecent])
            let readOnly = try SQLitePositionStore(path: path, readOnly: true)
            #expect(try readOnly.latest(devices: ["a", "b", "c"]) == [newer, onlyMoved, onlyRecent])
            // What it read of `recent` is held: retries are stored nowhere again.
            #expect(try reopened.commit([newer, onlyRecent]) == 0)
        }
    }

    @Test func reopenedAfterAnInterruptedMove_answersEveryFixOnce_thenFinishesIt() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let rows = Self.fourDevicesFiveFixes
            do {
                let store = try SQLitePositionStore(path: path, moveAfter: .seconds(3600))
                #expect(try store.commit(rows) == 20)
                // A crash between a round's copy of devices a and b and its delete: rows in both tables.
                try store.pool.write { db in
                    try db.execute(sql: """
                        INSERT INTO slots SELECT fix_time / 10000, \(SQLitePositionStore.tableColumns) FROM recent
                        WHERE device_id IN (SELECT id FROM devices WHERE name IN ('a', 'b'))
                        """)
                    try db.execute(sql: "INSERT INTO moves (boundary) VALUES (?)", arguments: [Self.now])
                }
                #expect(try Self.moved(store) == 10 && Self.rows(store, "recent") == 20)
            }
            let store = try SQLitePositionStore(path: path, moveAfter: .seconds(3600))
            func answersEachOnce() throws {
                for row in rows { #expect(try store.count(device: row.device, fixTime: row.fixTime) == 1) }
                for d in ["a", "b", "c", "d"] {
                    #expect(try store.positions(device: d, from: 0, to: .max, limit: 100).map(\.fixTime) == rows.filter { $0.device == d }.map(\.fixTime))
                }
            }
            try answersEachOnce()
            // The bulk read (`geo loadgen verify`'s) answers each fix once too, as the device reads do.
            let times = try store.fixTimes(of: ["a", "b", "c", "ghost"], from: 0, to: .max)
            #expect(Set(times.keys) == ["a", "b", "c"])
            for d in ["a", "b", "c"] { #expect(times[d]?.sorted() == rows.filter { $0.device == d }.map(\.fixTime)) }
            #expect(try store.fixTimes(of: ["a"], from: rows[1].fixTime, to: rows[3].fixTime)["a"]?.sorted() == [rows[1].fixTime, rows[2].fixTime])
            // A retry of a copied fix while the round is under way: stored nowhere again.
            #expect(try store.commit([rows[0], rows[19]]) == 0)
            // The reopened store finishes the round (its boundary, not its own hour's cut).
            try Self.settleAll(store)
            #expect(try Self.moved(store) == 20 && Self.rows(store, "recent") == 0)
            try answersEachOnce()
            #expect(try store.latest(device: "d") == rows[19])
        }
    }

    @Test func reopenedAfterACrashBetweenAppendAndMove_answersEveryFixOnce_andSkipsRetries() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let rows = Self.fourDevicesFiveFixes
            do {
                let store = try SQLitePositionStore(path: path, moveAfter: .seconds(3600))
                // A fix twice in one batch and again in the next: stored once.
                #expect(try store.commit(Array(rows[..<10]) + [rows[3]]) == 10)
                #expect(try store.commit(Array(rows[8...])) == 10)
                #expect(try Self.rows(store, "recent") == 20 && Self.moved(store) == 0)
                // Killed here: appended, durable, nothing moved.
            }
            let store = try SQLitePositionStore(path: path, moveAfter: .zero)
            func answersEachOnce() throws {
                for row in rows { #expect(try store.count(device: row.device, fixTime: row.fixTime) == 1) }
                for d in ["a", "b", "c", "d"] {
                    #expect(try store.positions(device: d, from: 0, to: .max, limit: 100).map(\.fixTime) == rows.filter { $0.device == d }.map(\.fixTime))
                }
            }
            try answersEachOnce()
            // The generator's retries, held in memory from `recent` at open: none stored again.
            #expect(try store.commit(rows) == 0)
            // A new fix goes to a batch after those of the last run.
            let batches = { try store.pool.read { db in try Int64.fetchAll(db, sql: "SELECT DISTINCT batch FROM recent ORDER BY batch") } }
            let before = try batches()
            #expect(before.count == 2)
            #expect(try store.commit([Self.fix("e", Self.now - 1000)]) == 1)
            #expect(try batches().last! > before.last!)
            try Self.settleAll(store)
            #expect(try Self.rows(store, "recent") == 0 && Self.moved(store) == 21)
            try answersEachOnce()
            // Retried after the move: below the boundary, `slots` refuses them.
            #expect(try store.commit(rows + [Self.fix("e", Self.now - 1000)]) == 0)
            #expect(try Self.moved(store) == 21)
        }
    }

    @Test func recentOfTheLayoutKeyedByFixTime_isCarriedOverAtOpen() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let old = Self.fix("car", Self.now - 5000)
            do {
                let queue = try DatabaseQueue(path: path)
                try queue.write { db in
                    try db.execute(sql: """
                        CREATE TABLE devices (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, osmand_speed_unit TEXT NOT NULL DEFAULT 'mps');
                        INSERT INTO devices (id, name) VALUES (7, 'car');
                        CREATE TABLE recent (device_id INTEGER NOT NULL, fix_time INTEGER NOT NULL, payload_hash INTEGER NOT NULL,
                            latitude REAL NOT NULL, longitude REAL NOT NULL, altitude REAL, accuracy REAL, speed REAL, course REAL,
                            received_at INTEGER NOT NULL, source TEXT NOT NULL, PRIMARY KEY (fix_time, device_id, payload_hash)) WITHOUT ROWID;
                        """)
                    try db.execute(sql: "INSERT INTO recent VALUES (7, ?, ?, ?, 13.4, NULL, NULL, 3, NULL, ?, 'osmand')",
                                   arguments: [old.fixTime, old.payloadHash, old.latitude, old.receivedAt])
                }
            }
            let store = try SQLitePositionStore(path: path, moveAfter: .zero)
            #expect(try store.positions(device: "car", from: 0, to: .max, limit: 10) == [old])
            #expect(try store.latest(device: "car") == old)
            #expect(try store.commit([old]) == 0)
            try Self.settleAll(store)
            #expect(try Self.rows(store, "recent") == 0 && Self.moved(store) == 1)
        }
    }

    /// One batch holding a retry of a fix in each place the store keeps it (waiting in
    /// `recent`, in a round already copied, in a round not yet copied, in `slots`), late and
    /// out-of-order fixes never stored, and equal keys twice: only the new are stored, each once,
    /// and the latest position never moves back.
    @Test func batchOfRetriesFromEveryPlace_storesOnlyTheNew_eachOnce() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path, moveAfter: .zero, mergeAfter: .seconds(7200),
                                                sliceDevices: 1)
            let past = ["a", "b"].flatMap { d in (1...4).map { Self.fix(d, Self.now - 100_000 + Int64($0) * 1000) } }
            #expect(try store.commit(past) == 8)
            // A round of a and b begins (its boundary: now), a is copied, b not yet.
            #expect(try store.settle() == 4)
            #expect(try Self.moved(store) == 4 && Self.rows(store, "recent") == 8)
            // Below the boundary: straight to `slots`.
            let moved = Self.fix("m", Self.now - 200_000)
            #expect(try store.commit([moved]) == 1)
            // Waiting fixes of c after the boundary, in time order, one left out.
            let later = (1...5).map { Self.fix("c", Self.now + 60_000 + Int64($0) * 1000) }
            #expect(try store.commit([later[0], later[1], later[3], later[4]]) == 4)
            let late = Self.fix("a", Self.now - 150_000), outOfOrder = later[2], newest = Self.fix("c", later[4].fixTime + 1000)
            let batch = [past[0], past[4], moved, later[1], later[4], late, outOfOrder, outOfOrder, late, newest]
            #expect(try store.commit(batch) == 3)
            #expect(try store.commit(batch) == 0)
            try Self.settleAll(store)
            // c's fixes stay in `recent` (after the boundary); the rest are in `slots`.
            #expect(try Self.rows(store, "recent") == 6 && Self.moved(store) == 8 + 1 + 1)
            for fix in past + later + [late, moved, newest] {
                #expect(try store.count(device: fix.device, fixTime: fix.fixTime) == 1, "\(fix.device) at \(fix.fixTime)")
            }
            #expect(try store.positions(device: "c", from: 0, to: .max, limit: 10).map(\.fixTime) == (later + [newest]).map(\.fixTime))
            #expect(try store.latest(device: "c") == newest)
            #expect(try store.latest(device: "a") == past[3])
        }
    }

    /// A round's beginning takes no device's fixes out of `waiting`; each copy takes those of
    /// the devices it copies (the writer, which every request waits for, is held O(devices) at
    /// the beginning, not O(fixes)), and a retry of a device not yet reached is still skipped.
    @Test func roundSplitsDevicesAsItCopiesThem() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path, moveAfter: .zero, mergeAfter: .seconds(7200),
                                                sliceDevices: 1)
            let past = ["a", "b", "c"].flatMap { d in (1...3).map { Self.fix(d, Self.now - 100_000 + Int64($0) * 1000) } }
            #expect(try store.commit(past) == 9)
            #expect(try store.settle() == 3)
            let (split, waitingDevices, roundFixes) = store.moves.withLock { ($0.split, $0.waiting.count, $0.round.map(\.fixes.count)) }
            #expect(split == 1 && waitingDevices == 2 && roundFixes == [3, 0, 0])
            #expect(try store.commit([past[8], past[0]]) == 0)
            try Self.settleAll(store)
            #expect(try Self.moved(store) == 9 && Self.rows(store, "recent") == 0)
            #expect(store.moves.withLock { $0.round.isEmpty && $0.waiting.isEmpty && $0.oldestWaiting == .max })
        }
    }

    /// Every column of a fix comes back as committed, NULL altitude, accuracy, speed and
    /// course included, from `recent`, from `slots` after the move and from `latest` after
    /// reopening; NULLs are stored as SQL NULL, not as 0.
    @Test func columns_roundTrip_withAndWithoutOptionalMeasurements() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let bare = StoredFix(device: "bare", fixTime: Self.now - 90_000, payloadHash: -7, latitude: -33.868_820_123_456_7,
                                 longitude: 151.209_295_987_654_3, receivedAt: Self.now - 1, source: "gpslogger")
            let full = StoredFix(device: "full", fixTime: Self.now - 80_000, payloadHash: .max, latitude: 89.999_999_9, longitude: -179.999_999_9,
                                 altitude: -412.25, accuracy: 0.5, speed: 0, course: 359.875, receivedAt: Self.now, source: "overland")
            let store = try SQLitePositionStore(path: path, moveAfter: .zero)
            #expect(try store.commit([bare, full]) == 2)
            #expect(try store.positions(device: "bare", from: 0, to: .max, limit: 10) == [bare])
            #expect(try store.positions(device: "full", from: 0, to: .max, limit: 10) == [full])
            let nulls = """
                SELECT typeof(altitude) || typeof(accuracy) || typeof(speed) || typeof(course) FROM %@ \
                WHERE device_id = (SELECT id FROM devices WHERE name = 'bare')
                """
            let moved = "(SELECT \(SQLitePositionStore.tableColumns) FROM slots UNION ALL SELECT \(SQLitePositionStore.tableColumns) FROM positions)"
            #expect(try store.pool.read { db in try String.fetchOne(db, sql: nulls.replacingOccurrences(of: "%@", with: "recent")) } == "nullnullnullnull")
            try Self.settleAll(store)
            #expect(try Self.rows(store, "recent") == 0)
            #expect(try store.positions(device: "bare", from: 0, to: .max, limit: 10) == [bare])
            #expect(try store.positions(device: "full", from: 0, to: .max, limit: 10) == [full])
            #expect(try store.pool.read { db in try String.fetchOne(db, sql: nulls.replacingOccurrences(of: "%@", with: moved)) } == "nullnullnullnull")
            #expect(try store.pool.read { db in try String.fetchOne(db, sql: nulls.replacingOccurrences(of: "%@", with: "latest")) } == "nullnullnullnull")
            let reopened = try SQLitePositionStore(path: path, readOnly: true)
            #expect(try reopened.latest(device: "bare") == bare)
            #expect(try reopened.latest(device: "full") == full)
        }
    }

    /// With slices of a few rows, a round is copied one device a transaction (one device's rows
    /// at least, more than the slice) and deleted from `recent` one batch a transaction; every
    /// read in between answers each fix once.
    @Test func roundInSlicesOfRows_copiedAndDeletedInPieces_eachFixAnsweredOnce() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path, moveAfter: .zero, mergeAfter: .seconds(7200), sliceRows: 6)
            // Five commits (batches) of four fixes: two of a, two of b.
            var all: [StoredFix] = []
            for batch in 0..<5 {
                let rows = ["a", "b"].flatMap { d in (0..<2).map { Self.fix(d, Self.now - 100_000 + Int64(batch * 2 + $0) * 1000) } }
                #expect(try store.commit(rows) == 4)
                all += rows
            }
            var turns = 0
            while try store.settle() > 0 {
                turns += 1
                for fix in all { #expect(try store.count(device: fix.device, fixTime: fix.fixTime) == 1, "turn \(turns): \(fix.device) at \(fix.fixTime)") }
                #expect(try Self.spansCoverRecent(store), "turn \(turns)")
            }
            // a (10 rows), b (10 rows), then the five batches one by one (4 rows each, under 6 with the next).
            #expect(turns == 2 + 5)
            #expect(try Self.rows(store, "recent") == 0 && Self.moved(store) == 20)
            #expect(try store.positions(device: "b", from: 0, to: .max, limit: 100).map(\.fixTime) == all.filter { $0.device == "b" }.map(\.fixTime))
        }
    }

    /// A read of `recent` visits only the batches whose span of fix times meets its range: a
    /// round narrows the span of a batch it leaves fixes in, retention too, and a reopened store
    /// makes the spans again from `recent` (so batches an older version appended, with none, are read).
    @Test func recentBatchSpans_narrowedByMovesAndRetention_remadeAtOpen() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let day = FixDay.milliseconds
            // Each batch: a fix of car 100 s old, one a minute ahead, and one of van two days old.
            let batches = (0..<3).map { k in
                [Self.fix("car", Self.now - 100_000 + Int64(k) * 1000), Self.fix("car", Self.now + 60_000 + Int64(k) * 1000),
                 Self.fix("van", Self.now - 2 * day + Int64(k) * 1000)]
            }
            let all = batches.flatMap { $0 }
            func readsEachOnce(_ store: SQLitePositionStore) throws {
                for d in ["car", "van"] {
                    let want = all.filter { $0.device == d }.map(\.fixTime).sorted()
                    #expect(try store.positions(device: d, from: 0, to: .max, limit: 100).map(\.fixTime) == want)
                    // Without the first and last fix.
                    let middle = want[1]...want[want.count - 2]
                    #expect(try store.positions(device: d, from: middle.lowerBound, to: middle.upperBound + 1, limit: 100).map(\.fixTime)
                            == want.filter(middle.contains))
                }
            }
            do {
                let store = try SQLitePositionStore(path: path, moveAfter: .seconds(3 * 86_400))
                for rows in batches { #expect(try store.commit(rows) == 3) }
                #expect(try Self.spansCoverRecent(store) && Self.rows(store, "recent_batches") == 3)
                try readsEachOnce(store)
                // Retention of the days before yesterday: van's fixes go, and with them each span's start.
                try store.removeDays(before: Self.now / day - 1)
                #expect(try Self.rows(store, "recent") == 6 && Self.spansCoverRecent(store))
                let oldest = try store.pool.read { db in try Int64.fetchAll(db, sql: "SELECT oldest FROM recent_batches") }
                #expect(oldest.allSatisfy { $0 >= (Self.now / day - 1) * day })
            }
            // An older version's batches, appended without spans.
            try DatabaseQueue(path: path).write { db in try db.execute(sql: "DELETE FROM recent_batches") }
            let store = try SQLitePositionStore(path: path, moveAfter: .zero)
            let kept = all.filter { $0.device == "car" }
            for fix in kept { #expect(try store.count(device: fix.device, fixTime: fix.fixTime) == 1) }
            #expect(try Self.spansCoverRecent(store) && Self.rows(store, "recent_batches") == 3)
            // The round takes the fixes 100 s old and leaves those ahead: each batch's span now begins with its fix ahead.
            try Self.settleAll(store)
            #expect(try Self.rows(store, "recent") == 3 && Self.spansCoverRecent(store))
            let spans = try store.pool.read { db in try Int64.fetchAll(db, sql: "SELECT oldest FROM recent_batches ORDER BY batch") }
            #expect(spans == kept.map(\.fixTime).filter { $0 > Self.now })
            #expect(try store.positions(device: "car", from: 0, to: .max, limit: 100).map(\.fixTime) == kept.map(\.fixTime).sorted())
            #expect(try store.positions(device: "car", from: Self.now - 100_000, to: Self.now, limit: 100).map(\.fixTime)
                    == kept.map(\.fixTime).filter { $0 < Self.now })
        }
    }

    /// Three devices' fixes over two hours that ended three hours ago, every 20 s, committed in
    /// one batch, keyed by device name.
    static var twoOldHours: [StoredFix] {
        let start = (now / SQLitePositionStore.hourSpan - 5) * SQLitePositionStore.hourSpan
        return ["a", "b", "c"].flatMap { d in stride(from: start, to: start + 2 * SQLitePositionStore.hourSpan, by: 20_000).map { fix(d, $0 + 7) } }
    }

    /// Hours over `mergeAfter` are merged from `slots` into `positions`, device after device,
    /// in slices of `sliceRows`, then deleted from `slots`; every read in between answers each
    /// fix once; afterwards a retry is refused by `positions` and a late fix of a merged hour
    /// goes there.
    @Test func oldHours_mergedIntoPositions_eachFixAnsweredOnceThroughout() throws {
        try withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path, moveAfter: .zero, mergeAfter: .zero, sliceRows: 50)
            let all = Self.twoOldHours
            #expect(try store.commit(all) == all.count)
            var turns = 0, sawBoth = false
            while try store.settle() > 0 {
                turns += 1
                let slots = try Self.rows(store, "slots"), positions = try Self.rows(store, "positions")
                sawBoth = sawBoth || (slots > 0 && positions > 0)
                // Every 7th turn, to keep the test short: reads are O(fixes).
                guard turns % 7 == 0 else { continue }
                for d in ["a", "b", "c"] {
                    #expect(try store.positions(device: d, from: 0, to: .max, limit: 1000).map(\.fixTime) == all.filter { $0.device == d }.map(\.fixTime),
                            "turn \(turns)")
                }
            }
            #expect(sawBoth)
            #expect(try Self.rows(store, "recent") == 0 && Self.rows(store, "slots") == 0 && Self.rows(store, "positions") == all.count)
            // Both hours, each device's in one range of the key: 2 hours × 3 devices.
            let ranges = try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT DISTINCT hour, device_id FROM positions)") }
            #expect(ranges == 6)
            #expect(try store.commit(Array(all.prefix(20))) == 0)
            let late = Self.fix("b", all[0].fixTime + 3)
            #expect(try store.commit([late]) == 1)
            #expect(try Self.rows(store, "positions") == all.count + 1 && Self.rows(store, "slots") == 0)
            #expect(try store.positions(device: "b", from: late.fixTime, to: late.fixTime + 1, limit: 10) == [late])
            let times = try store.fixTimes(of: ["a", "b", "c"], from: 0, to: .max)
            #expect(times.values.map(\.count).reduce(0, +) == all.count + 1)
            // Retention drops whole hours: the first (hour-aligned) day holds none of these.
            try store.removeDays(before: Self.now / FixDay.milliseconds - 1)
            #expect(try Self.rows(store, "positions") == all.count + 1)
        }
    }

    /// A merge cut short after copying device a: the reopened store answers each fix once,
    /// finishes the merge from the saved device on (the copies already made are skipped) and
    /// deletes the hour from `slots`.
    @Test func reopenedAfterAnInterruptedMerge_answersEveryFixOnce_thenFinishesIt() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let all = Self.twoOldHours, hour = all[0].fixTime / SQLitePositionStore.hourSpan
            do {
                let store = try SQLitePositionStore(path: path, moveAfter: .zero, mergeAfter: .seconds(100 * 3600))
                #expect(try store.commit(all) == all.count)
                try Self.settleAll(store)
                #expect(try Self.rows(store, "slots") == all.count && Self.rows(store, "positions") == 0)
                // The merge of the first hour saved at device b, a copied: then killed.
                try store.pool.write { db in
                    try db.execute(sql: """
                        INSERT INTO positions SELECT slot / 360, \(SQLitePositionStore.tableColumns) FROM slots
                        WHERE slot / 360 = ? AND device_id = (SELECT id FROM devices WHERE name = 'a')
                        """, arguments: [hour])
                    try db.execute(sql: "UPDATE moves SET merged_below = ?, merge_device = (SELECT id FROM devices WHERE name = 'b')", arguments: [hour + 1])
                }
            }
            let store = try SQLitePositionStore(path: path, moveAfter: .zero, mergeAfter: .seconds(100 * 3600))
            for d in ["a", "b", "c"] {
                #expect(try store.positions(device: d, from: 0, to: .max, limit: 1000).map(\.fixTime) == all.filter { $0.device == d }.map(\.fixTime))
            }
            #expect(try store.fixTimes(of: ["a"], from: 0, to: .max)["a"]?.count == all.count / 3)
            // Retries of fixes of the hour under merge, copied (a) or not yet (c), and of the next hour: not stored again.
            #expect(try store.commit([all[1], all[all.count / 3 * 2 + 1], all.last!]) == 0)
            try Self.settleAll(store)
            // The first hour merged; the second (not `mergeAfter` over) still in `slots`.
            #expect(try Self.rows(store, "positions") == all.count / 2 && Self.rows(store, "slots") == all.count / 2)
            for d in ["a", "b", "c"] {
                #expect(try store.positions(device: d, from: 0, to: .max, limit: 1000).map(\.fixTime) == all.filter { $0.device == d }.map(\.fixTime))
            }
        }
    }

    /// A file whose `positions` is keyed device first (sessions 30–54) is carried over at open:
    /// its rows keyed by hour, the hours before the boundary counted as merged (a retry of
    /// one is refused by `positions`).
    @Test func positionsKeyedByDevice_isCarriedOverAtOpen() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let old = Self.twoOldHours
            do {
                let queue = try DatabaseQueue(path: path)
                try queue.write { db in
                    try db.execute(sql: """
                        CREATE TABLE devices (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, osmand_speed_unit TEXT NOT NULL DEFAULT 'mps');
                        INSERT INTO devices (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c');
                        CREATE TABLE positions (device_id INTEGER NOT NULL, fix_time INTEGER NOT NULL, payload_hash INTEGER NOT NULL,
                            latitude REAL NOT NULL, longitude REAL NOT NULL, altitude REAL, accuracy REAL, speed REAL, course REAL,
                            received_at INTEGER NOT NULL, source TEXT NOT NULL, PRIMARY KEY (device_id, fix_time, payload_hash)) WITHOUT ROWID;
                        CREATE TABLE moves (boundary INTEGER NOT NULL);
                        """)
                    for fix in old {
                        try db.execute(sql: "INSERT INTO positions VALUES ((SELECT id FROM devices WHERE name = ?), ?, ?, ?, 13.4, NULL, NULL, 3, NULL, ?, 'osmand')",
                                       arguments: [fix.device, fix.fixTime, fix.payloadHash, fix.latitude, fix.receivedAt])
                    }
                    try db.execute(sql: "INSERT INTO moves VALUES (?)", arguments: [old.last!.fixTime + 1])
                }
            }
            let store = try SQLitePositionStore(path: path, moveAfter: .zero, mergeAfter: .zero)
            #expect(try Self.rows(store, "positions") == old.count)
            #expect(try store.positions(device: "c", from: 0, to: .max, limit: 1000).map(\.fixTime) == old.filter { $0.device == "c" }.map(\.fixTime))
            #expect(try store.commit(Array(old.suffix(5))) == 0)
            try Self.settleAll(store)
            #expect(try Self.rows(store, "positions") == old.count && Self.rows(store, "slots") == 0)
        }
    }

    /// Idle, the group committer still gives the store its upkeep: a fix of the current slot,
    /// committed when its move was not yet due and followed by no other request, is moved
    /// out of `recent` once its slot is over (within 10 s, then 1 s of idle upkeep).
    @Test func idleCommitter_movesWhatComesDue_withoutFurtherCommits() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path, moveAfter: .zero)
            let committer = GroupCommitter(store: store, metrics: TrackingMetrics())
            defer { committer.stop() }
            #expect(try await committer.commit([Self.fix("car", Int64(Date().timeIntervalSince1970 * 1000))]) == 1)
            let deadline = Date().addingTimeInterval(20)
            while try Self.rows(store, "recent") > 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
            #expect(try Self.rows(store, "recent") == 0 && Self.moved(store) == 1)
        }
    }
}
