public import Foundation
import Dispatch
import GeoCore
import MapData
import ProtobufWire
import Synchronization
import SystemIO
import ZlibCompression

/// Reads OpenStreetMap `.osm.pbf` files: the "PBF Format" of the OSM wiki, messages from
/// `fileformat.proto` (BlobHeader, Blob) and `osmformat.proto` (HeaderBlock, PrimitiveBlock).
///
/// Blocks are read from the file in order (one open, no seeking: a FIFO works), each inflated
/// and decoded on a worker thread, at most `2 × parallelism` at a time, and handed to the
/// caller in file order, so memory grows with what the caller keeps, not with the file (a
/// block is at most 32 MiB: 8 000 elements from osmium, up to 180 000 from osmconvert).
///
/// ```swift
/// let reader = try OSMPBFReader(url: url)
/// let summary = try reader.read { block in
///     for way in block.ways where way.tags["highway"] != nil { … }
/// }
/// ```
public struct OSMPBFReader: Sendable {
    /// The file being read.
    public let url: URL
    public let options: OSMReadOptions
    /// The file's `OSMHeader` block.
    public let header: OSMHeader

    /// Features this reader implements (wiki "PBF Format", "required_features").
    public static let supportedFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes", "HistoricalInformation", "LocationsOnWays"]

    /// Opens a file and reads its header block.
    /// - Throws: `OSMError` (`.io`, `.truncated`, `.corrupted`, `.unsupportedFeature`) with the
    ///   byte offset of the bad block.
    public init(url: URL, options: OSMReadOptions = OSMReadOptions()) throws(OSMError) {
        self.url = url
        self.options = options
        let descriptor = try Self.open(url)
        defer { try? descriptor.close() }
        var frames = PBFFrameStream(descriptor)
        header = try Self.readHeader(&frames)
    }

    /// Reads every data block in file order, calling `body` with each one's elements. The file
    /// is read once from start to end (it may be a FIFO; the header is read again).
    ///
    /// When a block is truncated or corrupted, the blocks before it have already been
    /// delivered to `body`; the error names the byte offset of the bad block.
    /// - Returns: counts of what was read and what was dropped as absurd.
    /// - Throws: `OSMError` for bad input, or whatever `body` throws.
    /// - Complexity: O(file size); blocks decode in parallel on `options.parallelism` cores.
    @discardableResult
    public func read(_ body: (OSMElementBlock) throws -> Void) throws -> OSMReadSummary {
        let descriptor = try Self.open(url)
        defer { try? descriptor.close() }
        var frames = PBFFrameStream(descriptor)
        return try Self.read(&frames, options: options, body)
    }

    private static func open(_ url: URL) throws(OSMError) -> FileDescriptor {
        do { return try FileDescriptor(opening: url.path) } catch { throw OSMError(.io, "\(error)") }
    }

    /// Reads the `OSMHeader` block that starts a file and checks its required features.
    static func readHeader(_ frames: inout PBFFrameStream) throws(OSMError) -> OSMHeader {
        guard let frame = try frames.nextFrame() else {
            throw OSMError(.truncated, "empty file, no OSMHeader block", offset: 0)
        }
        guard frame.type == "OSMHeader" else {
            throw OSMError(.corrupted, "first block is '\(frame.type)', expected OSMHeader", offset: 0)
        }
        let header: OSMHeader
        do {
            header = try PBFDecoder.withBlobContent(frame.blob, inflater: try SizedInflater()) { raw throws(WireError) in
                try PBFDecoder.headerBlock(raw)
            }
        } catch let error as OSMError {
            throw OSMError(error.code, error.message, offset: 0)
        } catch {
            throw OSMError(.corrupted, "header block: \(PBFDecoder.describe(error))", offset: 0)
        }
        for feature in header.requiredFeatures where !supportedFeatures.contains(feature) {
            throw OSMError(.unsupportedFeature, "required feature '\(feature)' is not supported", offset: 0)
        }
        return header
    }

