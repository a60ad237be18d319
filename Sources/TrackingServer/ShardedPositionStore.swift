import Dispatch
public import GeoBase
public import GeoCore
import Synchronization

/// Several PostgreSQL databases as one store, each device's writes on one of them, chosen by
/// rendezvous hashing (highest random weight: Thaler and Ravishankar, "Using name-based mappings
/// to increase hit rates", IEEE/ACM Transactions on Networking 6(1), 1998): a device goes to the
/// database whose `shard` identity weighs most with its name. Every instance given the same
/// databases, through whatever URLs, maps every device alike, with no table to share; a database
/// added takes about 1/n of the devices and moves no device between the others.
///
/// The server gives each database a group committer of its own (`commitParts`,
/// `PartCommitters`), so a database that is slow or down holds back only its own devices' acks.
/// A batch given to `commit` goes to its devices' databases, each part committed there at the
/// same time (each part's own transaction), and succeeds only once every part has. A part
/// that fails fails the batch; the parts that committed are kept, and the client's retry skips
/// them (`ON CONFLICT DO NOTHING`), so nothing is lost or stored twice. Reads ask every database
/// and merge: a device's history stays readable where it was written when databases are added.
public final class ShardedPositionStore: PositionStore {
    public let shards: [PostgresPositionStore]

    /// - Throws: `PostgresStoreError` `.badShards` when fewer than two databases are given, or
    ///   one is given twice (the same `shard` identity: one database through two URLs).
    public init(_ shards: [PostgresPositionStore]) throws(PostgresStoreError) {
        guard shards.count >= 2 else { throw PostgresStoreError(.badShards, "sharding needs two or more databases, not \(shards.count)", at: "--postgres") }
        var seen: [String: PostgresPositionStore] = [:]
        for store in shards {
            if let first = seen.updateValue(store, forKey: store.shard) {
                throw PostgresStoreError(.badShards, "one database given twice (shard \(store.shard))",
                                         at: "\(first.connector.location) and \(store.connector.location)")
            }
        }
        self.shards = shards
    }

    /// The index in `shards` of `device`'s database.
    func shardIndex(of device: String) -> Int {
        var best = 0, bestWeight: UInt64 = 0
        for (i, store) in shards.enumerated() {
            let weight = Self.weight(shard: store.shard, device: device)
            if i == 0 || weight > bestWeight { (best, bestWeight) = (i, weight) }
        }
        return best
    }

    /// A device's weight with a shard: `FNV1a64` over the shard's identity, a separator and the
    /// name (the same in every process), then MurmurHash3's 64-bit finaliser,
    /// so that names differing in their last bytes still differ in the high bits compared.
    static func weight(shard: String, device: String) -> UInt64 {
        var fnv = FNV1a64()
        fnv.mix(bytes: shard.utf8)
        fnv.mix(0xff)
        fnv.mix(bytes: device.utf8)
        var hash = fnv.value
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash = hash &* 0xc4ce_b9fe_1a85_ec53
        return hash ^ (hash >> 33)
    }

    /// `items` split by their device's shard: (shard index, items), in shard order.
    func byShard<T>(_ items: [T], device: (T) -> String) -> [(Int, [T])] {
        var parts: [Int: [T]] = [:]
        for item in items { parts[shardIndex(of: device(item)), default: []].append(item) }
        return parts.sorted { $0.key < $1.key }
    }

    /// `body` on every part at once (one thread each, `concurrentPerform`); the first error
    /// thrown, once all have ended.
    func eachPart<T: Sendable, R: Sendable>(_ parts: [(Int, [T])], _ body: @Sendable (PostgresPositionStore, [T]) throws -> R) throws -> [R] {
        if parts.count == 1 { return [try body(shards[parts[0].0], parts[0].1)] }
        let results = Mutex<[Int: Result<R, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: parts.count) { k in
            let result = Result { try body(shards[parts[k].0], parts[k].1) }
            results.withLock { $0[k] = result }
        }
        return try results.withLock { all in try (0..<parts.count).map { try all[$0]!.get() } }
    }

    /// `read` on every shard at once; the answers in shard order.
    func everyShard<R: Sendable>(_ read: @escaping @Sendable (PostgresPositionStore) async throws -> R) async throws -> [R] {
        try await withThrowingTaskGroup(of: (Int, R).self) { group in
            for (i, store) in shards.enumerated() { group.addTask { (i, try await read(store)) } }
            var answers: [Int: R] = [:]
            for try await (i, answer) in group { answers[i] = answer }
            return (0..<shards.count).map { answers[$0]! }
        }
    }

