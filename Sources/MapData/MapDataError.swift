public import GeoBase
import GeoCore

/// The one error type of MapData (STYLE.md §3.7): a growable code, a message, and where it
/// happened: a layer and feature of a vector tile, or a byte offset in an archive.
public struct MapDataError: Error, Hashable, Sendable, CustomStringConvertible {
    public typealias Code = ErrorCode<MapDataError>

    public var code: Code
    public var message: String
    /// The layer (index in the tile) at fault, when known.
    public var layer: Int?
    /// The feature (index in its layer) at fault, when known.
    public var feature: Int?
    /// The byte offset at fault in an archive or tile, when known.
    public var offset: Int?

    public init(_ code: Code, _ message: String, layer: Int? = nil, feature: Int? = nil, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.layer = layer
        self.feature = feature
        self.offset = offset
    }

    public var description: String {
        var s = "\(code): \(message)"
        if let layer { s += " (layer \(layer)" + (feature.map { ", feature \($0)" } ?? "") + ")" }
        if let offset { s += " at byte offset \(offset)" }
        return s
    }
}

extension ErrorCode where Domain == MapDataError {
    /// A vector tile that breaks MVT 2.1: bad protobuf, a missing or mistyped field, an index
    /// out of range, duplicate layer names, an absurd extent.
    public static var invalidTile: Self { Self("invalid vector tile") }
    /// Feature geometry that breaks MVT 2.1 §4.3: an unknown command, a wrong count, missing
    /// parameters, an unclosed ring.
    public static var invalidGeometry: Self { Self("invalid vector tile geometry") }
    /// A PMTiles or MBTiles archive that does not decode: bad magic, bad directory, a tile
    /// outside the file.
    public static var invalidArchive: Self { Self("invalid tile archive") }
    /// The input ends before a structure it declares.
    public static var truncated: Self { Self("truncated input") }
    /// Something this implementation does not support (a compression, a spec version).
    public static var unsupported: Self { Self("unsupported") }
    /// OSM elements out of the order the reader needs (a node after the ways).
    public static var unsorted: Self { Self("unsorted input") }
    /// Data larger than its format allows or its reader's stated limit (a gzip tile that
    /// inflates past `VectorTile.defaultInflateLimit`: a decompression bomb).
    public static var tooLarge: Self { Self("too large") }
    /// An argument outside its range (a zoom level, a tile address).
    public static var invalidArgument: Self { Self("invalid argument") }
}
