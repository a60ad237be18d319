public import GeoCore
public import TrackingProtocols

/// One fix as stored: the device's name, its fix time and payload hash (the unique key), the
/// position and measurements in base units (degrees, metres, m/s, degrees from north).
public struct StoredFix: Sendable, Hashable {
    public var device: String
    /// Milliseconds since 1970, UTC.
    public var fixTime: Int64
    /// `TrackedFix.payloadHash`: with `device` and `fixTime`, what makes a retry a duplicate.
    public var payloadHash: Int64
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var accuracy: Double?
    public var speed: Double?
    public var course: Double?
    /// When the server received it, milliseconds since 1970.
    public var receivedAt: Int64
    public var source: String

    public init(device: String, fixTime: Int64, payloadHash: Int64, latitude: Double, longitude: Double, altitude: Double? = nil,
                accuracy: Double? = nil, speed: Double? = nil, course: Double? = nil, receivedAt: Int64, source: String) {
        self.device = device
        self.fixTime = fixTime
        self.payloadHash = payloadHash
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
        self.speed = speed
        self.course = course
        self.receivedAt = receivedAt
        self.source = source
    }

    public init(_ fix: TrackedFix, receivedAt: Int64) {
        let l = fix.location
        self.init(device: fix.device, fixTime: fix.fixTimeMilliseconds, payloadHash: fix.payloadHash,
                  latitude: l.coordinate.latitude, longitude: l.coordinate.longitude, altitude: l.altitude?.meters,
                  accuracy: l.horizontalAccuracy?.meters, speed: l.speed?.metersPerSecond, course: l.course?.degrees,
                  receivedAt: receivedAt, source: fix.source.rawValue)
    }
}

/// A device the server knows, with its per-device options.
public struct DeviceSettings: Sendable, Hashable {
    public var name: String
    /// The unit of OsmAnd's `speed` for this device (`OsmAndSpeedUnit`).
    public var osmAndSpeedUnit: OsmAndSpeedUnit

    public init(name: String, osmAndSpeedUnit: OsmAndSpeedUnit = .metersPerSecond) {
        self.name = name
        self.osmAndSpeedUnit = osmAndSpeedUnit
    }
}

/// What another server instance on the same database committed (`PositionStore.followOtherInstances`).
public enum OtherInstanceNews: Sendable {
    /// The latest positions of the devices of its batches.
    case fixes([StoredFix])
    /// The fence events it stored.
    case events([FenceEvent])
}

