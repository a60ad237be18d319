public import GeoBase
import GeoCore

/// The one error type of GPXCodec (STYLE.md §3.7): a growable `Code`, a message, and where
/// in the input it happened.
///
/// `line` and `column` are 1-based; `column` counts bytes (UTF-8 code units) from the start
/// of the line. `offset` is the 0-based byte offset from the start of the input (a byte-order
/// mark counts).
public struct GPXError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<GPXError>

    public var code: Code
    public var message: String
    /// 1-based line of the problem.
    public var line: Int
    /// 1-based column, in bytes from the start of the line.
    public var column: Int
    /// 0-based byte offset from the start of the input.
    public var offset: Int
    /// The byte source's own error, for `.io`.
    public var underlying: String?

    public init(_ code: Code, _ message: String, line: Int, column: Int, offset: Int, underlying: String? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
        self.underlying = underlying
    }

    public var description: String { "\(line):\(column): \(code): \(message)" }
}

extension ErrorCode where Domain == GPXError {
    /// The input ends before the document does (a cut-off or crashed writer's file).
    /// The location is where the damage starts: the first byte whose content could not be
    /// recovered (the start of the unfinished point or tag), or the end of the input.
    public static var truncated: Self { Self("truncated") }
    /// The bytes are not well-formed XML (mismatched tags, bad entity, stray `<`, …).
    public static var malformedXML: Self { Self("malformed XML") }
    /// Well-formed XML whose root element is not `<gpx>`.
    public static var notGPX: Self { Self("not GPX") }
    /// A byte-order mark or declaration naming an encoding other than UTF-8 / ASCII.
    public static var unsupportedEncoding: Self { Self("unsupported encoding") }
    /// The byte source failed; `underlying` holds its error.
    public static var io: Self { Self("I/O error") }
}
