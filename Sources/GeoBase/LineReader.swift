import Platform

/// Reads the lines of a byte source in reads of up to `capacity` bytes, with no allocation per
/// line: the engine of line-oriented batch input (`geo distance --batch`). Memory is the one
/// buffer, whatever the input's size.
public enum LineReader {
    /// Calls `body` with each line's bytes (without its `\n`, and without a `\r` before it) and
    /// its 1-based number, in order; a last line without a newline is a line too. `body`
    /// returns false to stop reading (its output is gone, say).
    /// - Returns: the number of lines handed to `body`.
    /// - Throws: `LineReadError` naming the line being read: `.lineTooLong` for a line of
    ///   `capacity` bytes or more, `.readFailed` with the source's error; the lines before it
    ///   were handed over.
    /// - Complexity: O(bytes of the source).
    public static func forEachLine(of source: inout some ByteSource, capacity: Int = 1 << 20,
                                   _ body: (UnsafeBufferPointer<UInt8>, _ number: Int) -> Bool) throws(LineReadError) -> Int {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var filled = 0, line = 0, atEnd = false
        while !atEnd {
            let n: Int
            do { n = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: capacity - filled)) } catch {
                throw LineReadError(.readFailed, line: line + 1, capacity: capacity, underlying: error)
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
                throw LineReadError(.lineTooLong, line: line + 1, capacity: capacity)
            }
        }
        return line
    }
}

/// A line read that stopped (``LineReader``): the line being read, and why.
public struct LineReadError: Error, CustomStringConvertible {
    public typealias Code = ErrorCode<LineReadError>

    public var code: Code
    /// The 1-based number of the line being read.
    public var line: Int
    /// The reader's buffer, bytes: a line must be shorter.
    public var capacity: Int
    /// The source's error, for `.readFailed`.
    public var underlying: (any Error)?

    public init(_ code: Code, line: Int, capacity: Int, underlying: (any Error)? = nil) {
        self.code = code
        self.line = line
        self.capacity = capacity
        self.underlying = underlying
    }

    /// "line 7 is longer than 1048576 bytes", "cannot read line 7: …".
    public var description: String {
        if code == .lineTooLong { return "line \(line) is longer than \(capacity) bytes" }
        return "cannot read line \(line)" + (underlying.map { ": \($0)" } ?? "")
    }
}

extension ErrorCode where Domain == LineReadError {
    /// A line of the reader's capacity or more.
    public static var lineTooLong: Self { Self("line too long") }
    /// The source's read failed.
    public static var readFailed: Self { Self("read failed") }
}