    public var concurrentCommits: Int { shards.map(\.concurrentCommits).max() ?? 1 }
    public var commitParts: [any PositionStore] { shards }
    public func commitPart(of device: String) -> Int { shardIndex(of: device) }

    public func commit(_ rows: [StoredFix]) throws -> Int {
        try eachPart(byShard(rows, device: \.device)) { store, part in try store.commit(part) }.reduce(0, +)
    }

    public func add(events: [FenceEvent]) throws -> [FenceEvent] {
        let added = Set(try eachPart(byShard(events, device: \.device)) { store, part in try store.add(events: part) }.joined())
        return events.filter(added.contains)
    }

    public func register(_ devices: [DeviceSettings]) async throws {
        for (i, part) in byShard(devices, device: \.name) { try await shards[i].register(part) }
    }

    /// Every shard's devices; a device registered on two (before a database was added) once,
    /// with the settings of its shard now.
    public func devices() async throws -> [DeviceSettings] {
        let all = try await everyShard { try await $0.devices() }
        var chosen: [String: DeviceSettings] = [:]
        for (i, devices) in all.enumerated() {
            for device in devices where chosen[device.name] == nil || shardIndex(of: device.name) == i { chosen[device.name] = device }
        }
        return chosen.values.sorted { $0.name < $1.name }
    }

    public func positions(device: String, from: Int64, to: Int64, limit: Int) async throws -> [StoredFix] {
        let all = try await everyShard { try await $0.positions(device: device, from: from, to: to, limit: limit) }
        return Array(all.joined().sorted { ($0.fixTime, $0.payloadHash) < ($1.fixTime, $1.payloadHash) }.prefix(limit))
    }

    public func latest(devices: [String]) async throws -> [StoredFix] {
        Self.latestOfEach(try await everyShard { try await $0.latest(devices: devices) })
    }

    public func latest(in box: BoundingBox) async throws -> [StoredFix] {
        // A device's latest fix may lie in the box on one shard and out of it on a later one.
        let inBox = Self.latestOfEach(try await everyShard { try await $0.latest(in: box) })
        let newest = Dictionary(uniqueKeysWithValues: try await latest(devices: inBox.map(\.device)).map { ($0.device, $0) })
        return inBox.filter { newest[$0.device]?.fixTime == $0.fixTime }
    }

    /// Of each device's fixes in `answers`, the latest (greatest fix time), by device name.
    static func latestOfEach(_ answers: [[StoredFix]]) -> [StoredFix] {
        var latest: [String: StoredFix] = [:]
        for fix in answers.joined() where (latest[fix.device]?.fixTime ?? .min) < fix.fixTime { latest[fix.device] = fix }
        return latest.values.sorted { $0.device < $1.device }
    }

    public func fixTimes(of devices: [String], from: Int64, to: Int64) async throws -> [String: [Int64]] {
        try await everyShard { try await $0.fixTimes(of: devices, from: from, to: to) }.reduce(into: [:]) { all, times in
            all.merge(times) { $0 + $1 }
        }
    }

    public func count(device: String, fixTime: Int64) async throws -> Int {
        try await everyShard { try await $0.count(device: device, fixTime: fixTime) }.reduce(0, +)
    }

    public func removeDays(before day: Int64) async throws {
        _ = try await everyShard { try await $0.removeDays(before: day) }
    }

    public func events(device: String?, from: Int64, to: Int64, limit: Int) async throws -> [FenceEvent] {
        let all = try await everyShard { try await $0.events(device: device, from: from, to: to, limit: limit) }
        return Array(all.joined().sorted(by: FenceEvent.ordered).prefix(limit))
    }

    /// Each (device, fence)'s latest event over every shard.
    public func latestEvents(devices: [String]) throws -> [FenceEvent] {
        let all = try eachPart(shards.indices.map { ($0, devices) }) { store, devices in try store.latestEvents(devices: devices) }
        var latest: [[String]: FenceEvent] = [:]
        for event in all.joined() where (latest[[event.device, event.fence]]?.time ?? .min) < event.time { latest[[event.device, event.fence]] = event }
        return latest.values.sorted(by: FenceEvent.ordered)
    }

    public func followOtherInstances(_ body: @escaping @Sendable (OtherInstanceNews) -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for store in shards { group.addTask { await store.followOtherInstances(body) } }
        }
    }

    /// Closes every shard's idle connections.
    public func close() { shards.forEach { $0.close() } }
}
