public import GeoBase
import GeoCore
public import MapMatching

/// `geo match`'s outputs as text: OSRM `/match`'s JSON shape, GeoJSON, GPX, and the live
/// matcher's JSON line per fix. Numbers go through `JSONNumber` (fixed decimals, as `printf`).
public enum MatchOutput {
    private static func degrees(_ x: Double) -> String { JSONNumber.string(x, .coordinate) }

    /// OSRM `/match`'s response as UTF-8: `matchings` (confidence, distance m, duration s,
    /// geometry, the OSM `nodes` and `ways` along the path) and one `tracepoints` entry per
    /// entry of the track (null where unmatched or unread). Bytes appended to one buffer, not a
    /// `String` of pieces: on a 15,783-fix drive the text was 28 % of `geo match`'s time.
    public static func osrmJSON(_ result: MatchResult, entries: [TracePoint?]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + 140 * entries.count + result.subMatchings.reduce(0) { $0 + 48 * $1.geometry.count + 24 * $1.nodeIDs.count })
        out.append("{\"code\":\"Ok\",\"matchings\":[")
        for (i, m) in result.subMatchings.enumerated() {
            if i > 0 { out.append(",") }
            out.append("{\"confidence\":")
            out.append(m.confidence, .init(decimals: 6))
            out.append(",\"distance\":")
            out.append(m.distance, .error)
            out.append(",\"duration\":")
            out.append(m.duration, .error)
            out.append(",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[")
            for (k, c) in m.geometry.enumerated() {
                if k > 0 { out.append(",") }
                out.append(position: c)
            }
            out.append("]},\"nodes\":[")
            for (k, id) in m.nodeIDs.enumerated() {
                if k > 0 { out.append(",") }
                out.append(integer: id)
            }
            out.append("],\"ways\":[")
            for (k, id) in m.wayIDs.enumerated() {
                if k > 0 { out.append(",") }
                out.append(integer: id)
            }
            out.append("]}")
        }
        out.append("],\"tracepoints\":[")
        var points = result.points.makeIterator()
        for (i, entry) in entries.enumerated() {
            if i > 0 { out.append(",") }
            guard entry != nil, let r = points.next()?.match else { out.append("null"); continue }
            out.append("{\"location\":")
            out.append(position: r.coordinate)
            out.append(",\"distance\":")
            out.append(r.distance.meters, .error)
            out.append(",\"matchings_index\":")
            out.append(integer: Int64(r.subMatching))
            out.append(",\"nodes\":[")
            out.append(integer: r.nodes.0)
            out.append(",")
            out.append(integer: r.nodes.1)
            out.append("]}")
        }
        out.append("]}")
        return out
    }

    /// A GeoJSON FeatureCollection with a LineString per matching (confidence, distance,
    /// duration, nodes as properties).
    public static func geoJSON(_ result: MatchResult) -> String {
        let features = result.subMatchings.map { m in
            GeoJSONFeature(geometry: .lineString(m.geometry), properties: [
                "confidence": .number(m.confidence), "distance": .number(m.distance), "duration": .number(m.duration),
                "nodes": .array(m.nodeIDs.map { .number(Double($0)) }),
            ])
        }
        return String(decoding: GeoJSON.featureCollection(features).encoded(), as: UTF8.self)
    }

    /// A GPX 1.1 document with one track, a segment per matching.
    public static func gpx(_ result: MatchResult) -> String {
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<gpx version=\"1.1\" creator=\"LocationKit geo match\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk><name>matched</name>\n"
        for m in result.subMatchings {
            s += "<trkseg>\n"
            for c in m.geometry { s += "<trkpt lat=\"\(degrees(c.latitude))\" lon=\"\(degrees(c.longitude))\"/>\n" }
            s += "</trkseg>\n"
        }
        return s + "</trk>\n</gpx>"
    }

    /// Appends what the live matcher published at one fix to `out`, as one JSON line (with its
    /// newline): `matched` {latitude, longitude} or null, `nodes`, `confidence`,
    /// `offRoadProbability`, `revised`; every field null (and `revised` false) for an entry that
    /// could not be read. Bytes, not a `String` per line: on a long replay the line's text was a
    /// fifth of `geo match --online`'s time.
    public static func appendOnlineLine(_ match: LiveMatch?, to out: inout [UInt8]) {
        guard let match else {
            out.append("{\"matched\":null,\"nodes\":null,\"confidence\":null,\"offRoadProbability\":null,\"revised\":false}\n")
            return
        }
        out.append("{\"matched\":")
        if let p = match.position {
            out.append("{\"latitude\":")
            out.append(p.coordinate.latitude, .coordinate)
            out.append(",\"longitude\":")
            out.append(p.coordinate.longitude, .coordinate)
            out.append("},\"nodes\":[")
            out.append(integer: p.nodes.0)
            out.append(",")
            out.append(integer: p.nodes.1)
            out.append("]")
        } else {
            out.append("null,\"nodes\":null")
        }
        out.append(",\"confidence\":")
        out.append(match.confidence, .init(decimals: 6))
        out.append(",\"offRoadProbability\":")
        out.append(match.offRoadProbability, .init(decimals: 6))
        out.append(match.revised ? ",\"revised\":true}\n" : ",\"revised\":false}\n")
    }
}

extension MatchOutput {
    /// Replays `entries` through a live matcher on `matcher`, writing ``appendOnlineLine(_:to:)``'s
    /// line per entry to `sink` in order (`geo match --online`), in writes of about 64 KiB. An
    /// entry that could not be read is not given to the matcher: its line has nothing published.
    /// - Throws: what writing to `sink` throws.
    public static func writeOnline(_ entries: [TracePoint?], matcher: MapMatcher, to sink: inout any ByteSink) throws {
        var live = OnlineMatcher(matcher: matcher)
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        for entry in entries {
            appendOnlineLine(entry.map { fix in
                defer { _ = live.takeCommitted() }
                return live.match(fix)
            }, to: &out)
            if out.count > 1 << 16 {
                try out.withUnsafeBytes { try sink.write($0) }
                out.removeAll(keepingCapacity: true)
            }
        }
        try out.withUnsafeBytes { try sink.write($0) }
    }
}

/// The byte appenders behind `MatchOutput`'s JSON: literal text, numbers through `JSONNumber`
/// (`null` when not finite), decimal integers, `[lon,lat]` positions.
extension [UInt8] {
    fileprivate mutating func append(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    fileprivate mutating func append(_ x: Double, _ quantity: JSONNumber.Quantity) {
        JSONNumber.withText(of: x, quantity) { append(contentsOf: $0) }
    }

    /// `x` in decimal, as `String(x)` writes it.
    fileprivate mutating func append(integer x: Int64) {
        JSONNumber.withText(ofInteger: x) { append(contentsOf: $0) }
    }

    fileprivate mutating func append(position c: Coordinate) {
        append("[")
        append(c.longitude, .coordinate)
        append(",")
        append(c.latitude, .coordinate)
        append("]")
    }
}
