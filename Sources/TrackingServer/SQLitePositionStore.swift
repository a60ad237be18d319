#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import GeoCore
import GRDB
import Synchronization
import TrackingProtocols

/// The default store: one SQLite file through GRDB, in WAL mode with `synchronous = FULL`, so a
/// commit that returned survives a crash of the process or the machine (sqlite.org/pragma.html
/// #pragma_synchronous: FULL syncs the WAL at every commit).
///
/// Tables: `devices(id, name, osmand_speed_unit)`; `positions`, keyed by (device, fix time,
/// payload hash) `WITHOUT ROWID`, so a device's fixes are contiguous in fix-time order (the
/// history read is one range scan); `latest(device, …)`, moved only forwards in fix time;
/// `events`, keyed by (device, fence, kind, time), with an index on (device, time).
public final class SQLitePositionStore: PositionStore {
    let pool: DatabasePool
    /// Device name → id; filled from the table, extended after each commit that added devices.
    let ids = Mutex<[String: Int64]>([:])

    /// Opens (creating when absent) the database at `path`.
    /// - Parameters:
    ///   - readOnly: open without writing (`geo loadgen verify`; a replica); commits then fail.
    ///   - maximumPages: caps the file at this many pages (`PRAGMA max_page_count`; 4 KiB pages),
    ///     after which commits fail with SQLITE_FULL as on a full disk; nil for no cap.
    public init(path: String, readOnly: Bool = false, maximumPages: Int? = nil) throws {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            if !readOnly { try db.execute(sql: "PRAGMA synchronous = FULL") }
            if let maximumPages { try db.execute(sql: "PRAGMA max_page_count = \(maximumPages)") }
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        if !readOnly {
            try Self.migrate(pool)
            // The writer's page cache, 64 MiB rather than SQLite's 2 MiB: 20,000 devices' fixes
            // go to pages all over the (device, fix time) key, and with the small cache every
            // batch read many of them back (pread was 3.5 % of the server's CPU samples under
            // tracking.sh 19,900 devices, perf).
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA cache_size = -65536") }
        }
        let known = try pool.read { db in try Row.fetchAll(db, sql: "SELECT id, name FROM devices") }
        ids.withLock { map in for row in known { map[row["name"]] = row["id"] } }
    }

    static func migrate(_ pool: DatabasePool) throws {
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS devices (
                    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, osmand_speed_unit TEXT NOT NULL DEFAULT 'mps');
                CREATE TABLE IF NOT EXISTS positions (
                    device_id INTEGER NOT NULL, fix_time INTEGER NOT NULL, payload_hash INTEGER NOT NULL,
                    latitude REAL NOT NULL, longitude REAL NOT NULL, altitude REAL, accuracy REAL, speed REAL, course REAL,
                    received_at INTEGER NOT NULL, source TEXT NOT NULL,
                    PRIMARY KEY (device_id, fix_time, payload_hash)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS latest (
                    device_id INTEGER PRIMARY KEY, fix_time INTEGER NOT NULL, payload_hash INTEGER NOT NULL,
                    latitude REAL NOT NULL, longitude REAL NOT NULL, altitude REAL, accuracy REAL, speed REAL, course REAL,
                    received_at INTEGER NOT NULL, source TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS events (
                    device TEXT NOT NULL, fence TEXT NOT NULL, kind TEXT NOT NULL, time INTEGER NOT NULL,
                    latitude REAL NOT NULL, longitude REAL NOT NULL,
                    PRIMARY KEY (device, fence, kind, time)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS events_device_time ON events (device, time);
                """)
        }
    }

    public func commit(_ rows: [StoredFix]) throws -> Int {
        var added: [String: Int64] = [:]
        let known = ids.withLock { $0 }
        let inserted = try pool.write { db -> Int in
            var inserted = 0
            let insert = try db.cachedStatement(sql: """
                INSERT INTO positions (device_id, fix_time, payload_hash, latitude, longitude, altitude, accuracy, speed, course, received_at, source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """)
            let latest = try db.cachedStatement(sql: """
                INSERT INTO latest (device_id, fix_time, payload_hash, latitude, longitude, altitude, accuracy, speed, course, received_at, source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (device_id) DO UPDATE SET fix_time = excluded.fix_time, payload_hash = excluded.payload_hash,
                    latitude = excluded.latitude, longitude = excluded.longitude, altitude = excluded.altitude,
                    accuracy = excluded.accuracy, speed = excluded.speed, course = excluded.course,
                    received_at = excluded.received_at, source = excluded.source
                WHERE excluded.fix_time > latest.fix_time
                """)
            for row in rows {
                let id: Int64
                if let known = known[row.device] ?? added[row.device] {
                    id = known
                } else {
                    try db.execute(sql: "INSERT INTO devices (name) VALUES (?) ON CONFLICT DO NOTHING", arguments: [row.device])
                    id = try Int64.fetchOne(db, sql: "SELECT id FROM devices WHERE name = ?", arguments: [row.device])!
                    added[row.device] = id
                }
                let arguments: StatementArguments = [id, row.fixTime, row.payloadHash, row.latitude, row.longitude, row.altitude,
                                                     row.accuracy, row.speed, row.course, row.receivedAt, row.source]
                try insert.execute(arguments: arguments)
                if db.changesCount > 0 {
                    inserted += 1
                    try latest.execute(arguments: arguments)
                }
            }
            return inserted
        }
        if !added.isEmpty { ids.withLock { $0.merge(added) { a, _ in a } } }
        return inserted
    }

    public func devices() throws -> [DeviceSettings] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT name, osmand_speed_unit FROM devices ORDER BY name").map {
                DeviceSettings(name: $0["name"], osmAndSpeedUnit: OsmAndSpeedUnit(rawValue: $0["osmand_speed_unit"]) ?? .metersPerSecond)
            }
        }
    }

    public func register(_ devices: [DeviceSettings]) throws {
        try pool.write { db in
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

    static let columns = "d.name, p.fix_time, p.payload_hash, p.latitude, p.longitude, p.altitude, p.accuracy, p.speed, p.course, p.received_at, p.source"

    static func fix(_ row: Row) -> StoredFix {
        StoredFix(device: row[0], fixTime: row[1], payloadHash: row[2], latitude: row[3], longitude: row[4], altitude: row[5],
                  accuracy: row[6], speed: row[7], course: row[8], receivedAt: row[9], source: row[10])
    }

    public func positions(device: String, from: Int64, to: Int64, limit: Int) throws -> [StoredFix] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM positions p JOIN devices d ON d.id = p.device_id
                WHERE d.name = ? AND p.fix_time >= ? AND p.fix_time < ? ORDER BY p.fix_time LIMIT ?
                """, arguments: [device, from, to, limit]).map(Self.fix)
        }
    }

    public func latest(device: String) throws -> StoredFix? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM latest p JOIN devices d ON d.id = p.device_id WHERE d.name = ?",
                             arguments: [device]).map(Self.fix)
        }
    }

