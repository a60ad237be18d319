public import GeoCore
import ProtobufWire

/// Scratch bytes on disk for `MapFeatureExtractor`'s stores once they outgrow memory; the I/O
/// layer implements it (TileArchives' `MappedScratchStorage`, a memory-mapped temporary file),
/// so MapData itself does no I/O.
public protocol MapScratchFile: AnyObject {
    /// The bytes, as many as the last `resize(to:)` asked for; invalid after the next one.
    var bytes: UnsafeMutableRawBufferPointer { get }
    /// Makes `bytes` `count` long, keeping the bytes it had.
    /// - Throws: when the disk is full or the file cannot be mapped; `bytes` is then unchanged.
    func resize(to count: Int) throws
}

/// Where `MapFeatureExtractor` keeps node positions and way node lists: in memory up to
/// `memoryLimit` bytes a store, then in scratch files the caller makes (as osmium's
/// `--index-type` and tilemaker's `--store` move their node stores to disk).
public struct MapElementStorage: Sendable {
    /// Bytes a store holds in memory before it moves to a scratch file.
    public var memoryLimit: Int
    /// Makes an empty scratch file; nil keeps every store in memory.
    public var makeScratchFile: (@Sendable () throws -> any MapScratchFile)?

    /// 32 MiB: 2 M nodes (Monaco has 180 k, Andorra 70 k); a country is a scratch file.
    public static let defaultMemoryLimit = 32 << 20
    /// The memory limits a user may give, in MiB (not bytes): 0 (all in scratch files) through 1 TiB.
    public static let memoryLimitsInMiB = ValidRange(0...1_048_576, unit: "MiB")

    public init(memoryLimit: Int = defaultMemoryLimit, makeScratchFile: (@Sendable () throws -> any MapScratchFile)?) {
        self.memoryLimit = max(0, memoryLimit)
        self.makeScratchFile = makeScratchFile
    }

    /// Everything in memory.
    public static var inMemory: MapElementStorage { MapElementStorage(makeScratchFile: nil) }
}

/// Growable bytes: allocated memory while they fit `MapElementStorage.memoryLimit`, then a
/// scratch file (the bytes are copied over once). Capacity doubles, so appending is amortised
/// O(1) a byte.
///
/// A reference type under value types (`NodeStore`, `WayStore`) that copy it before writing
/// when it is shared (`isKnownUniquelyReferenced`), as `Array` does; hence `@unchecked
/// Sendable`: a shared buffer is only read.
final class ScratchBuffer: @unchecked Sendable {
    private let storage: MapElementStorage
    private var memory: UnsafeMutableRawBufferPointer?
    private var file: (any MapScratchFile)?
    /// Bytes in use.
    private(set) var count = 0

    init(storage: MapElementStorage) { self.storage = storage }

    deinit { memory?.deallocate() }

    /// The bytes in use; invalid after the next `reserve`.
    var bytes: UnsafeMutableRawBufferPointer {
        let all = file?.bytes ?? memory ?? UnsafeMutableRawBufferPointer(start: nil, count: 0)
        return UnsafeMutableRawBufferPointer(rebasing: all[..<count])
    }

    /// Whether the bytes are in a scratch file.
    var isInFile: Bool { file != nil }

