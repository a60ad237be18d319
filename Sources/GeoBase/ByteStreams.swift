/// Where a streaming reader gets its bytes: a file, a socket, memory, a decompressor.
///
/// The codecs are pure (DESIGN.md §2): they never open files. SystemIO's file and descriptor
/// types conform to this protocol; memory is served by ``MemorySource``.
public protocol ByteSource {
    /// Copies up to `buffer.count` bytes into `buffer` and returns how many; 0 means the end.
    /// - Throws: whatever the underlying I/O throws; a reader reports it as its own I/O error
    ///   with the error as its cause.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int

    /// The rest of the source as bytes that stay in place, for a decoder that keeps views into
    /// them instead of copying (a regular file mapped read-only); the source is then at its
    /// end. Nil where the source has no such bytes (pipes, sockets, devices, memory): read it.
    /// - Throws: what mapping throws.
    mutating func mapRemaining() throws -> (any StableBytes)?
}

/// Bytes that stay where they are and unchanged while the object lives (a read-only mapping of
/// a file), so a decoder may keep views into them instead of copies.
public protocol StableBytes: AnyObject, Sendable {
    var bytes: UnsafeRawBufferPointer { get }
}

extension ByteSource {
    /// None: the default for sources whose bytes only arrive by reading.
    public mutating func mapRemaining() throws -> (any StableBytes)? { nil }

    /// Reads to the end, handing each chunk of up to 64 KiB to `body` (one buffer, reused).
    /// - Throws: what `read(into:)` or `body` throws.
    public mutating func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try read(into: $0) }
            if n == 0 { return }
            try chunk.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
    }

    /// Reads until the end or `limit` bytes, whichever comes first, 64 KiB at a time: memory
    /// follows what the source holds, never `limit` (a size a header announces), and a stream
    /// without end (`/dev/zero`) stops at `limit`.
    /// - Throws: what `read(into:)` throws.
    public mutating func read(upTo limit: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(1 << 16, max(limit, 0)))
        while bytes.count < limit {
            let want = min(chunk.count, limit - bytes.count)
            let n = try chunk.withUnsafeMutableBytes { try read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want])) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }
}

/// Where a streaming writer puts its bytes: a file, a socket, memory.
public protocol ByteSink {
    /// Writes all of `bytes`.
    /// - Throws: whatever the underlying I/O throws.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
}

extension ByteSink {
    /// Writes the UTF-8 of `text`.
    /// - Throws: whatever the underlying I/O throws.
    public mutating func write(text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }
}

/// Bytes held in memory, served in order.
public struct MemorySource: ByteSource, Sendable {
    private let bytes: [UInt8]
    private var position = 0

    /// Wraps the bytes (copied into an array once).
    public init(_ bytes: some Sequence<UInt8>) {
        self.bytes = Array(bytes)
    }

    /// Wraps the UTF-8 of a string.
    public init(string: String) {
        self.bytes = Array(string.utf8)
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(buffer.count, bytes.count - position)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { src in
            buffer.baseAddress?.copyMemory(from: src.baseAddress! + position, byteCount: n)
        }
        position += n
        return n
    }
}

/// Collects written bytes in memory.
public struct MemorySink: ByteSink, Sendable {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
    }
}
