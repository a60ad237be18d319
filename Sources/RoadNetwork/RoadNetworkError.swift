public import GeoBase
import GeoCore

/// The one error type of RoadNetwork (STYLE.md §3.7): a growable `Code`, a message, and the
/// byte offset in a graph file where the problem was found (when it comes from decoding).
public struct RoadNetworkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<RoadNetworkError>

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

extension ErrorCode where Domain == RoadNetworkError {
    /// The bytes do not start with the graph file magic `LKRG`.
    public static var badMagic: Self { Self("bad magic") }
    /// The file was written by a format version this build cannot read.
    public static var unsupportedVersion: Self { Self("unsupported version") }
    /// The payload's CRC-32 does not match the header.
    public static var checksumMismatch: Self { Self("checksum mismatch") }
    /// The file ends before the header or a section says it should.
    public static var truncated: Self { Self("truncated") }
    /// The checksum matched but the content breaks an invariant (an index out of range).
    public static var corrupt: Self { Self("corrupt") }
    /// Builder input that cannot form a graph (for example a way with one node).
    public static var invalidInput: Self { Self("invalid input") }
}