    /// Grows the capacity to hold `extra` more bytes and returns where they go; `count`
    /// grows by `used(_:)`.
    /// - Throws: what the scratch file throws (a full disk).
    func reserve(_ extra: Int) throws -> UnsafeMutableRawPointer {
        let capacity = file?.bytes.count ?? memory?.count ?? 0
        if count + extra > capacity {
            let wanted = max(count + extra, capacity * 2, 4096)
            if let file {
                try file.resize(to: wanted)
            } else if wanted > storage.memoryLimit, let make = storage.makeScratchFile {
                let made = try make()
                try made.resize(to: wanted)
                if let memory, count > 0 { made.bytes.baseAddress!.copyMemory(from: memory.baseAddress!, byteCount: count) }
                memory?.deallocate()
                memory = nil
                file = made
            } else {
                let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: wanted, alignment: 16)
                if let memory, count > 0 { grown.baseAddress!.copyMemory(from: memory.baseAddress!, byteCount: count) }
                memory?.deallocate()
                memory = grown
            }
        }
        return (file?.bytes.baseAddress ?? memory!.baseAddress!) + count
    }

    /// Counts `n` bytes written after a `reserve` as in use.
    func used(_ n: Int) { count += n }

    /// Drops bytes past `n`.
    func shrink(to n: Int) { count = min(count, n) }

    /// A copy of the bytes in use, in memory or a new scratch file as the size asks.
    func copy() throws -> ScratchBuffer {
        let copy = ScratchBuffer(storage: storage)
        let target = try copy.reserve(count)
        if count > 0 { target.copyMemory(from: bytes.baseAddress!, byteCount: count) }
        copy.used(count)
        return copy
    }
}

/// A fixed-size record of a `SortedRecordStore`, found by its id.
protocol ScratchRecord: BitwiseCopyable {
    var id: Int64 { get }
}

/// One node's position as the PBF format stores it: latitude and longitude in 1e-7 degrees as
/// Int32 (OSM fixed point; `osmformat.proto`'s DenseNodes at the default granularity of
/// 100 nanodegrees), 16 bytes with the id.
struct NodeRecord: ScratchRecord {
    var id: Int64
    var latitudeE7: Int32
    var longitudeE7: Int32
}

/// Records by id in a `ScratchBuffer` (memory, then a memory-mapped scratch file), looked up by
/// binary search: first in an in-memory sample of every 256th id (8 bytes per 256 records),
/// then within one run of 256 records (4 KiB of 16-byte records: one page of the file).
///
/// Sorted by id rather than indexed by id (osmium's `dense_file_array`): an extract's ids are
/// sparse over the id space (Monaco: 180 k nodes over ids 2.2e7…4.0e9, one id in 22,000), so a
/// dense array of its nodes would be a 32 GB file with a page touched per node. Dense pays off
/// only near a whole planet, where most ids are present.
///
/// Records may come in any id order until `seal()` (sorted OSM files give them in id order, and
/// then nothing is sorted); `seal()` sorts them in place, holding the sort's merge buffer (up
/// to half the records) meanwhile, and of the records sharing an id the last added wins.
struct SortedRecordStore<Record: ScratchRecord>: Sendable {
    private var buffer: ScratchBuffer
    private var inOrder = true
    private var lastID = Int64.min
    /// Every `runLength`-th id once sealed.
    private var sample: [Int64] = []
    private(set) var isSealed = false
    private static var runLength: Int { 256 }

    init(storage: MapElementStorage) { buffer = ScratchBuffer(storage: storage) }

    /// Records held.
    var count: Int { buffer.count / MemoryLayout<Record>.stride }
    /// Whether the records are in a scratch file.
    var isInFile: Bool { buffer.isInFile }
    /// The id of the last record added, if any.
    var lastAddedID: Int64? { count > 0 ? lastID : nil }

    /// - Throws: what the scratch file throws (a full disk).
    /// - Precondition: not sealed.
    mutating func add(_ record: Record) throws {
        precondition(!isSealed, "Broken contract: a record added to a sealed store")
        if !isKnownUniquelyReferenced(&buffer) { buffer = try buffer.copy() }
        let size = MemoryLayout<Record>.stride
        try buffer.reserve(size).storeBytes(of: record, as: Record.self)
        buffer.used(size)
        if record.id <= lastID { inOrder = false }
        lastID = record.id
    }

