public import GeoBase
import GeoCore

/// The one error type of OSMImport (STYLE.md §3.7): a growable `Code`, a message, and where
/// in the input it happened.
///
/// For `.osm.pbf` input `offset` is the byte offset of the start of the bad file block
/// (the 4-byte length that precedes its `BlobHeader`); for XML it is the byte offset in the
/// (decompressed) text, with `line` and `column` (1-based) as well.
public struct OSMError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<OSMError>

    public var code: Code
    public var message: String
    /// Byte offset of the bad block (PBF) or of the bad character (XML), when known.
    public var offset: Int?
    /// 1-based line in XML input, when known.
    public var line: Int?
    /// 1-based column (in bytes) in XML input, when known.
    public var column: Int?

    public init(_ code: Code, _ message: String, offset: Int? = nil, line: Int? = nil, column: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
    }

    public var description: String {
        var s = "\(code): \(message)"
        if let line, let column { s += " (line \(line), column \(column))" }
        if let offset { s += " at byte offset \(offset)" }
        return s
    }
}

extension ErrorCode where Domain == OSMError {
    /// The file could not be opened, read or written.
    public static var io: Self { Self("I/O error") }
    /// The input ends inside a block (a cut download).
    public static var truncated: Self { Self("truncated input") }
    /// A block does not decode: bad protobuf, bad zlib stream, an index out of range.
    public static var corrupted: Self { Self("corrupted block") }
    /// A blob compressed with something other than zlib (lzma, lz4, zstd, bzip2).
    public static var unsupportedCompression: Self { Self("unsupported compression") }
    /// The header lists a required feature this reader does not implement.
    public static var unsupportedFeature: Self { Self("unsupported feature") }
    /// OSM XML that is not well formed or not OSM.
    public static var invalidXML: Self { Self("invalid OSM XML") }
    /// A value handed to the writer that cannot be encoded.
    public static var invalidArgument: Self { Self("invalid argument") }
}
