public import GeoBase
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the lines of a file descriptor synchronously, in reads of up to `capacity` bytes, with
/// no allocation per line: the engine of line-oriented batch commands (`geo distance --batch`).
/// Memory is the one buffer, whatever the input's size.
public enum LineReader {
    /// Calls `body` with each line's bytes (without its `\n`, and without a `\r` before it) and
    /// its 1-based number, in order; a last line without a newline is a line too. `body`
    /// returns false to stop reading (its output is gone, say).
    /// - Returns: the number of lines handed to `body`.
    /// - Throws: `SystemIOError` for a failed read (`EINTR` is retried) and `.lineTooLong`
    ///   for a line of `capacity` bytes or more, naming its number; the lines before it were
    ///   handed over.
    public static func forEachLine(of descriptor: FileDescriptor, capacity: Int = 1 << 20,
                                   _ body: (UnsafeBufferPointer<UInt8>, _ number: Int) -> Bool) throws(SystemIOError) -> Int {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var filled = 0, line = 0, atEnd = false
        while !atEnd {
            let n = read(descriptor.rawValue, buffer + filled, capacity - filled)
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemIOError.last("cannot read line \(line + 1) of")
            }
            if n == 0 { atEnd = true } else { filled += n }
            var start = 0
            while start < filled {
                let end: Int
                if let newline = memchr(buffer + start, Int32(UInt8(ascii: "\n")), filled - start) {
                    end = buffer.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                } else if atEnd {
                    end = filled
                } else {
                    break
                }
                line += 1
                var count = end - start
                if count > 0, buffer[start + count - 1] == UInt8(ascii: "\r") { count -= 1 }
                guard body(UnsafeBufferPointer(start: buffer + start, count: count), line) else { return line }
                start = end + 1
            }
            if start >= filled {
                filled = 0
            } else if start > 0 {
                memmove(buffer, buffer + start, filled - start)
                filled -= start
            } else if filled == capacity {
                throw SystemIOError(.lineTooLong, "line \(line + 1) is longer than \(capacity) bytes in")
            }
        }
        return line
    }
}

extension ErrorCode where Domain == SystemIOError {
    /// A line longer than the reader's buffer (`LineReader`).
    public static var lineTooLong: Self { Self("line too long") }
}
