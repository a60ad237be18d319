public import GeoBase
import Platform

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

    /// A regular file's bytes from the source's position to its end, mapped read-only
    /// (`MappedFile`); nil for pipes, sockets and devices. The source is left at the end.
    /// - Throws: `SystemIOError` carrying `path` when `fstat`, `lseek` or `mmap` fails.
    public mutating func mapRemaining() throws(SystemIOError) -> (any StableBytes)? {
        do throws(SystemIOError) {
            var status = stat()
            guard fstat(descriptor.rawValue, &status) == 0 else { throw SystemIOError.last("fstat failed") }
            guard status.st_mode & S_IFMT == S_IFREG else { return nil }
            let start: Int64
            if let offset { start = offset } else {
                start = Int64(lseek(descriptor.rawValue, 0, SEEK_CUR))
                guard start >= 0 else { throw SystemIOError.last("lseek failed") }
            }
            let mapped = try MappedFile(descriptor, from: start, to: Int64(status.st_size))
            if offset != nil { offset = Int64(status.st_size) } else { lseek(descriptor.rawValue, 0, SEEK_END) }
            return mapped
        } catch {
            throw error.about(path)
        }
    }
}

/// A file's bytes mapped read-only (`mmap(2)`, `MAP_PRIVATE`), unmapped when the last reference
/// goes. The file must not be truncated while mapped (reading a page past its new end raises
/// SIGBUS): the project's writers replace files by renaming a new one over them
/// (`AtomicFileReplacement`), which leaves a mapping of the old file intact.
public final class MappedFile: StableBytes, @unchecked Sendable {  // immutable; its pages read-only
    public let bytes: UnsafeRawBufferPointer
    private let mapping: UnsafeMutableRawPointer?
    private let mappedLength: Int

    /// Maps bytes `start ..< end` of the file open on `descriptor` (the descriptor may be
    /// closed afterwards).
    /// - Throws: `SystemIOError` when `mmap` fails.
    public init(_ descriptor: FileDescriptor, from start: Int64, to end: Int64) throws(SystemIOError) {
        let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let first = start / page * page
        let length = Int(max(end - first, 0))
        guard end > start else {
            (mapping, mappedLength, bytes) = (nil, 0, UnsafeRawBufferPointer(start: nil, count: 0))
            return
        }
        guard let base = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor.rawValue, off_t(first)),
              base != MAP_FAILED else {
            throw SystemIOError.last("mmap failed")
        }
        (mapping, mappedLength) = (base, length)
        bytes = UnsafeRawBufferPointer(start: base + Int(start - first), count: Int(end - start))
    }

    deinit { if let mapping { munmap(mapping, mappedLength) } }
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
