public import GeoCore
import GeoBase

extension GPXDocument {
    /// The document as a GeoJSON FeatureCollection (RFC 7946): a Point per waypoint, a
    /// LineString per route and a MultiLineString per track (one line per segment), in that
    /// order. Positions are `[lon, lat]`, or `[lon, lat, ele]` where the point has a finite
    /// elevation. Properties: `kind` (`waypoint`, `route`, `track`), `name`, and `time` and
    /// `sym` for waypoints, `type`, `start` and `end` (the first and last point times) for
    /// tracks; absent fields are left out. Encode with `GeoJSON.encoded()`.
    /// - Complexity: O(points).
    public var geoJSON: GeoJSON {
        func position(_ p: GPXPoint) -> GeoJSONPosition {
            GeoJSONPosition(p.coordinate, altitude: p.elevation.map(\.meters).flatMap { $0.isFinite ? $0 : nil })
        }
        func properties(_ pairs: KeyValuePairs<String, String?>) -> [String: JSONValue] {
            var out: [String: JSONValue] = [:]
            for (key, value) in pairs { if let value { out[key] = .string(value) } }
            return out
        }
        var features: [GeoJSONFeature] = []
        for w in waypoints {
            features.append(GeoJSONFeature(geometry: .point(position(w)), properties: properties([
                "kind": "waypoint", "name": w.name, "time": w.time.map(ISO8601Time.string(from:)), "sym": w.symbol])))
        }
        for r in routes {
            features.append(GeoJSONFeature(geometry: .lineString(r.points.map(position)), properties: properties([
                "kind": "route", "name": r.info.name])))
        }
        for t in tracks {
            let times = t.segments.flatMap(\.points).compactMap(\.time)
            features.append(GeoJSONFeature(geometry: .multiLineString(t.segments.map { $0.points.map(position) }), properties: properties([
                "kind": "track", "name": t.info.name, "type": t.info.type,
                "start": times.first.map(ISO8601Time.string(from:)), "end": times.last.map(ISO8601Time.string(from:))])))
        }
        return .featureCollection(features)
    }
}