    /// Reads a whole file from `frames` (its header, then every data block in file order).
    ///
    /// This thread reads the blocks and hands each to a worker to inflate and decode, keeping
    /// at most `2 × parallelism` in flight, and passes the decoded blocks to `body` in file
    /// order as they complete: the cores stay busy however uneven the blocks are, and memory
    /// holds a bounded number of blocks.
    static func read<Content: OSMBlockContent>(_ frames: inout PBFFrameStream, options: OSMReadOptions, _ body: (Content) throws -> Void) throws -> OSMReadSummary {
        var summary = OSMReadSummary()
        summary.header = try readHeader(&frames)
        let includesMetadata = options.includesMetadata
        let window = options.parallelism == 1 ? 1 : options.parallelism * 2
        let pool = PBFDecodingPool()
        // One serial queue per worker, not the global concurrent queue: libdispatch runs serial
        // queues on overcommit threads, started whatever the CPU count, while the global queue is
        // only as wide as the CPUs — and this thread, blocked below waiting for a block, may be
        // one of its workers (a command running on Swift concurrency's global executor). Then
        // decoding got one core of two, and on one core none: a 1 s stall until libdispatch
        // added a thread (`taskset -c 0 geo osm info andorra.osm.pbf`: 0.84 s, now 0.02 s).
        let workers = options.parallelism == 1 ? [] : (0..<options.parallelism).map { DispatchQueue(label: "OSMImport.PBFDecoder.\($0)") }
        var blocksStarted = 0
        var inFlight: [DecodingBlock<Content>] = []
        var readError: OSMError?
        while true {
            // Keep the window full while the file has blocks.
            while readError == nil, inFlight.count < window {
                do {
                    guard let frame = try frames.nextFrame() else { break }
                    guard frame.type == "OSMData" else { continue }
                    let worker = workers.isEmpty ? nil : workers[blocksStarted % workers.count]
                    inFlight.append(DecodingBlock(frame, includesMetadata: includesMetadata, pool: pool, on: worker))
                    blocksStarted += 1
                } catch {
                    readError = error
                }
            }
            guard !inFlight.isEmpty else { break }
            // A window of a few blocks: removing the first is cheap.
            let decoded = try inFlight.removeFirst().wait().get()
            summary.add(decoded.block)
            summary.ignoredTagCount += decoded.ignoredTags
            summary.rejectedNodeCount += decoded.rejectedNodes
            try body(decoded.block)
        }
        if let readError { throw readError }
        return summary
    }
}

/// One block decoding on a worker queue (or at once, without one).
/// @unchecked Sendable: `result` is written once by the worker before `done.signal()` and
/// read only after `done.wait()`, which orders the two.
private final class DecodingBlock<Content: OSMBlockContent>: @unchecked Sendable {
    private var result: Result<DecodedBlock<Content>, OSMError>?
    private let done = DispatchSemaphore(value: 0)

    init(_ frame: PBFFrame, includesMetadata: Bool, pool: PBFDecodingPool, on worker: DispatchQueue?) {
        guard let worker else {
            result = PBFDecoder.decode(frame, includesMetadata: includesMetadata, pool: pool)
            done.signal()
            return
        }
        worker.async {
            self.result = PBFDecoder.decode(frame, includesMetadata: includesMetadata, pool: pool)
            self.done.signal()
        }
    }

    /// The block, once decoded (taken: a second call is a broken contract).
    func wait() -> Result<DecodedBlock<Content>, OSMError> {
        done.wait()
        guard let result else { fatalError("Broken contract: a decoded block is taken twice") }
        self.result = nil
        return result
    }
}

/// The zlib inflaters of a read, each used by one worker at a time and reused from block to
/// block, so a block costs no zlib state set-up and, once the inflater's buffer has grown to
/// the largest `raw_size`, no fresh memory for its decompressed bytes. There are at most as
/// many inflaters as blocks decoding at once (the window).
final class PBFDecodingPool: Sendable {
    /// @unchecked Sendable: an inflater passes between threads only through the pool's lock,
    /// and the worker that took it is its only user until it gives it back.
    private final class Inflater: @unchecked Sendable {
        let zlib: SizedInflater
        init() throws(CompressionError) { zlib = try SizedInflater() }
    }

    private let idle = Mutex<[Inflater]>([])

    /// Calls `body` with an inflater no other worker is using.
    func withInflater<R>(_ body: (SizedInflater) throws -> R) throws -> R {
        let inflater = try idle.withLock { $0.popLast() } ?? Inflater()
        defer { idle.withLock { $0.append(inflater) } }
        return try body(inflater.zlib)
    }
}

/// One file block: the blob's bytes and where it sits.
struct PBFFrame: Sendable {
    /// Offset of the block's 4-byte length prefix.
    var offset: Int
    /// Offset just past the block.
    var nextOffset: Int
    /// `BlobHeader.type`: "OSMHeader", "OSMData", or something to skip.
    var type: String
    /// The serialized `Blob` message.
    var blob: [UInt8]
}

