/// The one error type of ZlibCompression (STYLE.md §3.7).
public struct CompressionError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; a struct over a private enum so new cases do not break clients.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case corrupt, truncated, sizeMismatch, invalidArgument, outOfMemory
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The input is not a valid zlib / gzip stream (bad header, checksum or data;
        /// zlib's `Z_DATA_ERROR`).
        public static let corrupt = Code(.corrupt)
        /// The input ends before the stream's end marker.
        public static let truncated = Code(.truncated)
        /// The stream inflated to a different size than the caller said it would.
        public static let sizeMismatch = Code(.sizeMismatch)
        /// A parameter is out of range (a negative size, a level outside 0…9).
        public static let invalidArgument = Code(.invalidArgument)
        /// zlib could not allocate its state (`Z_MEM_ERROR`).
        public static let outOfMemory = Code(.outOfMemory)

        public var description: String {
            switch value {
            case .corrupt: "corrupt data"
            case .truncated: "truncated data"
            case .sizeMismatch: "size mismatch"
            case .invalidArgument: "invalid argument"
            case .outOfMemory: "out of memory"
            }
        }
    }

    public var code: Code
    public var message: String
    /// The zlib return code (`Z_DATA_ERROR` …), when zlib reported the error.
    public var zlibStatus: Int32?

    public init(_ code: Code, _ message: String, zlibStatus: Int32? = nil) {
        self.code = code
        self.message = message
        self.zlibStatus = zlibStatus
    }

    public var description: String {
        zlibStatus.map { "\(code): \(message) (zlib status \($0))" } ?? "\(code): \(message)"
    }
}
