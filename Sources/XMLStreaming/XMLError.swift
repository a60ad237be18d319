public import GeoBase

/// The one error type of XMLStreaming (STYLE.md §3.7): a growable `Code`, a message, and where
/// in the input it happened. Format readers map it onto their own error (`GPXError`, `OSMError`).
///
/// `line` and `column` are 1-based; `column` counts bytes (UTF-8 code units) from the start
/// of the line. `offset` is the 0-based byte offset from the start of the input.
public struct XMLError: Error, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<XMLError>

    public var code: Code
    public var message: String
    /// 1-based line of the problem.
    public var line: Int
    /// 1-based column, in bytes from the start of the line.
    public var column: Int
    /// 0-based byte offset from the start of the input.
    public var offset: Int
    /// The byte source's own error, for `.io`.
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, line: Int, column: Int, offset: Int, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
        self.underlying = underlying
    }

    public var description: String { "\(line):\(column): \(code): \(message)" }
}

extension ErrorCode where Domain == XMLError {
    /// The input ends inside a token or with elements still open. The location is the
    /// start of the unfinished token, or the end of the input.
    public static var truncated: Self { Self("truncated") }
    /// The bytes are not well-formed XML (mismatched tags, bad entity, stray `<`, …).
    public static var malformed: Self { Self("malformed XML") }
    /// UTF-16 or UTF-32 input (a byte-order mark or a zero byte at the start); the scanner
    /// reads UTF-8 only.
    public static var unsupportedEncoding: Self { Self("unsupported encoding") }
    /// One token is longer than the scanner's window may grow (`XMLScanner.maximumCapacity`).
    public static var tooLarge: Self { Self("token too large") }
    /// The byte source threw; `underlying` holds its error.
    public static var io: Self { Self("I/O error") }
}