/// The blocks of a PBF file read one after another from one descriptor, never seeking, so a
/// FIFO or a device reads like a file.
struct PBFFrameStream {
    private let descriptor: FileDescriptor
    /// Bytes already read from the descriptor (the format sniff) and not yet consumed.
    private var buffered: [UInt8]
    private var bufferedStart = 0
    /// Offset of the next unread byte of the file.
    private(set) var offset = 0

    /// Largest `BlobHeader` (64 KiB) and `Blob` (32 MiB) the spec allows.
    static let maximumHeaderSize = 64 * 1024
    static let maximumBlobSize = 32 * 1024 * 1024

    /// Reads `descriptor` from its current position; `alreadyRead` are the bytes read from it
    /// before (they come first).
    init(_ descriptor: FileDescriptor, alreadyRead: [UInt8] = []) {
        self.descriptor = descriptor
        buffered = alreadyRead
    }

    /// `count` bytes, fewer only at end of file.
    private mutating func read(_ count: Int) throws(OSMError) -> [UInt8] {
        let fromBuffer = min(count, buffered.count - bufferedStart)
        var failure: SystemIOError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { out, filled in
            let raw = UnsafeMutableRawBufferPointer(out)
            if fromBuffer > 0 {
                buffered.withUnsafeBytes { raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[bufferedStart..<bufferedStart + fromBuffer])) }
            }
            filled = fromBuffer
            while filled < count {
                do throws(SystemIOError) {
                    let n = try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
                    if n == 0 { break }
                    filled += n
                } catch {
                    failure = error
                    break
                }
            }
        }
        bufferedStart += fromBuffer
        if bufferedStart == buffered.count, !buffered.isEmpty { buffered = []; bufferedStart = 0 }
        if let failure { throw OSMError(.io, "\(failure)", offset: offset + bytes.count) }
        offset += bytes.count
        return bytes
    }

    /// Reads the next block; nil at a clean end of file (right after a block).
    /// - Throws: `OSMError` `.truncated` / `.corrupted` carrying the block's offset.
    mutating func nextFrame() throws(OSMError) -> PBFFrame? {
        let start = offset
        let prefix = try read(4)
        if prefix.isEmpty { return nil }
        guard prefix.count == 4 else {
            throw OSMError(.truncated, "file ends inside a block's length prefix", offset: start)
        }
        let headerSize = prefix.reduce(0) { $0 << 8 | Int($1) }
        guard headerSize > 0, headerSize <= Self.maximumHeaderSize else {
            throw OSMError(.corrupted, "BlobHeader length \(headerSize) is outside 1…\(Self.maximumHeaderSize)", offset: start)
        }
        let headerData = try read(headerSize)
        guard headerData.count == headerSize else {
            throw OSMError(.truncated, "file ends inside a BlobHeader", offset: start)
        }
        let type: String
        let dataSize: Int
        do {
            (type, dataSize) = try headerData.withUnsafeBytes { raw throws(WireError) in try PBFDecoder.blobHeader(raw) }
        } catch {
            throw OSMError(.corrupted, "BlobHeader: \(PBFDecoder.describe(error))", offset: start)
        }
        guard dataSize >= 0, dataSize <= Self.maximumBlobSize else {
            throw OSMError(.corrupted, "blob size \(dataSize) is outside 0…\(Self.maximumBlobSize)", offset: start)
        }
        let blob = try read(dataSize)
        guard blob.count == dataSize else {
            throw OSMError(.truncated, "file ends inside a blob (\(blob.count) of \(dataSize) bytes)", offset: start)
        }
        return PBFFrame(offset: start, nextOffset: offset, type: type, blob: blob)
    }
}

/// A decoded data block with its drop counts.
struct DecodedBlock<Content: OSMBlockContent>: Sendable {
    var block = Content()
    var ignoredTags = 0
    var rejectedNodes = 0
}

/// Decoding of the PBF messages, over borrowed bytes.
enum PBFDecoder {
    /// The message of a `WireError`, or the description of anything else.
    static func describe(_ error: any Error) -> String {
        (error as? WireError)?.message ?? "\(error)"
    }

    /// Inflates and decodes one `OSMData` frame with an inflater from `pool`.
    static func decode<Content>(_ frame: PBFFrame, includesMetadata: Bool, pool: PBFDecodingPool) -> Result<DecodedBlock<Content>, OSMError> {
        do {
            var decoded = try pool.withInflater { inflater in
                try withBlobContent(frame.blob, inflater: inflater) { raw throws(WireError) in
                    try primitiveBlock(raw, includesMetadata: includesMetadata) as DecodedBlock<Content>
                }
            }
            decoded.block.byteOffset = frame.offset
            return .success(decoded)
        } catch let error as OSMError {
            return .failure(OSMError(error.code, error.message, offset: frame.offset))
        } catch let error as WireError {
            return .failure(OSMError(.corrupted, error.message, offset: frame.offset))
        } catch {
            return .failure(OSMError(.corrupted, "\(error)", offset: frame.offset))
        }
    }

