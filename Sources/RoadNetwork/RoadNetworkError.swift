/// The one error type of RoadNetwork (STYLE.md §3.7): a growable `Code`, a message, and the
/// byte offset in a graph file where the problem was found (when it comes from decoding).
public struct RoadNetworkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; a struct over a private enum so new cases do not break clients.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case badMagic, unsupportedVersion, checksumMismatch, truncated, corrupt, invalidInput
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The bytes do not start with the graph file magic `LKRG`.
        public static let badMagic = Code(.badMagic)
        /// The file was written by a format version this build cannot read.
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// The payload's CRC-32 does not match the header.
        public static let checksumMismatch = Code(.checksumMismatch)
        /// The file ends before the header or a section says it should.
        public static let truncated = Code(.truncated)
        /// The checksum matched but the content breaks an invariant (an index out of range).
        public static let corrupt = Code(.corrupt)
        /// Builder input that cannot form a graph (for example a way with one node).
        public static let invalidInput = Code(.invalidInput)

        public var description: String {
            switch value {
            case .badMagic: "bad magic"
            case .unsupportedVersion: "unsupported version"
            case .checksumMismatch: "checksum mismatch"
            case .truncated: "truncated"
            case .corrupt: "corrupt"
            case .invalidInput: "invalid input"
            }
        }
    }

    public var code: Code
    public var message: String
    /// Byte offset into the graph file, when the error comes from decoding one.
    public var offset: Int?

    public init(_ code: Code, _ message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    public var description: String {
        if let offset { return "\(code) at byte \(offset): \(message)" }
        return "\(code): \(message)"
    }
}