/// Where fixes are kept. `commit`, `add(events:)` and `latestEvents` are synchronous: threads of
/// their own call them (the group committer's writer, `FenceMonitor`'s decisions) and may block
/// there (SQLite's fsync, PostgreSQL's round trips). Registration and reads are
/// `async`, so a networked store (`PostgresPositionStore`) waits for its database without
/// holding a thread of the cooperative pool; a local one (`SQLitePositionStore`) answers them
/// synchronously.
///
/// Rules every store keeps:
/// - `commit` returns only once the rows are durable (on disk, or acknowledged by a database
///   that made them so); it throws, having stored nothing of the batch, otherwise.
/// - A row whose (device, fix time, payload hash) is already stored is skipped
///   (`ON CONFLICT DO NOTHING`), so a retried request never duplicates.
/// - A device's latest position moves only to a later fix time: an out-of-order fix is stored
///   but never moves it backwards.
/// - A device named in a batch that the store does not know is registered in the same
///   transaction (the server decides beforehand whether it may be).
public protocol PositionStore: Sendable {
    /// Stores `rows` in one transaction. Returns how many were new (not duplicates).
    func commit(_ rows: [StoredFix]) throws -> Int
    /// Every registered device.
    func devices() async throws -> [DeviceSettings]
    /// Registers devices, or updates their settings.
    func register(_ devices: [DeviceSettings]) async throws
    /// A device's fixes with `from <= fixTime < to` (milliseconds), by fix time, at most `limit`.
    func positions(device: String, from: Int64, to: Int64, limit: Int) async throws -> [StoredFix]
    /// The latest fix (greatest fix time) of each of `devices` the store has a fix of, by
    /// device name: one read for them all (a `/live` subscriber's first message; a read a
    /// device, 100 subscribers of 100 devices on PostgreSQL, took 1–2 s of turns).
    func latest(devices: [String]) async throws -> [StoredFix]
    /// Each of `devices`' stored fix times with `from <= fixTime < to` (milliseconds), a time
    /// once per stored fix (twice for two payloads at one time), in no particular order; a
    /// device the store does not know has none. `geo loadgen verify`'s read of a whole run.
    func fixTimes(of devices: [String], from: Int64, to: Int64) async throws -> [String: [Int64]]
    /// The latest fix of every device whose latest fix lies in `box`, by device name.
    func latest(in box: BoundingBox) async throws -> [StoredFix]
    /// How many fixes of `device` are stored at `fixTime`, whatever their payload.
    func count(device: String, fixTime: Int64) async throws -> Int
    /// Retention: removes the fixes of every UTC day before `day` (`FixDay`; fix time below
    /// `day` × 86,400,000 ms). `latest` keeps each device's latest fix.
    func removeDays(before day: Int64) async throws
    /// Stores geofence events in one transaction, skipping those already stored (same device,
    /// fence, kind and time) and those that do not follow the latest stored event of their
    /// device and fence (`FenceEvent.follows`: what another instance stored first); returns the
    /// new ones, in the given order.
    /// Called on the fence thread (`FenceMonitor`); blocks as `commit` does.
    func add(events: [FenceEvent]) throws -> [FenceEvent]
    /// Events with `from <= time < to` (milliseconds), of one device or (nil) of all, in
    /// `FenceEvent.ordered` order, at most `limit`.
    func events(device: String?, from: Int64, to: Int64, limit: Int) async throws -> [FenceEvent]
    /// Each device's latest event per fence (of events at one time, the last in
    /// `FenceEvent.Kind.rank`: an exit after an enter): where its fence state stood when the
    /// server stopped. Called on the fence thread; blocks.
    func latestEvents(devices: [String]) throws -> [FenceEvent]
    /// Work the store does on the group committer's writer thread between batches, one short
    /// transaction per call (`SQLitePositionStore` moves fixes from its append table to its
    /// device-ordered one); returns the rows written or deleted, 0 when there was nothing to do.
    func settle() throws -> Int
    /// How many `commit` calls may run at once, each on a writer thread of its own
    /// (`GroupCommitter`): 1 for a store with one writer (SQLite), more for a database whose
    /// transactions overlap (PostgreSQL). Concurrent commits must not deadlock each other.
    var concurrentCommits: Int { get }
    /// The parts of this store that commit on their own, each given a group committer of its
    /// own (`PartCommitters`): a sharded store's databases. A store of one database is its one part.
    var commitParts: [any PositionStore] { get }
    /// The index in `commitParts` of the part that stores `device`'s fixes.
    func commitPart(of device: String) -> Int
    /// Called once the server has stopped writing through this store (its last commit and
    /// event write done): a store that admits one writer at a time (`SQLitePositionStore`)
    /// lets another open the database for writing.
    func stopWriting()
    /// Until cancelled: hands `body` the latest positions of each batch that another server
    /// instance on the same database commits, and the fence events another instance stores, for
    /// this instance's `/live` subscribers, fence decisions and live matching
    /// (`PostgresPositionStore`: LISTEN/NOTIFY). A store no other instance writes returns at once.
    func followOtherInstances(_ body: @escaping @Sendable (OtherInstanceNews) -> Void) async
    /// The fixes a page of the read API holds at most (`FixPages`): fewer hold less memory, and
    /// each page is a `positions(device:…)` call of its own.
    var readPageSize: Int { get }
}

extension PositionStore {
    /// A device's latest fix (greatest fix time).
    public func latest(device: String) async throws -> StoredFix? { try await latest(devices: [device]).first }
    /// Nothing to do between batches.
    public func settle() throws -> Int { 0 }
    /// One commit at a time.
    public var concurrentCommits: Int { 1 }
    /// One part: the store itself.
    public var commitParts: [any PositionStore] { [self] }
    public func commitPart(of device: String) -> Int { 0 }
    /// Several writers share the database (PostgreSQL): nothing to give up.
    public func stopWriting() {}
    /// No other instance writes here.
    public func followOtherInstances(_ body: @escaping @Sendable (OtherInstanceNews) -> Void) async {}
    /// About 1 MB of `StoredFix`es (136 bytes each).
    public var readPageSize: Int { 8192 }
    /// One `positions(device:…)` query a device.
    public func fixTimes(of devices: [String], from: Int64, to: Int64) async throws -> [String: [Int64]] {
        var times: [String: [Int64]] = [:]
        for device in devices { times[device] = try await positions(device: device, from: from, to: to, limit: .max).map(\.fixTime) }
        return times
    }
}

/// UTC days of fix time, days since 1970: the unit of retention and of PostgreSQL's partitions.
enum FixDay {
    /// Milliseconds in one day.
    static let milliseconds: Int64 = 86_400_000

    /// The day holding `milliseconds` since 1970: floor(ms / day), also before 1970.
    static func of(_ milliseconds: Int64) -> Int64 {
        milliseconds >= 0 ? milliseconds / Self.milliseconds : (milliseconds - Self.milliseconds + 1) / Self.milliseconds
    }

    /// The first day that `days` days of retention keep at `now` (milliseconds since 1970): a
    /// day is removed once it ended more than `days` × 24 h ago, so today and the `days` days
    /// before it are kept.
    static func firstKept(retentionDays days: Int, now: Int64) -> Int64 { of(now) - Int64(days) }
}

extension DeviceSettings {
    /// A device as `geo serve-tracking --device` names it, `NAME[:knots]`: a `:knots` suffix
    /// reads its OsmAnd speed in knots (Traccar's unit) instead of m/s.
    public init(spec: String) {
        if spec.hasSuffix(":knots") {
            self.init(name: String(spec.dropLast(6)), osmAndSpeedUnit: .knots)
        } else {
            self.init(name: spec)
        }
    }
}
