public import Foundation
import Dispatch
import GeoCore
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
