public import GeoBase

/// The one error type of ZlibCompression (STYLE.md §3.7).
public struct CompressionError: Error, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<CompressionError>

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

extension ErrorCode where Domain == CompressionError {
    /// The input is not a valid zlib / gzip stream (bad header, checksum or data;
    /// zlib's `Z_DATA_ERROR`).
    public static var corrupt: Self { Self("corrupt data") }
    /// The input ends before the stream's end marker.
    public static var truncated: Self { Self("truncated data") }
    /// The stream inflated to a different size than the caller said it would.
    public static var sizeMismatch: Self { Self("size mismatch") }
    /// The stream inflates past the limit its caller stated (`Inflater.limit`): a
    /// decompression bomb, or data larger than its format allows.
    public static var tooLarge: Self { Self("too large") }
    /// A parameter is out of range (a negative size, a level outside 0…9).
    public static var invalidArgument: Self { Self("invalid argument") }
    /// zlib could not allocate its state (`Z_MEM_ERROR`).
    public static var outOfMemory: Self { Self("out of memory") }
}
