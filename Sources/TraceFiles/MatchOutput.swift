import GeoBase
import GeoCore
public import MapMatching

/// `geo match`'s outputs as text: OSRM `/match`'s JSON shape, GeoJSON, GPX, and the live
/// matcher's JSON line per fix. Numbers go through `JSONNumber` (fixed decimals, as `printf`).
public enum MatchOutput {
    private static func degrees(_ x: Double) -> String { JSONNumber.string(x, .coordinate) }
    private static func fraction(_ x: Double) -> String { JSONNumber.string(x, .init(decimals: 6)) }
    private static func metres(_ x: Double) -> String { JSONNumber.string(x, .error) }
    private static func position(_ c: Coordinate) -> String { "[\(degrees(c.longitude)),\(degrees(c.latitude))]" }

    /// OSRM `/match`'s response: `matchings` (confidence, distance m, duration s, geometry,
    /// the OSM `nodes` and `ways` along the path) and one `tracepoints` entry per entry of the
    /// track (null where unmatched or unread).
    public static func osrmJSON(_ result: MatchResult, entries: [TracePoint?]) -> String {
        var s = "{\"code\":\"Ok\",\"matchings\":["
        for (i, m) in result.subMatchings.enumerated() {
            if i > 0 { s += "," }
            s += "{\"confidence\":\(fraction(m.confidence)),\"distance\":\(metres(m.distance)),\"duration\":\(metres(m.duration)),"
            s += "\"geometry\":{\"type\":\"LineString\",\"coordinates\":[" + m.geometry.map(position).joined(separator: ",") + "]},"
            s += "\"nodes\":[" + m.nodeIDs.map(String.init).joined(separator: ",") + "],"
            s += "\"ways\":[" + m.wayIDs.map(String.init).joined(separator: ",") + "]}"
        }
        s += "],\"tracepoints\":["
        var points = result.points.makeIterator()
        for (i, entry) in entries.enumerated() {
            if i > 0 { s += "," }
            guard entry != nil, let r = points.next()?.match else { s += "null"; continue }
            s += "{\"location\":\(position(r.coordinate)),\"distance\":\(metres(r.distance.meters)),"
            s += "\"matchings_index\":\(r.subMatching),\"nodes\":[\(r.nodes.0),\(r.nodes.1)]}"
        }
        return s + "]}"
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
        func text(_ s: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }
        func number(_ x: Double, _ quantity: JSONNumber.Quantity) {
            JSONNumber.withText(of: x, quantity) { out.append(contentsOf: $0) }
        }
        func integer(_ x: Int64) {
            var s = String(x)
            s.withUTF8 { out.append(contentsOf: $0) }
        }
        guard let match else {
            text("{\"matched\":null,\"nodes\":null,\"confidence\":null,\"offRoadProbability\":null,\"revised\":false}\n")
            return
        }
        text("{\"matched\":")
        if let p = match.position {
            text("{\"latitude\":")
            number(p.coordinate.latitude, .coordinate)
            text(",\"longitude\":")
            number(p.coordinate.longitude, .coordinate)
            text("},\"nodes\":[")
            integer(p.nodes.0)
            text(",")
            integer(p.nodes.1)
            text("]")
        } else {
            text("null,\"nodes\":null")
        }
        text(",\"confidence\":")
        number(match.confidence, .init(decimals: 6))
        text(",\"offRoadProbability\":")
        number(match.offRoadProbability, .init(decimals: 6))
        text(match.revised ? ",\"revised\":true}\n" : ",\"revised\":false}\n")
    }
}
