public import MapMatching
public import Routing

/// The formats `geo route` and `geo match` print a path on the roads in.
public enum PathFormat: String, CaseIterable, Hashable, Sendable {
    /// OSRM's JSON: a match as `/match` answers (`MatchOutput.osrmJSON`), a route as one object
    /// (`distance_m`, `duration_s`, `weight`, `edges`, `geometry`).
    case json
    /// A GeoJSON Feature (RFC 7946) of the path's LineString (a match's: its sub-matchings).
    case geojson
    /// GPX 1.1: a route's `<rte>`, a match's tracks.
    case gpx

    /// The output of a match in this format, ending in a newline; `entries` are the track's
    /// points as read (nil: a point without a position), for OSRM's `tracepoints`.
    public func bytes(of result: MatchResult, entries: [TracePoint?]) -> [UInt8] {
        var bytes: [UInt8]
        switch self {
        case .json: bytes = MatchOutput.osrmJSON(result, entries: entries)
        case .geojson: bytes = Array(MatchOutput.geoJSON(result).utf8)
        case .gpx: bytes = Array(MatchOutput.gpx(result).utf8)
        }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The output of a route in this format: JSON and GeoJSON on one line ending in a newline,
    /// or the GPX document written by `creator` (``Routing/Route/gpx(creator:)``).
    /// - Throws: `GPXError` when the GPX writer refuses a point (none of a route's can be).
    public func text(of route: Route, creator: String) throws -> String {
        switch self {
        case .json: route.json + "\n"
        case .geojson: route.geoJSON + "\n"
        case .gpx: try route.gpx(creator: creator)
        }
    }
}
