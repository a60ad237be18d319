/// The one error type of GPXCodec (STYLE.md §3.7): a growable `Code`, a message, and where
/// in the input it happened.
///
/// `line` and `column` are 1-based; `column` counts bytes (UTF-8 code units) from the start
/// of the line. `offset` is the 0-based byte offset from the start of the input (a byte-order
/// mark counts).
public struct GPXError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; a struct over a private enum so new cases do not break clients.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case truncated, malformedXML, notGPX, missingAttribute, invalidValue, unsupportedEncoding, io
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The input ends before the document does (a cut-off or crashed writer's file).
        /// The location is where the damage starts: the first byte whose content could not be
        /// recovered (the start of the unfinished point or tag), or the end of the input.
        public static let truncated = Code(.truncated)
        /// The bytes are not well-formed XML (mismatched tags, bad entity, stray `<`, …).
        public static let malformedXML = Code(.malformedXML)
        /// Well-formed XML whose root element is not `<gpx>`.
        public static let notGPX = Code(.notGPX)
        /// A required attribute (`lat`, `lon`, `href`, …) is absent.
        public static let missingAttribute = Code(.missingAttribute)
        /// A number, time, coordinate or enumeration value that cannot be read.
        public static let invalidValue = Code(.invalidValue)
        /// A byte-order mark or declaration naming an encoding other than UTF-8 / ASCII.
        public static let unsupportedEncoding = Code(.unsupportedEncoding)
        /// The byte source failed; `underlying` holds its error.
        public static let io = Code(.io)

        public var description: String {
            switch value {
            case .truncated: "truncated"
            case .malformedXML: "malformed XML"
            case .notGPX: "not GPX"
            case .missingAttribute: "missing attribute"
            case .invalidValue: "invalid value"
            case .unsupportedEncoding: "unsupported encoding"
            case .io: "I/O error"
            }
        }
    }

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
