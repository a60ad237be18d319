public import GeoBase

/// The domain of `GPXError`'s codes.
public enum GPXErrorDomain {}

/// The one error type of GPXCodec (STYLE.md §3.7): a growable `Code`, a message, and where
/// in the input it happened (`PositionedError`: 1-based line and byte column, 0-based byte
/// offset, a byte-order mark counting); `underlying` is the byte source's error as text, for `.io`.
public typealias GPXError = PositionedError<GPXErrorDomain, String>

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