    /// `BlobHeader { type = 1; indexdata = 2; datasize = 3 }`.
    static func blobHeader(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> (type: String, dataSize: Int) {
        var r = WireReader(bytes)
        var type: String?
        var size: Int?
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch field {
            case 1:
                try WireReader.expect(wire, .lengthDelimited, field: field)
                type = String(decoding: try r.readBytes(), as: UTF8.self)
            case 3:
                try WireReader.expect(wire, .varint, field: field)
                size = Int(truncatingIfNeeded: Int32(truncatingIfNeeded: try r.readInt64()))
            default:
                try r.skip(wire)
            }
        }
        guard let type, let size else { throw WireError("BlobHeader lacks type or datasize") }
        return (type, size)
    }

    /// Calls `body` with the uncompressed content of a `Blob { raw = 1; raw_size = 2; zlib_data = 3;
    /// lzma_data = 4; OBSOLETE_bzip2_data = 5; lz4_data = 6; zstd_data = 7 }`: raw content in
    /// place, zlib content inflated by `inflater` in one call into its buffer of `raw_size`.
    static func withBlobContent<R>(_ blob: [UInt8], inflater: SizedInflater, _ body: (UnsafeRawBufferPointer) throws(WireError) -> R) throws -> R {
        try blob.withUnsafeBytes { bytes throws -> R in
            var r = WireReader(bytes)
            var rawSize: Int?
            var raw: UnsafeRawBufferPointer?
            var zlib: UnsafeRawBufferPointer?
            while !r.isAtEnd {
                let (field, wire) = try r.readKey()
                switch field {
                case 1:
                    try WireReader.expect(wire, .lengthDelimited, field: field)
                    raw = try r.readBytes()
                case 2:
                    try WireReader.expect(wire, .varint, field: field)
                    rawSize = Int(truncatingIfNeeded: Int32(truncatingIfNeeded: try r.readInt64()))
                case 3:
                    try WireReader.expect(wire, .lengthDelimited, field: field)
                    zlib = try r.readBytes()
                case 4, 5, 6, 7:
                    let name = [4: "lzma", 5: "bzip2", 6: "lz4", 7: "zstd"][field] ?? "unknown"
                    throw OSMError(.unsupportedCompression, "blob is \(name)-compressed; only raw and zlib are supported")
                default:
                    try r.skip(wire)
                }
            }
            if let raw { return try body(raw) }
            guard let zlib else { throw WireError("blob has neither raw nor zlib_data") }
            guard let rawSize, rawSize >= 0, rawSize <= PBFFrameStream.maximumBlobSize else {
                throw WireError("zlib blob has a missing or absurd raw_size")
            }
            return try inflater.inflate(zlib, size: rawSize) { content in try body(content) }
        }
    }

