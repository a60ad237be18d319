public import GeoBase
import GeoCore

/// The one error type of NMEACodec (STYLE.md §3.7): a growable `Code`, a message, and where
/// in the input the problem is.
public struct NMEAError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<NMEAError>

    public var code: Code
    public var message: String
    /// 1-based line of the input, when known.
    public var line: Int?
    /// 1-based column (byte) within the line, when known.
    public var column: Int?
    /// 0-based byte offset from the start of the stream, when known.
    public var offset: Int?

    public init(_ code: Code, _ message: String, line: Int? = nil, column: Int? = nil, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
    }

    public var description: String {
        var s = "\(code): \(message)"
        if let line { s += " (line \(line)" + (column.map { ", column \($0)" } ?? "") + ")" }
        return s
    }
}

extension ErrorCode where Domain == NMEAError {
    /// The `*HH` checksum does not match the XOR of the sentence body.
    public static var badChecksum: Self { Self("bad checksum") }
    /// The sentence has no `*HH` checksum and the caller did not opt in to accept that.
    public static var missingChecksum: Self { Self("missing checksum") }
    /// A field is missing or does not parse (wrong field count, bad number, bad time).
    public static var malformedSentence: Self { Self("malformed sentence") }
    /// A line longer than the scanner's bound; it is dropped up to the next line end.
    public static var overlongLine: Self { Self("overlong line") }
    /// A non-printable byte inside a sentence; the sentence is dropped.
    public static var binaryNoise: Self { Self("binary noise") }
    /// A gpsd JSON object that does not follow the gpsd protocol.
    public static var invalidJSON: Self { Self("invalid gpsd JSON") }
    /// A `Location` that cannot be encoded (for example a NaN field).
    public static var invalidLocation: Self { Self("invalid location") }
}
