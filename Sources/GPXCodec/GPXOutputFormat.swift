public import GeoBase
import GeoCore

/// The formats a GPX document is converted to (`geo gpx convert --to`).
public enum GPXOutputFormat: String, CaseIterable, Hashable, Sendable {
    /// GPX 1.1 with everything kept, extensions verbatim (``GPXDocument/upgradedToGPX11(creator:)``:
    /// GPX 1.0's course and speed have no place in 1.1 and are dropped).
    case gpx
    /// A GeoJSON FeatureCollection (RFC 7946, ``GPXDocument/geoJSON``) on one line ending in a
    /// newline; positions `[lon, lat]` or `[lon, lat, ele]` (ele in metres).
    case geojson
    /// RFC 4180 CSV, one row per point after a header (``GPXCSV``).
    case csv

    /// Writes `document` in this format to `sink`.
    /// - Parameter creator: the `creator` of GPX output whose document has none (the
    ///   application that wrote it); a creator the document names is kept.
    /// - Throws: what the sink throws.
    /// - Complexity: O(points).
    public func write(_ document: GPXDocument, creator: String, to sink: inout any ByteSink) throws {
        switch self {
        case .gpx:
            sink = try GPXWriter.write(document.upgradedToGPX11(creator: creator), to: sink)
        case .geojson:
            try sink.write(text: String(decoding: document.geoJSON.encoded(), as: UTF8.self) + "\n")
        case .csv:
            try GPXCSV.write(document, to: &sink)
        }
    }
}