    /// `HeaderBlock { bbox = 1; required_features = 4; optional_features = 5; writingprogram = 16;
    /// source = 17; osmosis_replication_timestamp = 32; …_sequence_number = 33; …_base_url = 34 }`.
    static func headerBlock(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> OSMHeader {
        var header = OSMHeader(requiredFeatures: [])
        var r = WireReader(bytes)
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .lengthDelimited):
                // HeaderBBox { left = 1; right = 2; top = 3; bottom = 4 } in nanodegrees (sint64).
                var b = WireReader(try r.readBytes())
                var edges = [Int64](repeating: 0, count: 5)
                while !b.isAtEnd {
                    let (f, w) = try b.readKey()
                    if (1...4).contains(f), w == .varint { edges[Int(f)] = try b.readSignedVarint() } else { try b.skip(w) }
                }
                let south = Double(edges[4]) / 1e9, west = Double(edges[1]) / 1e9
                let north = Double(edges[3]) / 1e9, east = Double(edges[2]) / 1e9
                header.boundingBox = try? BoundingBox(south: south, west: west, north: north, east: east)
            case (4, .lengthDelimited): header.requiredFeatures.append(String(decoding: try r.readBytes(), as: UTF8.self))
            case (5, .lengthDelimited): header.optionalFeatures.append(String(decoding: try r.readBytes(), as: UTF8.self))
            case (16, .lengthDelimited): header.writingProgram = String(decoding: try r.readBytes(), as: UTF8.self)
            case (17, .lengthDelimited): header.source = String(decoding: try r.readBytes(), as: UTF8.self)
            case (32, .varint): header.replicationTimestamp = try r.readInt64()
            case (33, .varint): header.replicationSequenceNumber = try r.readInt64()
            case (34, .lengthDelimited): header.replicationBaseURL = String(decoding: try r.readBytes(), as: UTF8.self)
            default: try r.skip(wire)
            }
        }
        return header
    }

    /// The string table of a block: per entry whether it may be a tag value (`TagRules`) and a
    /// key (also not empty), and the strings themselves when elements are built (`holdsStrings`).
    struct StringTable {
        let holdsStrings: Bool
        var strings: [String] = []
        var acceptableValue: [Bool] = []
        var acceptableKey: [Bool] = []

        init(holdsStrings: Bool) { self.holdsStrings = holdsStrings }

        var count: Int { acceptableValue.count }

        /// Adds the next entry, given as its UTF-8 bytes.
        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            // A string of at most 255 bytes has at most 255 characters: only longer ones need decoding.
            let string = holdsStrings || bytes.count > TagRules.maximumLength ? String(decoding: bytes, as: UTF8.self) : ""
            let acceptable = bytes.count <= TagRules.maximumLength || TagRules.isShortEnough(string)
            acceptableValue.append(acceptable)
            acceptableKey.append(acceptable && !bytes.isEmpty)
            if holdsStrings { strings.append(string) }
        }

        /// The string at `index` ("" when the table holds no strings); throws when outside the table.
        @inline(__always)
        func string(_ index: UInt64) throws(WireError) -> String {
            guard index < UInt64(count) else { throw WireError("string index \(index) outside the table of \(count)") }
            return holdsStrings ? strings[Int(index)] : ""
        }

        /// Appends the tag `(key, value)` to `tags` if acceptable (and the table holds strings),
        /// else counts it as ignored.
        @inline(__always)
        func appendTag(key k: UInt64, value v: UInt64, to tags: inout OSMTags, ignored: inout Int) throws(WireError) {
            guard k < UInt64(count), v < UInt64(count) else {
                throw WireError("tag string index \(max(k, v)) outside the table of \(count)")
            }
            if !acceptableKey[Int(k)] || !acceptableValue[Int(v)] {
                ignored += 1
            } else if holdsStrings {
                tags.append(key: strings[Int(k)], value: strings[Int(v)])
            }
        }
    }

    /// Coordinate and time scaling of one block.
    struct BlockScale {
        var granularity: Int64 = 100
        var latOffset: Int64 = 0
        var lonOffset: Int64 = 0
        var dateGranularity: Int64 = 1000

        /// Raw block units to 1e-7 degrees, nil when outside the valid range.
        @inline(__always)
        func fixed(lat: Int64, lon: Int64) -> (Int32, Int32)? {
            var la: Int64, lo: Int64
            if granularity == 100 && latOffset == 0 && lonOffset == 0 {
                la = lat
                lo = lon
            } else {
                // nanodegrees = offset + granularity × value (osmformat.proto); 1e-7° = 100 nanodegrees.
                let (nla, o1) = granularity.multipliedReportingOverflow(by: lat)
                let (nlo, o2) = granularity.multipliedReportingOverflow(by: lon)
                guard !o1, !o2 else { return nil }
                la = Self.roundedDivide(nla &+ latOffset, 100)
                lo = Self.roundedDivide(nlo &+ lonOffset, 100)
            }
            guard la >= -900_000_000, la <= 900_000_000, lo >= -1_800_000_000, lo <= 1_800_000_000 else { return nil }
            return (Int32(la), Int32(lo))
        }

        @inline(__always)
        static func roundedDivide(_ a: Int64, _ b: Int64) -> Int64 {
            a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b)
        }

        /// Block timestamp units to whole seconds.
        @inline(__always)
        func seconds(_ t: Int64) -> Int64 { dateGranularity == 1000 ? t : t &* dateGranularity / 1000 }
    }

    /// `PrimitiveBlock { stringtable = 1; primitivegroup = 2; granularity = 17; date_granularity = 18;
    /// lat_offset = 19; lon_offset = 20 }`.
    static func primitiveBlock<Content>(_ bytes: UnsafeRawBufferPointer, includesMetadata: Bool) throws(WireError) -> DecodedBlock<Content> {
        var r = WireReader(bytes)
        var scale = BlockScale()
        var table = StringTable(holdsStrings: Content.buildsElements)
        var groups: [UnsafeRawBufferPointer] = []
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .lengthDelimited):
                // StringTable { repeated bytes s = 1 }
                var s = WireReader(try r.readBytes())
                while !s.isAtEnd {
                    let (f, w) = try s.readKey()
                    guard f == 1, w == .lengthDelimited else { try s.skip(w); continue }
                    table.append(try s.readBytes())
                }
            case (2, .lengthDelimited): groups.append(try r.readBytes())
            case (17, .varint): scale.granularity = try r.readInt64()
            case (18, .varint): scale.dateGranularity = try r.readInt64()
            case (19, .varint): scale.latOffset = try r.readInt64()
            case (20, .varint): scale.lonOffset = try r.readInt64()
            default: try r.skip(wire)
            }
        }
        guard scale.granularity > 0, scale.dateGranularity > 0 else { throw WireError("granularity must be positive") }
        var out = DecodedBlock<Content>()
        for group in groups {
            // PrimitiveGroup { nodes = 1; dense = 2; ways = 3; relations = 4; changesets = 5 }
            var g = WireReader(group)
            while !g.isAtEnd {
                let (field, wire) = try g.readKey()
                switch (field, wire) {
                case (1, .lengthDelimited):
                    try node(try g.readBytes(), table, scale, includesMetadata, &out)
                case (2, .lengthDelimited):
                    try denseNodes(try g.readBytes(), table, scale, includesMetadata, &out)
                case (3, .lengthDelimited):
                    out.block.add(try way(try g.readBytes(), table, scale, includesMetadata, &out.ignoredTags))
                case (4, .lengthDelimited):
                    out.block.add(try relation(try g.readBytes(), table, scale, includesMetadata, &out.ignoredTags))
                default:
                    try g.skip(wire)
                }
            }
        }
        return out
    }

    /// `Info { version = 1; timestamp = 2; changeset = 3; uid = 4; user_sid = 5; visible = 6 }`.
    static func info(_ bytes: UnsafeRawBufferPointer, _ table: StringTable, _ scale: BlockScale) throws(WireError) -> OSMMetadata {
        var m = OSMMetadata()
        var r = WireReader(bytes)
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .varint): m.version = Int32(truncatingIfNeeded: try r.readInt64())
            case (2, .varint): m.timestamp = scale.seconds(try r.readInt64())
            case (3, .varint): m.changeset = try r.readInt64()
            case (4, .varint): m.uid = Int32(truncatingIfNeeded: try r.readInt64())
            case (5, .varint): m.user = try table.string(try r.readVarint())
            case (6, .varint): m.visible = try r.readVarint() != 0
            default: try r.skip(wire)
            }
        }
        return m
    }

    /// Reads the packed `keys` and `vals` of a way, relation or node into tags.
    @inline(__always)
    static func tags(keys: UnsafeRawBufferPointer, values: UnsafeRawBufferPointer, _ table: StringTable, ignored: inout Int) throws(WireError) -> OSMTags {
        var tags = OSMTags()
        guard keys.count > 0 else { return tags }
        var k = WireReader(keys), v = WireReader(values)
        if table.holdsStrings { tags.reserveCapacity(WireReader.varintCount(keys)) }
        while !k.isAtEnd {
            try table.appendTag(key: try k.readVarint(), value: try v.readVarint(), to: &tags, ignored: &ignored)
        }
        return tags
    }

    /// The tags of one dense node: `keys_vals` index pairs up to the 0 that ends the node. The
    /// pairs are counted first so the tags take one allocation of the exact size (when the
    /// table holds no strings, they are only checked and counted, in one pass).
    @inline(__always)
    static func denseTags(_ kv: inout WireReader, _ table: StringTable, ignored: inout Int) throws(WireError) -> OSMTags {
        var tags = OSMTags()
        guard table.holdsStrings else {
            while case let key = try kv.readVarint(), key != 0 {
                try table.appendTag(key: key, value: try kv.readVarint(), to: &tags, ignored: &ignored)
            }
            return tags
        }
        var scan = kv
        var pairs = 0
        while try scan.readVarint() != 0 {
            _ = try scan.readVarint()
            pairs += 1
        }
        guard pairs > 0 else {
            kv = scan
            return tags
        }
        tags.reserveCapacity(pairs)
        for _ in 0..<pairs {
            try table.appendTag(key: try kv.readVarint(), value: try kv.readVarint(), to: &tags, ignored: &ignored)
        }
        kv = scan
        return tags
    }

    /// `Node { id = 1; keys = 2; vals = 3; info = 4; lat = 8; lon = 9 }` (non-dense nodes).
    static func node<Content>(_ bytes: UnsafeRawBufferPointer, _ table: StringTable, _ scale: BlockScale, _ includesMetadata: Bool, _ out: inout DecodedBlock<Content>) throws(WireError) {
        var r = WireReader(bytes)
        var id: Int64 = 0, lat: Int64 = 0, lon: Int64 = 0
        var keys = UnsafeRawBufferPointer(start: nil, count: 0), vals = keys
        var metadata: OSMMetadata?
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .varint): id = try r.readSignedVarint()
            case (2, .lengthDelimited): keys = try r.readBytes()
            case (3, .lengthDelimited): vals = try r.readBytes()
            case (4, .lengthDelimited):
                let b = try r.readBytes()
                if includesMetadata { metadata = try info(b, table, scale) }
            case (8, .varint): lat = try r.readSignedVarint()
            case (9, .varint): lon = try r.readSignedVarint()
            default: try r.skip(wire)
            }
        }
        let tags = try tags(keys: keys, values: vals, table, ignored: &out.ignoredTags)
        guard let (la, lo) = scale.fixed(lat: lat, lon: lon) else { out.rejectedNodes += 1; return }
        out.block.addNode(id: id, latitudeE7: la, longitudeE7: lo, tags: tags, metadata: metadata)
    }

    /// `DenseNodes { id = 1 (sint64, delta); denseinfo = 5; lat = 8, lon = 9 (sint64, delta);
    /// keys_vals = 10 (int32: key, value pairs, 0 ends a node) }`.
    static func denseNodes<Content>(_ bytes: UnsafeRawBufferPointer, _ table: StringTable, _ scale: BlockScale, _ includesMetadata: Bool, _ out: inout DecodedBlock<Content>) throws(WireError) {
        var r = WireReader(bytes)
        var idBytes = UnsafeRawBufferPointer(start: nil, count: 0), latBytes = idBytes, lonBytes = idBytes, kvBytes = idBytes, infoBytes = idBytes
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .lengthDelimited): idBytes = try r.readBytes()
            case (5, .lengthDelimited): infoBytes = try r.readBytes()
            case (8, .lengthDelimited): latBytes = try r.readBytes()
            case (9, .lengthDelimited): lonBytes = try r.readBytes()
            case (10, .lengthDelimited): kvBytes = try r.readBytes()
            default: try r.skip(wire)
            }
        }
        var ids = WireReader(idBytes), lats = WireReader(latBytes), lons = WireReader(lonBytes), kv = WireReader(kvBytes)
        let hasTags = kvBytes.count > 0

        // DenseInfo { version = 1; timestamp = 2 (delta); changeset = 3 (delta); uid = 4 (delta);
        // user_sid = 5 (delta); visible = 6 }, all packed.
        let withInfo = includesMetadata && infoBytes.count > 0
        var versions = WireReader(), times = WireReader(), changesets = WireReader(), uids = WireReader(), users = WireReader(), visibles = WireReader()
        if withInfo {
            var i = WireReader(infoBytes)
            while !i.isAtEnd {
                let (field, wire) = try i.readKey()
                switch (field, wire) {
                case (1, .lengthDelimited): versions = WireReader(try i.readBytes())
                case (2, .lengthDelimited): times = WireReader(try i.readBytes())
                case (3, .lengthDelimited): changesets = WireReader(try i.readBytes())
                case (4, .lengthDelimited): uids = WireReader(try i.readBytes())
                case (5, .lengthDelimited): users = WireReader(try i.readBytes())
                case (6, .lengthDelimited): visibles = WireReader(try i.readBytes())
                default: try i.skip(wire)
                }
            }
        }

        if Content.buildsElements { out.block.reserveNodeCapacity(WireReader.varintCount(idBytes)) }
        var id: Int64 = 0, lat: Int64 = 0, lon: Int64 = 0
        var time: Int64 = 0, changeset: Int64 = 0, uid: Int64 = 0, user: Int64 = 0
        while !ids.isAtEnd {
            id &+= try ids.readSignedVarint()
            lat &+= try lats.readSignedVarint()
            lon &+= try lons.readSignedVarint()
            let tags = hasTags ? try denseTags(&kv, table, ignored: &out.ignoredTags) : OSMTags()
            var metadata: OSMMetadata?
            if withInfo {
                var m = OSMMetadata()
                if !versions.isAtEnd { m.version = Int32(truncatingIfNeeded: try versions.readInt64()) }
                if !times.isAtEnd { time &+= try times.readSignedVarint(); m.timestamp = scale.seconds(time) }
                if !changesets.isAtEnd { changeset &+= try changesets.readSignedVarint(); m.changeset = changeset }
                if !uids.isAtEnd { uid &+= try uids.readSignedVarint(); m.uid = Int32(truncatingIfNeeded: uid) }
                if !users.isAtEnd {
                    user &+= try users.readSignedVarint()
                    guard user >= 0 else { throw WireError("negative user_sid") }
                    m.user = try table.string(UInt64(user))
                }
                if !visibles.isAtEnd { m.visible = try visibles.readVarint() != 0 }
                metadata = m
            }
            guard let (la, lo) = scale.fixed(lat: lat, lon: lon) else { out.rejectedNodes += 1; continue }
            out.block.addNode(id: id, latitudeE7: la, longitudeE7: lo, tags: tags, metadata: metadata)
        }
    }

    /// `Way { id = 1; keys = 2; vals = 3; info = 4; refs = 8 (sint64, delta); lat = 9; lon = 10 }`;
    /// the optional LocationsOnWays coordinates are skipped.
    static func way(_ bytes: UnsafeRawBufferPointer, _ table: StringTable, _ scale: BlockScale, _ includesMetadata: Bool, _ ignored: inout Int) throws(WireError) -> OSMWay {
        var r = WireReader(bytes)
        var id: Int64 = 0
        var keys = UnsafeRawBufferPointer(start: nil, count: 0), vals = keys, refBytes = keys
        var metadata: OSMMetadata?
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .varint): id = try r.readInt64()
            case (2, .lengthDelimited): keys = try r.readBytes()
            case (3, .lengthDelimited): vals = try r.readBytes()
            case (4, .lengthDelimited):
                let b = try r.readBytes()
                if includesMetadata { metadata = try info(b, table, scale) }
            case (8, .lengthDelimited): refBytes = try r.readBytes()
            default: try r.skip(wire)
            }
        }
        let tags = try tags(keys: keys, values: vals, table, ignored: &ignored)
        var refs: [Int64] = []
        var refReader = WireReader(refBytes)
        if table.holdsStrings {
            refs.reserveCapacity(WireReader.varintCount(refBytes))
            var ref: Int64 = 0
            while !refReader.isAtEnd {
                ref &+= try refReader.readSignedVarint()
                refs.append(ref)
            }
        } else {
            while !refReader.isAtEnd { _ = try refReader.readVarint() }
        }
        return OSMWay(id: id, nodeRefs: refs, tags: tags, metadata: metadata)
    }

    /// `Relation { id = 1; keys = 2; vals = 3; info = 4; roles_sid = 8; memids = 9 (sint64, delta);
    /// types = 10 (NODE = 0, WAY = 1, RELATION = 2) }`.
    static func relation(_ bytes: UnsafeRawBufferPointer, _ table: StringTable, _ scale: BlockScale, _ includesMetadata: Bool, _ ignored: inout Int) throws(WireError) -> OSMRelation {
        var r = WireReader(bytes)
        var id: Int64 = 0
        var keys = UnsafeRawBufferPointer(start: nil, count: 0), vals = keys, roleBytes = keys, idBytes = keys, typeBytes = keys
        var metadata: OSMMetadata?
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .varint): id = try r.readInt64()
            case (2, .lengthDelimited): keys = try r.readBytes()
            case (3, .lengthDelimited): vals = try r.readBytes()
            case (4, .lengthDelimited):
                let b = try r.readBytes()
                if includesMetadata { metadata = try info(b, table, scale) }
            case (8, .lengthDelimited): roleBytes = try r.readBytes()
            case (9, .lengthDelimited): idBytes = try r.readBytes()
            case (10, .lengthDelimited): typeBytes = try r.readBytes()
            default: try r.skip(wire)
            }
        }
        let tags = try tags(keys: keys, values: vals, table, ignored: &ignored)
        var members: [OSMMember] = []
        if table.holdsStrings { members.reserveCapacity(WireReader.varintCount(idBytes)) }
        var roles = WireReader(roleBytes), ids = WireReader(idBytes), types = WireReader(typeBytes)
        var ref: Int64 = 0
        while !ids.isAtEnd {
            ref &+= try ids.readSignedVarint()
            let role = try table.string(UInt64(truncatingIfNeeded: try roles.readInt64()))
            let rawType = try types.readVarint()
            guard rawType <= 2, let type = OSMElementType(rawValue: UInt8(rawType)) else {
                throw WireError("relation \(id) has member type \(rawType)")
            }
            if table.holdsStrings { members.append(OSMMember(type: type, ref: ref, role: role)) }
        }
        return OSMRelation(id: id, members: members, tags: tags, metadata: metadata)
    }
}