    /// Sorts the records by id (unless they came sorted), keeps the last of each id and builds
    /// the sample; lookups need it, adds are over.
    /// - Throws: what the scratch file throws when a shared store is copied first.
    /// - Complexity: O(n) for records in id order, else O(n log n).
    mutating func seal() throws {
        guard !isSealed else { return }
        if !isKnownUniquelyReferenced(&buffer) { buffer = try buffer.copy() }
        isSealed = true
        var records = buffer.bytes.bindMemory(to: Record.self)
        if !inOrder {
            // Stable (SE-0372): of equal ids the later added stays later, and is kept.
            records.sort { $0.id < $1.id }
            var kept = 0
            for i in records.indices where i + 1 == records.count || records[i + 1].id != records[i].id {
                records[kept] = records[i]
                kept += 1
            }
            buffer.shrink(to: kept * MemoryLayout<Record>.stride)
        }
        sample = stride(from: 0, to: count, by: Self.runLength).map { records[$0].id }
    }

    /// The record with this id, nil when absent.
    /// - Complexity: O(log n).
    /// - Precondition: sealed.
    subscript(id: Int64) -> Record? {
        precondition(isSealed, "Broken contract: a store looked up before seal()")
        // The last run starting at or before `id`.
        var lo = 0, hi = sample.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sample[mid] <= id { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0 else { return nil }
        let records = UnsafeBufferPointer(buffer.bytes.bindMemory(to: Record.self))
        var a = (lo - 1) * Self.runLength, b = min(records.count, a + Self.runLength)
        while a < b {
            let mid = (a + b) / 2
            if records[mid].id < id { a = mid + 1 } else { b = mid }
        }
        guard a < records.count, records[a].id == id else { return nil }
        return records[a]
    }
}

/// Node positions by id: 16 bytes a node.
typealias NodeStore = SortedRecordStore<NodeRecord>

/// Where a way's node list starts in `WayStore`'s list bytes.
struct WayIndexRecord: ScratchRecord {
    var id: Int64
    var start: Int64
}

/// Every way's node ids by way id: the lists as zigzag varint deltas in one `ScratchBuffer`
/// (the nodes of a way have near ids, so most references take one to three bytes, not eight),
/// found through a `SortedRecordStore` of where each list starts (16 bytes a way). Ways may come
/// in any order; the last of an id wins.
struct WayStore: Sendable {
    private var index: SortedRecordStore<WayIndexRecord>
    private var lists: ScratchBuffer
    /// One way's list being encoded; kept to reuse its capacity.
    private var encoder = WireWriter()

    init(storage: MapElementStorage) {
        index = SortedRecordStore(storage: storage)
        lists = ScratchBuffer(storage: storage)
    }

    /// Ways held (before `seal()`, with repeated ids).
    var count: Int { index.count }
    /// Whether the lists are in a scratch file.
    var isInFile: Bool { lists.isInFile }

    /// - Throws: what the scratch file throws (a full disk).
    mutating func add(id: Int64, nodeRefs: [Int64]) throws {
        if !isKnownUniquelyReferenced(&lists) { lists = try lists.copy() }
        encoder.bytes.removeAll(keepingCapacity: true)
        encoder.writeVarint(UInt64(nodeRefs.count))
        var last: Int64 = 0
        for ref in nodeRefs {
            encoder.writeSignedVarint(ref &- last)
            last = ref
        }
        try index.add(WayIndexRecord(id: id, start: Int64(lists.count)))
        let n = encoder.bytes.count
        let target = try lists.reserve(n)
        encoder.bytes.withUnsafeBytes { target.copyMemory(from: $0.baseAddress!, byteCount: n) }
        lists.used(n)
    }

    /// Readies lookups (`SortedRecordStore.seal()`); adds are over.
    mutating func seal() throws { try index.seal() }

    /// The node ids of way `id`, nil when absent.
    /// - Complexity: O(log ways + the way's length).
    /// - Precondition: sealed.
    subscript(id: Int64) -> [Int64]? {
        guard let record = index[id] else { return nil }
        // The bytes were written by `add`: they decode.
        var r = WireReader(UnsafeRawBufferPointer(rebasing: lists.bytes[Int(record.start)...]))
        let count = Int((try? r.readVarint()) ?? 0)
        var refs: [Int64] = []
        refs.reserveCapacity(count)
        var last: Int64 = 0
        for _ in 0..<count {
            last = last &+ ((try? r.readSignedVarint()) ?? 0)
            refs.append(last)
        }
        return refs
    }
}
