public import GeoBase

/// A descriptor read as a byte source for the codecs' streaming readers (`GPXStreamReader`,
/// `GPXReader`).
public struct FileSource: ByteSource, Sendable {
    /// The descriptor read from; the source does not close it.
    public let descriptor: FileDescriptor
    /// The file's path, named in errors.
    public let path: String?
    private var offset: Int64?

    /// Reads `descriptor` from its current position on (files, pipes, standard input).
    public init(_ descriptor: FileDescriptor, path: String? = nil) {
        self.descriptor = descriptor
        self.path = path
        offset = nil
    }

    /// Reads a file from `offset` on with `pread(2)`, whatever its position (which is left alone).
    public init(_ descriptor: FileDescriptor, path: String? = nil, fromOffset offset: Int64) {
        self.descriptor = descriptor
        self.path = path
        self.offset = offset
    }

    /// Copies up to `buffer.count` bytes into `buffer`; 0 at the end.
    /// - Throws: `SystemIOError` carrying `path`.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemIOError) -> Int {
        do {
            guard let position = offset else { return try descriptor.read(into: buffer) }
            let n = try descriptor.read(into: buffer, atOffset: position)
            offset = position + Int64(n)
            return n
        } catch {
            throw error.about(path)
        }
    }
}

/// A descriptor written as a byte sink for the codecs' writers (`GPXStreamWriter`), every
/// byte handed to the operating system before `write` returns.
public struct FileSink: ByteSink, Sendable {
    /// The descriptor written to; the sink does not close it.
    public let descriptor: FileDescriptor
    /// The file's path, named in errors.
    public let path: String?

    public init(_ descriptor: FileDescriptor, path: String? = nil) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Writes all of `bytes` (see `FileDescriptor.writeAll`).
    /// - Throws: `SystemIOError` (`.noSpace`, `.brokenPipe`, `.ioFailure` …) carrying `path`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemIOError) {
        do { try descriptor.writeAll(bytes) } catch { throw error.about(path) }
    }

    /// Writes the UTF-8 of `text`.
    public func write(_ text: String) throws(SystemIOError) {
        do { try descriptor.writeAll(text) } catch { throw error.about(path) }
    }
}
