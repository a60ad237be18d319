public import GeoBase

/// The domain of `XMLError`'s codes.
public enum XMLErrorDomain {}

/// The one error type of XMLStreaming (STYLE.md §3.7): a growable `Code`, a message, and where
/// in the input it happened (`PositionedError`: 1-based line and byte column, 0-based byte
/// offset); `underlying` is the byte source's own error, for `.io`. Format readers map it onto
/// their own error (`GPXError`, `OSMError`).
public typealias XMLError = PositionedError<XMLErrorDomain, any Error>

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
