public import GPXCodec

/// A descriptor read as a byte source for the codecs' streaming readers (`GPXStreamReader`,
/// `GPXReader`).
public struct FileSource: GPXByteSource, Sendable {
    /// The descriptor read from; the source does not close it.
    public let descriptor: FileDescriptor
    private var offset: Int64?

    /// Reads `descriptor` from its current position on (files, pipes, standard input).
    public init(_ descriptor: FileDescriptor) {
        self.descriptor = descriptor
        offset = nil
    }

    /// Reads a file from `offset` on with `pread(2)`, whatever its position (which is left alone).
    public init(_ descriptor: FileDescriptor, fromOffset offset: Int64) {
        self.descriptor = descriptor
        self.offset = offset
    }

    /// Copies up to `buffer.count` bytes into `buffer`; 0 at the end.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemIOError) -> Int {
        guard let position = offset else { return try descriptor.read(into: buffer) }
        let n = try descriptor.read(into: buffer, atOffset: position)
        offset = position + Int64(n)
        return n
    }
}

/// A descriptor written as a byte sink for the codecs' writers (`GPXStreamWriter`), every
/// byte handed to the operating system before `write` returns.
public struct FileSink: GPXByteSink, Sendable {
    /// The descriptor written to; the sink does not close it.
    public let descriptor: FileDescriptor

    public init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

    /// Writes all of `bytes` (see `FileDescriptor.writeAll`).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemIOError) {
        try descriptor.writeAll(bytes)
    }

    /// Writes the UTF-8 of `text`.
    public func write(_ text: String) throws(SystemIOError) {
        try descriptor.writeAll(text)
    }
}
