/// The one error type of OSMImport (STYLE.md §3.7): a growable `Code`, a message, and where
/// in the input it happened.
///
/// For `.osm.pbf` input `offset` is the byte offset of the start of the bad file block
/// (the 4-byte length that precedes its `BlobHeader`); for XML it is the byte offset in the
/// (decompressed) text, with `line` and `column` (1-based) as well.
public struct OSMError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; a struct over a private enum so new cases do not break clients.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case io, truncated, corrupted, unsupportedCompression, unsupportedFeature, invalidXML, invalidArgument
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The file could not be opened, read or written.
        public static let io = Code(.io)
        /// The input ends inside a block (a cut download).
        public static let truncated = Code(.truncated)
        /// A block does not decode: bad protobuf, bad zlib stream, an index out of range.
        public static let corrupted = Code(.corrupted)
        /// A blob compressed with something other than zlib (lzma, lz4, zstd, bzip2).
        public static let unsupportedCompression = Code(.unsupportedCompression)
        /// The header lists a required feature this reader does not implement.
        public static let unsupportedFeature = Code(.unsupportedFeature)
        /// OSM XML that is not well formed or not OSM.
        public static let invalidXML = Code(.invalidXML)
        /// A value handed to the writer that cannot be encoded.
        public static let invalidArgument = Code(.invalidArgument)

        public var description: String {
            switch value {
            case .io: "I/O error"
            case .truncated: "truncated input"
            case .corrupted: "corrupted block"
            case .unsupportedCompression: "unsupported compression"
            case .unsupportedFeature: "unsupported feature"
            case .invalidXML: "invalid OSM XML"
            case .invalidArgument: "invalid argument"
            }
        }
    }

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
