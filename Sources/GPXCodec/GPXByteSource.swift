/// Where the streaming reader gets its bytes: a file, a socket, memory.
///
/// GPXCodec is pure (DESIGN.md §2): it never opens files itself. An I/O layer conforms its
/// file handle to this protocol; memory is served by `GPXMemorySource`.
public protocol GPXByteSource {
    /// Copies up to `buffer.count` bytes into `buffer` and returns how many; 0 means the end.
    /// - Throws: whatever the underlying I/O throws; the reader reports it as `GPXError.Code.io`.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Bytes held in memory, served in order.
public struct GPXMemorySource: GPXByteSource, Sendable {
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
