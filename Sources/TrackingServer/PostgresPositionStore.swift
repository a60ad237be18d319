import Foundation
import GeoBase
public import GeoCore
import Logging
import NIOCore
import PostgresNIO
import Synchronization
import TrackingProtocols

/// The scale-out store: PostgreSQL (15 or newer) through postgres-nio, for several server
/// instances on one database. A commit returns once PostgreSQL acknowledged the transaction, which with
/// the server's default `synchronous_commit = on` means the WAL is flushed.
///
/// Schema, created when absent on `open`:
/// - `devices(id, name, osmand_speed_unit)`;
/// - `positions`, partitioned by day of fix time (`positions_dYYYYMMDD`, made when a batch
///   first needs one), unique (device, fix time, payload hash) — its B-tree's leading columns
///   serve a device's history as one range scan — and a BRIN index on fix time for scans across
///   devices (cheap to keep: fixes arrive roughly in fix-time order);
/// - `latest(device_id, …)`, moved only forwards in fix time, its pages half filled (fillfactor 50);
/// - `events`, geofence events keyed by (device, fence, kind, time), indexed by (device, time);
/// - `shard(id)`, the database's identity (`shard`), a UUID made once.
/// Times are milliseconds since 1970 as `bigint`, as `StoredFix` has them: exact, so a retry's
/// fix time equals the stored one.
///
/// Each group commit is one transaction and one set-based statement, in the function
/// `tracking_insert_batch` (one round trip; with
/// `BEGIN`, the new devices and `COMMIT` around it when the batch registers devices): the
/// batch's columns go as arrays, `INSERT … SELECT FROM unnest(…) ON CONFLICT DO NOTHING
/// RETURNING` keeps the new rows, and their newest per device moves `latest` when later than
/// it. A row whose device is missing (a database replaced under a running server) has a NULL
/// device id, which fails the whole statement: nothing of the batch is stored. A database that is down,
/// refuses or does not answer within the deadline makes `commit` throw (the server answers 503).
public final class PostgresPositionStore: PositionStore {
    let connector: PostgresConnector
    /// The database's identity (`shard`): the same through any URL that reaches it, and on its
    /// streaming replicas. `ShardedPositionStore` maps devices to databases by it.
    public let shard: String
    /// A streaming replica of this database that serves the history reads (`positions`,
    /// `events`) once attached (`attach`), or nil. A replica that fails a read leaves it to
    /// this database.
    let replica = Mutex<PostgresConnector?>(nil)
    /// This store's name in batch notifications, so an instance skips its own.
    let instance = UUID().uuidString
    /// Device names known to be in `devices` (a batch registers only the others).
    let knownDevices = Mutex<Set<String>>([])
    /// Days (milliseconds / 86,400,000) whose partition exists. Held while a commit creates
    /// partitions: two concurrent commits of a new day's first fixes would both create its
    /// partition, and one would fail (PostgreSQL's `IF NOT EXISTS` does not cover a concurrent
    /// creation).
    let partitions = Mutex<Set<Int64>>([])

    /// Two commits in flight, each on its own connection: a batch commits while the one before
    /// it waits for its WAL flush, instead of queueing behind it.
    public var concurrentCommits: Int { 2 }

    init(connector: PostgresConnector, shard: String) {
        self.connector = connector
        self.shard = shard
    }

    /// Connects to `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`) and creates the
    /// schema when absent.
    /// - Parameters:
    ///   - createSchema: false to only read a database a server made (`geo loadgen verify`).
    ///   - deadline: the longest one statement (connect included) may take before the store
    ///     reports the database unavailable.
    public static func open(url: String, createSchema: Bool = true, deadline: Duration = .seconds(5)) async throws -> PostgresPositionStore {
        let connector = PostgresConnector(try PostgresLocation(url: url), deadline: deadline)
        if createSchema { try await migrate(connector) }
        guard let shard = try await shard(of: connector) else {
            throw PostgresStoreError(.unavailable, "no tracking database here (no shard identity): open it once with its schema made", at: "\(connector.location)")
        }
        let store = PostgresPositionStore(connector: connector, shard: shard)
        let names = try await store.devices().map(\.name)
        store.knownDevices.withLock { $0.formUnion(names) }
        return store
    }

