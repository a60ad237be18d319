public import GeoBase
import GeoCore

/// A GPX document as CSV (RFC 4180), one row per point:
/// `kind,track,segment,index,latitude,longitude,elevation_m,time,name` with `kind` one of
/// `waypoint`, `routepoint`, `trackpoint`; track and segment empty where they do not apply,
/// times in ISO 8601 UTC, names quoted when they hold a comma, a quote or a line break.
public enum GPXCSV {
    /// Writes the document's rows after the header, in 64 KiB pieces.
    /// - Throws: what the sink throws.
    public static func write(_ d: GPXDocument, to sink: inout any ByteSink) throws {
        var out = "kind,track,segment,index,latitude,longitude,elevation_m,time,name\n"
        func row(_ kind: String, _ track: Int?, _ segment: Int?, _ index: Int, _ p: GPXPoint) {
            let trackField: String = track.map { String($0) } ?? ""
            let segmentField: String = segment.map { String($0) } ?? ""
            let elevation: String = p.elevation.map { "\($0.meters)" } ?? ""
            let time: String = p.time.map { ISO8601Time.string(from: $0) } ?? ""
            let fields: [String] = [kind, trackField, segmentField, String(index), "\(p.coordinate.latitude)",
                                    "\(p.coordinate.longitude)", elevation, time, quoted(p.name ?? "")]
            out += fields.joined(separator: ",") + "\n"
        }
        for (i, w) in d.waypoints.enumerated() { row("waypoint", nil, nil, i, w) }
        for (r, route) in d.routes.enumerated() {
            for (i, p) in route.points.enumerated() { row("routepoint", r, nil, i, p) }
        }
        for (t, track) in d.tracks.enumerated() {
            for (s, segment) in track.segments.enumerated() {
                for (i, p) in segment.points.enumerated() {
                    row("trackpoint", t, s, i, p)
                    if out.utf8.count > 1 << 16 { try sink.write(text: out); out = "" }
                }
            }
        }
        try sink.write(text: out)
    }

    /// A field as RFC 4180 writes it: quoted, with inner quotes doubled, when it holds a
    /// comma, a quote or a line break.
    static func quoted(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacing("\"", with: "\"\"") + "\""
    }
}