    public func latest(in box: BoundingBox) throws -> [StoredFix] {
        let longitude = box.crossesAntimeridian ? "(p.longitude >= ? OR p.longitude <= ?)" : "(p.longitude >= ? AND p.longitude <= ?)"
        return try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM latest p JOIN devices d ON d.id = p.device_id
                WHERE p.latitude >= ? AND p.latitude <= ? AND \(longitude) ORDER BY d.name
                """, arguments: [box.south, box.north, box.west, box.east]).map(Self.fix)
        }
    }

    public func count(device: String, fixTime: Int64) throws -> Int {
        try pool.read { db in
            try Int.fetchOne(db, sql: """
                SELECT count(*) FROM positions p JOIN devices d ON d.id = p.device_id WHERE d.name = ? AND p.fix_time = ?
                """, arguments: [device, fixTime]) ?? 0
        }
    }

    public func add(events: [FenceEvent]) throws -> [FenceEvent] {
        guard !events.isEmpty else { return [] }
        return try pool.write { db in
            let insert = try db.cachedStatement(sql: """
                INSERT INTO events (device, fence, kind, time, latitude, longitude) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """)
            var added: [FenceEvent] = []
            for e in events {
                try insert.execute(arguments: [e.device, e.fence, e.kind.rawValue, e.time, e.latitude, e.longitude])
                if db.changesCount > 0 { added.append(e) }
            }
            return added
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
                ORDER BY time, CASE kind WHEN 'enter' THEN 0 WHEN 'dwell' THEN 1 ELSE 2 END, fence, device LIMIT ?4
                """, arguments: [device, from, to, limit]).compactMap(Self.event)
        }
    }

    public func latestEvents(device: String) throws -> [FenceEvent] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT device, fence, kind, time, latitude, longitude FROM events e
                WHERE device = ?1 AND time = (SELECT max(time) FROM events WHERE device = ?1 AND fence = e.fence)
                """, arguments: [device]).compactMap(Self.event).sorted(by: FenceEvent.ordered)
        }
    }

    /// Deletes the fixes before `day`, device by device along the primary key (one range each),
    /// in one transaction: commits wait for it.
    public func removeDays(before day: Int64) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM positions WHERE device_id IN (SELECT id FROM devices) AND fix_time < ?",
                           arguments: [day * FixDay.milliseconds])
        }
    }
}