    /// The statements `open` runs; each is idempotent.
    static let schema: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS devices (
            id bigserial PRIMARY KEY, name text NOT NULL UNIQUE, osmand_speed_unit text NOT NULL DEFAULT 'mps')
        """,
        """
        CREATE TABLE IF NOT EXISTS positions (
            device_id bigint NOT NULL, fix_time bigint NOT NULL, payload_hash bigint NOT NULL,
            latitude float8 NOT NULL, longitude float8 NOT NULL, altitude float8, accuracy float8, speed float8, course float8,
            received_at bigint NOT NULL, source text NOT NULL,
            UNIQUE (device_id, fix_time, payload_hash)) PARTITION BY RANGE (fix_time)
        """,
        "CREATE INDEX IF NOT EXISTS positions_fix_time_brin ON positions USING brin (fix_time)",
        """
        CREATE TABLE IF NOT EXISTS latest (
            device_id bigint PRIMARY KEY, fix_time bigint NOT NULL, payload_hash bigint NOT NULL,
            latitude float8 NOT NULL, longitude float8 NOT NULL, altitude float8, accuracy float8, speed float8, course float8,
            received_at bigint NOT NULL, source text NOT NULL)
        """,
        // Pages of `latest` half empty, so that moving a device forwards writes its new row
        // version on the same page (a HOT update: no new entry in its primary-key index, less
        // WAL, the old version pruned in place). In psql with 19,900 devices and 1,000-row
        // batches, 3.6 % of the updates were HOT at the default fillfactor 100 (the table grew
        // from 2.3 to 9 MB), 73 % at 80, 99.7 % at 50 (4.6 MB), and a batch's WAL just after a
        // checkpoint fell from 1.31 to 0.61 MB (its full-page images from 127 to 5). Also set
        // on an existing database: its full pages make room as their rows move.
        "ALTER TABLE latest SET (fillfactor = 50)",
        """
        CREATE TABLE IF NOT EXISTS events (
            device text NOT NULL, fence text NOT NULL, kind text NOT NULL, time bigint NOT NULL,
            latitude float8 NOT NULL, longitude float8 NOT NULL,
            PRIMARY KEY (device, fence, kind, time))
        """,
        "CREATE INDEX IF NOT EXISTS events_device_time ON events (device, time)",
        // The latest event of a device and fence, which a new one must follow (`add(events:)`).
        "CREATE INDEX IF NOT EXISTS events_device_fence_time ON events (device, fence, time)",
        // Who stored an event and when (this instance's clock, ms): what an instance that lost
        // its LISTEN connection tells its followers again (`eventsStored(since:)`). Rows stored
        // before these columns came have 0 and ''.
        "ALTER TABLE events ADD COLUMN IF NOT EXISTS stored_at bigint NOT NULL DEFAULT 0",
        "ALTER TABLE events ADD COLUMN IF NOT EXISTS instance text NOT NULL DEFAULT ''",
        "CREATE INDEX IF NOT EXISTS events_stored_at ON events (stored_at)",
        // The database's identity (`shard`), made once; a base backup copies it to a replica.
        "CREATE TABLE IF NOT EXISTS shard (id text PRIMARY KEY)",
        "INSERT INTO shard (id) SELECT gen_random_uuid()::text WHERE NOT EXISTS (SELECT 1 FROM shard)",
        // The batch's insert (`insert`), a PL/pgSQL function so that each connection parses,
        // analyses and plans its statement once, not for each batch (PL/pgSQL keeps the
        // plans of a session: PostgreSQL 15 documentation, 43.11.2): in a system-wide `perf record`
        // at 19,800 devices, parsing and planning the statement sent whole took 12 % of
        // PostgreSQL's CPU time. Arguments: the batch's columns (`Columns`) and the
        // notification's text; returns the number of new rows. Each row's device id is looked up
        // through `devices`' unique name index: joined instead, PostgreSQL hashed the whole table
        // for every batch (19,900 devices: ~6 of a 1,000-row statement's 26.6 ms in psql; the
        // lookups take 1.4 ms less in all). A device missing there gives NULL either way.
        // Sequential scans are off in it, so the lookup takes the index whatever the statistics
        // say: analysed while `devices` was a page (autovacuum does at 50 rows), the cached plan
        // scanned the table for each row, and kept doing so as a burst of registrations grew it
        // until autovacuum's next analysis, up to a minute later (psql, 60 devices analysed, then
        // 20,000: 780 ms a 1,000-row lookup, 3.3 ms once analysed again). The function reads no
        // other table that a scan would serve better: the inserts find conflicts by their indexes.
        """
        CREATE OR REPLACE FUNCTION tracking_insert_batch(text[], bigint[], bigint[], float8[], float8[], float8[],
            float8[], float8[], float8[], bigint[], text[], text) RETURNS bigint LANGUAGE plpgsql SET enable_seqscan = off AS $body$
        DECLARE
            inserted_rows bigint;
        BEGIN
            WITH input AS (
                SELECT (SELECT d.id FROM devices d WHERE d.name = t.device) AS device_id, t.fix_time, t.payload_hash, t.latitude, t.longitude,
                       NULLIF(t.altitude, 'NaN') AS altitude, NULLIF(t.accuracy, 'NaN') AS accuracy,
                       NULLIF(t.speed, 'NaN') AS speed, NULLIF(t.course, 'NaN') AS course, t.received_at, t.source
                FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::float8[],
                            $5::float8[], $6::float8[], $7::float8[], $8::float8[],
                            $9::float8[], $10::bigint[], $11::text[])
                     AS t(device, fix_time, payload_hash, latitude, longitude, altitude, accuracy, speed, course, received_at, source)),
            inserted AS (
                INSERT INTO positions (device_id, fix_time, payload_hash, latitude, longitude, altitude, accuracy, speed, course, received_at, source)
                SELECT * FROM input ON CONFLICT DO NOTHING RETURNING *),
            newest AS (
                SELECT DISTINCT ON (device_id) * FROM inserted ORDER BY device_id, fix_time DESC, payload_hash),
            moved AS (
                INSERT INTO latest (device_id, fix_time, payload_hash, latitude, longitude, altitude, accuracy, speed, course, received_at, source)
                SELECT device_id, fix_time, payload_hash, latitude, longitude, altitude, accuracy, speed, course, received_at, source FROM newest
                ON CONFLICT (device_id) DO UPDATE SET fix_time = excluded.fix_time, payload_hash = excluded.payload_hash,
                    latitude = excluded.latitude, longitude = excluded.longitude, altitude = excluded.altitude,
                    accuracy = excluded.accuracy, speed = excluded.speed, course = excluded.course,
                    received_at = excluded.received_at, source = excluded.source
                WHERE excluded.fix_time > latest.fix_time
                RETURNING 1)
            SELECT count(*) INTO inserted_rows FROM inserted;
            PERFORM pg_notify('tracking_batches', $12);
            RETURN inserted_rows;
        END
        $body$
        """,
        // A page of a device's fixes in time order (`positions(device:…)`), as one row of an
        // array per column. The device's id is a scalar subquery, not a join, so that the
        // planner knows it as one value and can read the (device, fix time) index in order: with
        // the join it sorted the day's rows instead, spilling them to disk at the default
        // `work_mem` (EXPLAIN ANALYZE, 86,400 fixes: 119 ms, then 52 ms). Bitmap scans are off
        // in it: on a partition autovacuum has not analysed yet (a day just begun, or just
        // loaded), the default selectivities estimate 2 rows, and the planner took every row of
        // the device's day through a bitmap and a top-N sort for each page of 8,192 (EXPLAIN
        // ANALYZE, 86,400 fixes: 29 ms a page, 4.1 ms by the index; a device-day read through
        // the server, idle, p50 135 ms, then 81 ms). PL/pgSQL, so that the setting holds while
        // the query is planned and each page still gets a plan for its own partition (an SQL
        // function's generic plan spans them all: 5.5 ms a page, 8.7 ms with 40 more days).
        """
        CREATE OR REPLACE FUNCTION tracking_device_page(text, bigint, bigint, bigint)
            RETURNS TABLE (fix_time bigint[], payload_hash bigint[], latitude float8[], longitude float8[], altitude float8[],
                           accuracy float8[], speed float8[], course float8[], received_at bigint[], source text[])
            LANGUAGE plpgsql STABLE SET enable_bitmapscan = off AS $body$
        BEGIN
            RETURN QUERY
            SELECT array_agg(s.fix_time), array_agg(s.payload_hash), array_agg(s.latitude), array_agg(s.longitude),
                   array_agg(s.altitude), array_agg(s.accuracy), array_agg(s.speed), array_agg(s.course),
                   array_agg(s.received_at), array_agg(s.source)
            FROM (SELECT * FROM positions p WHERE p.device_id = (SELECT d.id FROM devices d WHERE d.name = $1)
                  AND p.fix_time >= $2 AND p.fix_time < $3 ORDER BY p.fix_time LIMIT $4) s;
        END
        $body$
        """,
        // The latest positions of the devices named (`latest(devices:)`: a `/live` subscriber's
        // first message, and each batch another instance commits), PL/pgSQL so that a session
        // plans it once: sent whole, planning `name = ANY` weighed each name against the
        // column's statistics, and a read of 138 of 20,000 devices took 2.25 ms against 0.68
        // here (pgbench, extended protocol). The names are joined, not tested with `= ANY($1)`:
        // a plan cached while `devices` was a few pages scans it, and against a parameter
        // PostgreSQL tests `= ANY` element by element (it hashes only a constant array), so each
        // read compared every device with every name. auto_explain at 18,800 devices, two
        // instances: 44–158 ms a read, the batch notes piling up behind them (`PendingBatchNotes`
        // merges them, so the next read names more), and `/live` deliveries across the
        // instances p99 140 ms until autovacuum analysed the tables a minute in and the plan
        // was made again. Joined, any plan reads each device and each name a bounded number of
        // times.
        """
        CREATE OR REPLACE FUNCTION tracking_latest_of(text[])
            RETURNS TABLE (name text[], fix_time bigint[], payload_hash bigint[], latitude float8[], longitude float8[],
                           altitude float8[], accuracy float8[], speed float8[], course float8[], received_at bigint[], source text[])
            LANGUAGE plpgsql STABLE AS $body$
        BEGIN
            RETURN QUERY \(unescaped: selectLatest) JOIN (SELECT DISTINCT unnest($1)) AS n(name) ON n.name = d.name;
        END
        $body$
        """,
    ]

    static func migrate(_ connector: PostgresConnector) async throws(PostgresStoreError) {
        try await connector.suspending { session in
            // Instances starting together: one creates, the others wait for its lock.
            _ = try await session.query("SELECT pg_advisory_lock(35)").get()
            for statement in Self.schema { _ = try await session.query(statement).get() }
            _ = try await session.query("SELECT pg_advisory_unlock(35)").get()
        }
    }

    /// The identity in the database's `shard` table (`schema`); nil when it has none.
    static func shard(of connector: PostgresConnector) async throws(PostgresStoreError) -> String? {
        try await connector.suspending { session in
            guard try await session.query("SELECT to_regclass('shard') IS NOT NULL").get().first?.decode(Bool.self) == true else { return nil }
            return try await session.query("SELECT id FROM shard").get().first?.decode(String.self)
        }
    }

    /// The partition table of `day` (days since 1970): `positions_d20261128`.
    static func partitionName(day: Int64) -> String {
        let (y, m, d) = CivilCalendar.date(fromDays: Int(day))
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "positions_d\(y < 0 ? "m\(-y)" : "\(y)")\(two(m))\(two(d))"
    }

    /// The day of a partition table's name (`partitionName(day:)`'s inverse); nil for other names.
    static func day(ofPartition name: String) -> Int64? {
        guard name.hasPrefix("positions_d"), name.count == 19, let number = Int(name.suffix(8)) else { return nil }
        let (y, m, d) = (number / 10_000, number / 100 % 100, number % 100)
        guard (1...12).contains(m), (1...31).contains(d) else { return nil }
        return Int64(CivilCalendar.days(year: y, month: m, day: d))
    }

    /// The column arrays of one batch; absent measurements as NaN, turned back into NULL by the
    /// statement (postgres-nio binds arrays of non-optional elements only).
    struct Columns {
        var device: [String] = [], fixTime: [Int64] = [], payloadHash: [Int64] = []
        var latitude: [Double] = [], longitude: [Double] = [], altitude: [Double] = [], accuracy: [Double] = []
        var speed: [Double] = [], course: [Double] = [], receivedAt: [Int64] = [], source: [String] = []

        init(_ rows: [StoredFix]) {
            for r in rows {
                device.append(r.device); fixTime.append(r.fixTime); payloadHash.append(r.payloadHash)
                latitude.append(r.latitude); longitude.append(r.longitude)
                altitude.append(r.altitude ?? .nan); accuracy.append(r.accuracy ?? .nan)
                speed.append(r.speed ?? .nan); course.append(r.course ?? .nan)
                receivedAt.append(r.receivedAt); source.append(r.source)
            }
        }
    }

    /// The batch's insert through `tracking_insert_batch` (in `schema`); it also notifies
    /// `batchChannel` with `note` (`BatchNote`), delivered to the listening instances when the
    /// transaction commits.
    static func insert(_ c: Columns, note: String) -> PostgresQuery {
        """
        SELECT tracking_insert_batch(\(c.device), \(c.fixTime), \(c.payloadHash), \(c.latitude), \(c.longitude), \(c.altitude),
            \(c.accuracy), \(c.speed), \(c.course), \(c.receivedAt), \(c.source), \(note))
        """
    }

    public func commit(_ rows: [StoredFix]) throws -> Int {
        guard !rows.isEmpty else { return 0 }
        let days = Set(rows.map { FixDay.of($0.fixTime) })
        let names = Set(rows.map(\.device))
        // Each of the batch's names looked up in the known ones: `names.subtracting(known)` took
        // 1.1 ms a batch against 37 µs (1,000 names of 19,900 known, swiftc -O, same process),
        // 60 % of the writer thread's samples in `perf record` at 19,900 devices.
        // Sorted, as the rows are below: concurrent commits (this instance's writers, other
        // instances) then wait for each other's names and keys in one order, never in a cycle.
        let newNames = knownDevices.withLock { known in names.filter { !known.contains($0) } }.sorted()
        let sorted = rows.sorted { ($0.device, $0.fixTime, $0.payloadHash) < ($1.device, $1.fixTime, $1.payloadHash) }
        let inserted: Int
        do {
            inserted = try connector.blocking { session -> Int in
            try partitions.withLock { existing in
                for day in days.subtracting(existing).sorted() {
                    // Outside the batch's transaction: a partition another instance is creating
                    // at the same moment fails here (duplicate), and is there at the retry.
                    let query = PostgresQuery(unsafeSQL: """
                        CREATE TABLE IF NOT EXISTS \(Self.partitionName(day: day)) PARTITION OF positions
                        FOR VALUES FROM (\(day * FixDay.milliseconds)) TO (\((day + 1) * FixDay.milliseconds))
                        """)
                    _ = try session.query(query).wait()
                    existing.insert(day)
                }
            }
            // Usually one statement, its own transaction: one round trip. A batch that
            // registers devices wraps the registration and the statement in one transaction.
            if !newNames.isEmpty {
                _ = try session.query("BEGIN").wait()
                _ = try session.query("INSERT INTO devices (name) SELECT unnest(\(newNames)::text[]) ON CONFLICT DO NOTHING").wait()
            }
            let result = try session.query(Self.insert(Columns(sorted), note: BatchNote(instance: instance, rows: rows).text)).wait()
            if !newNames.isEmpty { _ = try session.query("COMMIT").wait() }
            guard let row = result.first else { return 0 }
            return try row.decode(Int.self)
            }
        } catch {
            // The database may have been replaced: check every partition and device again.
            partitions.withLock { $0.removeAll() }
            knownDevices.withLock { $0.removeAll() }
            throw error
        }
        if !newNames.isEmpty { knownDevices.withLock { $0.formUnion(newNames) } }
        return inserted
    }

    public func devices() async throws -> [DeviceSettings] {
        return try await connector.suspending { session in
            try await session.query("SELECT name, osmand_speed_unit FROM devices ORDER BY name").get().map { row in
                let (name, unit) = try row.decode((String, String).self)
                return DeviceSettings(name: name, osmAndSpeedUnit: OsmAndSpeedUnit(rawValue: unit) ?? .metersPerSecond)
            }
        }
    }

    public func register(_ devices: [DeviceSettings]) async throws {
        guard !devices.isEmpty else { return }
        let names = devices.map(\.name), units = devices.map(\.osmAndSpeedUnit.rawValue)
        try await connector.suspending { session in
            _ = try await session.query("""
                INSERT INTO devices (name, osmand_speed_unit) SELECT * FROM unnest(\(names)::text[], \(units)::text[])
                ON CONFLICT (name) DO UPDATE SET osmand_speed_unit = excluded.osmand_speed_unit
                """).get()
        }
        knownDevices.withLock { $0.formUnion(names) }
    }

    /// The start of a read of latest positions (`latest`, as `p`) with their device's name, as
    /// one row of an array per column (`latestFixes` reads it).
    static let selectLatest = """
        SELECT array_agg(d.name), array_agg(p.fix_time), array_agg(p.payload_hash), array_agg(p.latitude), array_agg(p.longitude),
               array_agg(p.altitude), array_agg(p.accuracy), array_agg(p.speed), array_agg(p.course), array_agg(p.received_at),
               array_agg(p.source)
        FROM latest p JOIN devices d ON d.id = p.device_id
        """

    /// The fixes of a query that starts with `selectLatest` (or a function's that does), by
    /// device name.
    func latestFixes(_ query: PostgresQuery) async throws(PostgresStoreError) -> [StoredFix] {
        try await connector.suspending { session in
            guard let row = try await session.query(query).get().first else { return [StoredFix]() }
            return try Self.fixes(columns: row).sorted { $0.device < $1.device }
        }
    }

    /// From now on, the history reads go to `replica` (a replica of this database: the caller
    /// checks that its `shard` is this one's).
    func attach(_ replica: PostgresReplica) {
        self.replica.withLock { $0 = replica.connector }
    }

    /// `read` on the replica when there is one and it answers, else on this database.
    func historyRead<R>(_ read: (PostgresConnector) async throws(PostgresStoreError) -> R) async throws(PostgresStoreError) -> R {
        if let replica = replica.withLock({ $0 }), let answer = try? await read(replica) { return answer }
        return try await read(connector)
    }

    /// A device's fixes in time order, read as one row that holds an array per column rather
    /// than a row per fix: postgres-nio's handling of each row (copies of `PostgresRow`, its cell
    /// iterator, `DataRow` decoding) took most of a device-day read's time (perf, 86,400 rows).
    /// The row is `tracking_device_page`'s (in `schema`); all the `array_agg`s of one aggregate
    /// see the rows in the same order, so the arrays stay aligned; the order itself is only
    /// usually the subquery's (PostgreSQL §4.2.7), so it is checked here.
    public func positions(device: String, from: Int64, to: Int64, limit: Int) async throws -> [StoredFix] {
        let query: PostgresQuery = "SELECT * FROM tracking_device_page(\(device), \(from), \(to), \(Int64(limit)))"
        var fixes = try await historyRead { connector throws(PostgresStoreError) in
            try await connector.suspending { session in
                guard let row = try await session.query(query).get().first else { return [StoredFix]() }
                return try Self.fixes(columns: row, device: device)
            }
        }
        if !fixes.indices.dropFirst().allSatisfy({ fixes[$0 - 1].fixTime <= fixes[$0].fixTime }) { fixes.sort { $0.fixTime < $1.fixTime } }
        return fixes
    }

    /// The fixes in a row of arrays, in their order: `positions(device:…)`'s, all of `device`,
    /// or (`device` nil) `selectLatest`'s, whose first array holds each fix's device.
    static func fixes(columns row: PostgresRow, device: String? = nil) throws -> [StoredFix] {
        var cells = row.makeIterator()
        func next(_ type: PostgresDataType) throws -> PostgresArrayColumn {
            guard let cell = cells.next() else { throw PostgresDecodingError.Code.missingData }
            return try PostgresArrayColumn(cell, of: type)
        }
        var names = device == nil ? try next(.text) : nil
        var fixTime = try next(.int8), hash = try next(.int8), latitude = try next(.float8), longitude = try next(.float8)
        var altitude = try next(.float8), accuracy = try next(.float8), speed = try next(.float8), course = try next(.float8)
        var receivedAt = try next(.int8), source = try next(.text)
        let n = fixTime.count
        guard [hash, latitude, longitude, altitude, accuracy, speed, course, receivedAt, source].allSatisfy({ $0.count == n }),
              names.map({ $0.count == n }) ?? true else {
            throw PostgresDecodingError.Code.failure
        }
        func required<T>(_ value: T?) throws -> T {
            guard let value else { throw PostgresDecodingError.Code.missingData }
            return value
        }
        var fixes: [StoredFix] = []
        fixes.reserveCapacity(n)
        for _ in 0..<n {
            fixes.append(StoredFix(
                device: try device ?? required(names?.nextString()), fixTime: try required(fixTime.nextInt64()), payloadHash: try required(hash.nextInt64()),
                latitude: try required(latitude.nextDouble()), longitude: try required(longitude.nextDouble()),
                altitude: try altitude.nextDouble(), accuracy: try accuracy.nextDouble(), speed: try speed.nextDouble(),
                course: try course.nextDouble(), receivedAt: try required(receivedAt.nextInt64()), source: try required(source.nextString())))
        }
        return fixes
    }

    /// One query for all the devices: a row per device holding its times as an array
    /// (`PostgresArrayColumn`), rather than a `positions(device:…)` query per device. Read from
    /// this database, never the replica: `geo loadgen verify` asks what was acknowledged here.
    public func fixTimes(of devices: [String], from: Int64, to: Int64) async throws -> [String: [Int64]] {
        let query: PostgresQuery = """
            SELECT d.name, array_agg(p.fix_time) FROM positions p JOIN devices d ON d.id = p.device_id
            WHERE d.name = ANY(\(devices)::text[]) AND p.fix_time >= \(from) AND p.fix_time < \(to) GROUP BY d.name
            """
        return try await connector.suspending { session in
            var times: [String: [Int64]] = [:]
            for row in try await session.query(query).get() {
                var cells = row.makeIterator()
                guard let name = cells.next(), let array = cells.next() else { throw PostgresDecodingError.Code.missingData }
                var column = try PostgresArrayColumn(array, of: .int8)
                times[try name.decode(String.self)] = try (0..<column.count).map { _ in
                    guard let time = try column.nextInt64() else { throw PostgresDecodingError.Code.missingData }
                    return time
                }
            }
            return times
        }
    }

    public func latest(devices: [String]) async throws -> [StoredFix] {
        try await latestFixes("SELECT * FROM tracking_latest_of(\(devices)::text[])")
    }

    public func latest(in box: BoundingBox) async throws -> [StoredFix] {
        try await latestFixes(box.crossesAntimeridian
            ? """
              \(unescaped: Self.selectLatest)
              WHERE p.latitude BETWEEN \(box.south) AND \(box.north) AND (p.longitude >= \(box.west) OR p.longitude <= \(box.east))
              """
            : """
              \(unescaped: Self.selectLatest)
              WHERE p.latitude BETWEEN \(box.south) AND \(box.north) AND p.longitude BETWEEN \(box.west) AND \(box.east)
              """)
    }

    public func count(device: String, fixTime: Int64) async throws -> Int {
        let query: PostgresQuery = """
            SELECT count(*) FROM positions p JOIN devices d ON d.id = p.device_id WHERE d.name = \(device) AND p.fix_time = \(fixTime)
            """
        return try await connector.suspending { session in
            try await session.query(query).get().first.map { try $0.decode(Int.self) } ?? 0
        }
    }

    /// Drops the partitions of the days before `day`: no row is deleted one by one, and the
    /// space returns to the system at once. Each `DROP TABLE` holds the parent table's lock for
    /// a moment (PostgreSQL 15 §5.11.2.2, partition maintenance), so commits wait that long.
    public func removeDays(before day: Int64) async throws {
        let names = try await connector.suspending { session in
            try await session.query("""
                SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
                WHERE p.relname = 'positions'
                """).get().map { try $0.decode(String.self) }
        }
        for name in names {
            guard let old = Self.day(ofPartition: name), old < day else { continue }
            // Forgotten first: a late fix of that day made after the drop creates it again.
            partitions.withLock { _ = $0.remove(old) }
            try await connector.suspending { session in
                _ = try await session.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(name)")).get()
            }
        }
    }

    /// One transaction: under an advisory lock every instance's event writes take (they are
    /// few, a write per decision round), reads the latest stored event of each device and fence,
    /// inserts those that follow it (`FenceEvent.accepted(_:after:)`) and tells the other
    /// instances of them (`EventNote`, sent with the commit).
    public func add(events: [FenceEvent]) throws -> [FenceEvent] {
        guard !events.isEmpty else { return [] }
        let pairs = Set(events.map { [$0.device, $0.fence] })
        let pairDevices = pairs.map { $0[0] }, pairFences = pairs.map { $0[1] }
        let latestQuery: PostgresQuery = """
            SELECT DISTINCT ON (e.device, e.fence) e.device, e.fence, e.kind, e.time, e.latitude, e.longitude
            FROM unnest(\(pairDevices)::text[], \(pairFences)::text[]) AS p(device, fence)
            JOIN events e ON e.device = p.device AND e.fence = p.fence
            ORDER BY e.device, e.fence, e.time DESC, \(unescaped: FenceEvent.Kind.rankSQL("e.kind")) DESC
            """
        let added: Set<FenceEvent> = try connector.blocking { session in
            _ = try session.query("BEGIN").wait()
            _ = try session.query("SELECT pg_advisory_xact_lock(\(Self.eventsLock))").wait()
            var latest: [[String]: FenceEvent] = [:]
            for event in try session.query(latestQuery).wait().compactMap(Self.event) { latest[[event.device, event.fence]] = event }
            let accepted = FenceEvent.accepted(events, after: latest)
            let devices = accepted.map(\.device), fences = accepted.map(\.fence), kinds = accepted.map(\.kind.rawValue)
            let times = accepted.map(\.time), latitudes = accepted.map(\.latitude), longitudes = accepted.map(\.longitude)
            let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
            let insert: PostgresQuery = """
                INSERT INTO events (device, fence, kind, time, latitude, longitude, stored_at, instance)
                SELECT *, \(now)::bigint, \(instance)::text FROM unnest(\(devices)::text[], \(fences)::text[], \(kinds)::text[],
                                     \(times)::bigint[], \(latitudes)::float8[], \(longitudes)::float8[])
                ON CONFLICT DO NOTHING RETURNING device, fence, kind, time
                """
            let inserted = Set(try session.query(insert).wait().map { try $0.decode((String, String, String, Int64).self) }.map { [$0.0, $0.1, $0.2, String($0.3)] })
            let stored = Set(accepted.filter { inserted.contains([$0.device, $0.fence, $0.kind.rawValue, String($0.time)]) })
            for note in EventNote.notes(instance: instance, events: events.filter(stored.contains)) {
                _ = try session.query("SELECT pg_notify(\(Self.batchChannel), \(note.text))").wait()
            }
            _ = try session.query("COMMIT").wait()
            return stored
        }
        return events.filter(added.contains)
    }

    /// The advisory lock (PostgreSQL's one-bigint key space) of event writes: one at a time
    /// reads the latest events and adds what follows them. (35 is the schema's migration lock.)
    static let eventsLock: Int64 = 36

    static func event(_ row: PostgresRow) throws -> FenceEvent? {
        let (device, fence, kind, time, latitude, longitude) = try row.decode((String, String, String, Int64, Double, Double).self)
        return FenceEvent.Kind(rawValue: kind).map { FenceEvent(device: device, fence: fence, kind: $0, time: time, latitude: latitude, longitude: longitude) }
    }

    public func events(device: String?, from: Int64, to: Int64, limit: Int) async throws -> [FenceEvent] {
        let query: PostgresQuery = """
            SELECT device, fence, kind, time, latitude, longitude FROM events
            WHERE (\(device)::text IS NULL OR device = \(device)::text) AND time >= \(from) AND time < \(to)
            ORDER BY time, \(unescaped: FenceEvent.Kind.rankSQL("kind")), fence, device LIMIT \(Int64(limit))
            """
        return try await historyRead { connector throws(PostgresStoreError) in
            try await connector.suspending { session in try await session.query(query).get().compactMap(Self.event) }
        }
    }

    public func latestEvents(devices: [String]) throws -> [FenceEvent] {
        let query: PostgresQuery = """
            SELECT DISTINCT ON (device, fence) device, fence, kind, time, latitude, longitude FROM events
            WHERE device = ANY(\(devices)::text[]) ORDER BY device, fence, time DESC, \(unescaped: FenceEvent.Kind.rankSQL("kind")) DESC
            """
        return try connector.blocking { session in
            try session.query(query).wait().compactMap(Self.event)
        }
    }

    /// Closes the idle connections (the store stays usable: the next operation opens one).
    public func close() { connector.close() }
}
