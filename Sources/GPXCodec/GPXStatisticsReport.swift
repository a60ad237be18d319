public import GeoBase
import GeoCore

/// `geo gpx stats`' reading and its two outputs, JSON for programs and aligned lines for people.
extension GPXStatistics {
    /// Reads `reader` to its end and returns the statistics of what it held, with how many
    /// points it read (track points, route points and waypoints: the count a
    /// ``GPXReadReport`` states).
    /// - Throws: `GPXError` where the stream is damaged (a recovering reader stops instead).
    public static func read(_ reader: GPXStreamReader) throws(GPXError) -> (statistics: GPXStatistics, points: Int) {
        var accumulator = GPXStatisticsAccumulator()
        var routePoints = 0
        while let event = try reader.next() {
            if case .routePoint = event { routePoints += 1 }
            accumulator.add(event)
        }
        let s = accumulator.statistics
        return (s, s.points + s.waypoints + routePoints)
    }

    /// The statistics as one JSON object: the counts, `length2D_m`, `length3D_m`, `duration_s`,
    /// `movingTime_s`, `elevationGain_m`, `elevationLoss_m`, `maxSpeed_mps` (numbers in their
    /// shortest round-trip form, `null` when absent), `bounds` (`{south, west, north, east}` in
    /// degrees, or `null`), then `report`'s members (``GPXReadReport/add(to:)``).
    package func json(report: GPXReadReport) -> String {
        var o = JSONObjectText()
        o.add("points", integer: points)
        o.add("tracks", integer: tracks)
        o.add("segments", integer: segments)
        o.add("routes", integer: routes)
        o.add("waypoints", integer: waypoints)
        o.add("length2D_m", roundTrip: length2D.meters)
        o.add("length3D_m", roundTrip: length3D.meters)
        o.add("duration_s", roundTrip: duration?.seconds)
        o.add("movingTime_s", roundTrip: movingTime?.seconds)
        o.add("elevationGain_m", roundTrip: elevationGain?.meters)
        o.add("elevationLoss_m", roundTrip: elevationLoss?.meters)
        o.add("maxSpeed_mps", roundTrip: maxSpeed?.metersPerSecond)
        o.add("bounds", object: bounds.map { b in
            var box = JSONObjectText()
            box.add("south", roundTrip: b.south)
            box.add("west", roundTrip: b.west)
            box.add("north", roundTrip: b.north)
            box.add("east", roundTrip: b.east)
            return box
        })
        report.add(to: &o)
        return o.text
    }

    /// The statistics as eleven lines for people, joined by newlines (no final one): lengths
    /// in metres to 0.1 m, times as `H:MM:SS (S.SSS s)`, speed in m/s and km/h, `–` for what
    /// the file does not say.
    public var summary: String {
        func r(_ v: Double, _ places: Int = 1) -> String { FixedDecimal.string(v, decimals: places) }
        func twoDigits(_ n: Int) -> String { n > -10 && n < 10 && n >= 0 ? "0\(n)" : String(n) }
        func hms(_ d: Duration?) -> String {
            guard let t = d?.seconds else { return "–" }
            let whole = Int(t.rounded())
            return "\(whole / 3600):\(twoDigits(whole / 60 % 60)):\(twoDigits(whole % 60)) (\(r(t, 3)) s)"
        }
        return [
            "points:         \(points) in \(tracks) track(s), \(segments) segment(s)",
            "routes:         \(routes)",
            "waypoints:      \(waypoints)",
            "length 2D:      \(r(length2D.meters)) m",
            "length 3D:      \(r(length3D.meters)) m",
            "duration:       \(hms(duration))",
            "moving time:    \(hms(movingTime))",
            "elevation gain: \(elevationGain.map { r($0.meters) + " m" } ?? "–")",
            "elevation loss: \(elevationLoss.map { r($0.meters) + " m" } ?? "–")",
            "max speed:      \(maxSpeed.map { r($0.metersPerSecond, 2) + " m/s (" + r($0.kilometersPerHour) + " km/h)" } ?? "–")",
            "bounds:         " + (bounds.map { "\($0.south),\($0.west) – \($0.north),\($0.east)" } ?? "–"),
        ].joined(separator: "\n")
    }
}
