public import GeoBase
import GeoCore

/// The one error type of TileArchives (STYLE.md §3.7): a growable code, a message, and the
/// archive file at fault. Errors of the formats themselves (a PMTiles directory that does not
/// decode, a tile out of order) are MapData's `MapDataError`, thrown through as they are.
public struct TileArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    public typealias Code = ErrorCode<TileArchiveError>

    public var code: Code
    public var message: String
    /// The archive (or its temporary file) at fault.
    public var path: String

    public init(_ code: Code, _ message: String, path: String) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { "\(code): \(path): \(message)" }
}

extension ErrorCode where Domain == TileArchiveError {
    /// A file that is not the archive it should be: SQLite refuses it, the MBTiles tables are
    /// missing, a row is out of range.
    public static var invalidArchive: Self { Self("invalid tile archive") }
    /// A damaged or cut file: SQLite reports corruption, a temporary file ends early.
    public static var truncated: Self { Self("truncated archive") }
    /// More than the format or its writer holds (`MBTilesWriter.maximumTiles`).
    public static var tooLarge: Self { Self("too large") }
    /// An argument outside its range: a tile address off the grid, an MBTiles path that is
    /// not a regular file.
    public static var invalidArgument: Self { Self("invalid argument") }
}
