/// The one error type of NMEACodec (STYLE.md §3.7): a growable `Code`, a message, and where
/// in the input the problem is.
public struct NMEAError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; a struct over a private enum so new cases do not break clients.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case badChecksum, missingChecksum, malformedSentence
            case overlongLine, binaryNoise, invalidJSON, invalidLocation
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The `*HH` checksum does not match the XOR of the sentence body.
        public static let badChecksum = Code(.badChecksum)
        /// The sentence has no `*HH` checksum and the caller did not opt in to accept that.
        public static let missingChecksum = Code(.missingChecksum)
        /// A field is missing or does not parse (wrong field count, bad number, bad time).
        public static let malformedSentence = Code(.malformedSentence)
        /// A line longer than the scanner's bound; it is dropped up to the next line end.
        public static let overlongLine = Code(.overlongLine)
        /// A non-printable byte inside a sentence; the sentence is dropped.
        public static let binaryNoise = Code(.binaryNoise)
        /// A gpsd JSON object that does not follow the gpsd protocol.
        public static let invalidJSON = Code(.invalidJSON)
        /// A `Location` that cannot be encoded (for example a NaN field).
        public static let invalidLocation = Code(.invalidLocation)

        public var description: String {
            switch value {
            case .badChecksum: "bad checksum"
            case .missingChecksum: "missing checksum"
            case .malformedSentence: "malformed sentence"
            case .overlongLine: "overlong line"
            case .binaryNoise: "binary noise"
            case .invalidJSON: "invalid gpsd JSON"
            case .invalidLocation: "invalid location"
            }
        }
    }

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
