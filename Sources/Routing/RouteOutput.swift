import GeoBase
public import GeoCore

/// `geo route`'s outputs (as `osrm-routed` answers a query, in process): one route as JSON or
/// GeoJSON, and the batch line protocol.
extension Route {
    /// The path rounded to 1e-7° (the graph's fixed-point precision), so positions print as
    /// short decimals.
    public var printedGeometry: [Coordinate] {
        func e7(_ degrees: Double) -> Double { (degrees * 1e7).rounded() / 1e7 }
        return geometry.map { Coordinate(uncheckedLatitude: e7($0.latitude), longitude: e7($0.longitude)) }
    }

    /// The route as one JSON object: `distance_m`, `duration_s`, `weight` (to 0.001),
    /// `edges` (how many) and `geometry`, a GeoJSON LineString (RFC 7946 §3.1.4).
    package var json: String {
        var o = JSONObjectText()
        o.add("distance_m", distance.meters, Self.thousandths)
        o.add("duration_s", duration.seconds, Self.thousandths)
        o.add("weight", weight, Self.thousandths)
        o.add("edges", integer: edges.count)
        o.add("geometry", json: String(decoding: GeoJSON.geometry(.lineString(printedGeometry)).encoded(), as: UTF8.self))
        return o.text
    }

    /// The route as a GeoJSON Feature (RFC 7946 §3.2): its LineString, with `distance_m` and
    /// `duration_s` (rounded to 0.001) as properties.
    public var geoJSON: String {
        func milli(_ x: Double) -> JSONValue { .number((x * 1000).rounded() / 1000) }
        let feature = GeoJSONFeature(geometry: .lineString(printedGeometry),
                                     properties: ["distance_m": milli(distance.meters), "duration_s": milli(duration.seconds)])
        return String(decoding: GeoJSON.feature(feature).encoded(), as: UTF8.self)
    }

    /// `distance_m=D duration_s=T` (to 0.001): how the route describes itself in GPX.
    public var summary: String {
        "distance_m=\(FixedDecimal.string(distance.meters, decimals: 3)) duration_s=\(FixedDecimal.string(duration.seconds, decimals: 3))"
    }

    private static let thousandths = JSONNumber.Quantity(decimals: 3)
}

/// The batch protocol of `geo route --batch`: each line `lat1 lon1 lat2 lon2` (degrees; blanks,
/// tabs or commas between) is answered by a line `distance_m duration_s` (to 0.001), or
/// `nan nan` when there is no route. Blank lines and lines starting with `#` are skipped; a bad
/// line gets no answer and is reported with its number, and the others are answered.
public enum RouteBatch {
    /// What one batch line asks.
    public enum Query: Equatable, Sendable {
        /// A blank line or a `#` comment.
        case skipped
        /// A route from the first point to the second.
        case pair(Coordinate, Coordinate)
        /// Not four numbers, or a latitude outside −90…90.
        case bad
    }

    /// Reads one line.
    public static func query(_ line: String) -> Query {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
        if fields.isEmpty || line.hasPrefix("#") { return .skipped }
        guard fields.count == 4, let lat1 = Double(fields[0]), let lon1 = Double(fields[1]),
              let lat2 = Double(fields[2]), let lon2 = Double(fields[3]),
              let a = try? Coordinate(latitude: lat1, longitude: lon1),
              let b = try? Coordinate(latitude: lat2, longitude: lon2)
        else { return .bad }
        return .pair(a, b)
    }

    /// Answers `lines` in order on `router`, handing each answer line (with its newline) to
    /// `answer` and each bad line, with its 1-based number, to `bad`.
    /// - Returns: how many lines were read and how many were bad.
    public static func answer(_ lines: some Sequence<String>, router: Router, options: RouteOptions,
                              answer: (String) -> Void, bad: (_ number: Int, _ line: String) -> Void) -> (lines: Int, bad: Int) {
        var scratch = RouteScratch()
        var lineNumber = 0, badLines = 0
        for line in lines {
            lineNumber += 1
            switch query(line) {
            case .skipped: continue
            case .bad:
                badLines += 1
                bad(lineNumber, line)
            case .pair(let a, let b):
                if let route = try? router.route(from: a, to: b, options: options, scratch: &scratch) {
                    answer("\(FixedDecimal.string(route.distance.meters, decimals: 3)) \(FixedDecimal.string(route.duration.seconds, decimals: 3))\n")
                } else {
                    answer("nan nan\n")
                }
            }
        }
        return (lineNumber, badLines)
    }
}
