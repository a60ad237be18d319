public import GeoBase
/// A latitude/longitude rectangle that may cross the antimeridian.
///
/// When `west > east` the box spans the antimeridian: it covers longitudes
/// `west...180` and `-180...east` (RFC 7946 §5.2).
public struct BoundingBox: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Southern edge, degrees.
    public var south: Double
    /// Western edge, degrees in [-180, 180].
    public var west: Double
    /// Northern edge, degrees.
    public var north: Double
    /// Eastern edge, degrees in [-180, 180].
    public var east: Double

    /// Creates a box from its edges in degrees.
    /// - Throws: `GeoCoreError` if `south > north`, a latitude is outside [-90, 90] or an edge is NaN.
    public init(south: Double, west: Double, north: Double, east: Double) throws(GeoCoreError) {
        for v in [south, west, north, east] where v.isNaN {
            throw GeoCoreError(.notANumber, "bounding box edge is NaN")
        }
        guard south >= -90, north <= 90, south <= north else {
            throw GeoCoreError(.invalidLatitude, "bounding box latitudes \(south)...\(north) are not an interval inside [-90, 90]")
        }
        guard (-180...180).contains(west), (-180...180).contains(east) else {
            throw GeoCoreError(.invalidLongitude, "bounding box longitudes \(west), \(east) are outside [-180, 180]")
        }
        self.south = south
        self.west = west
        self.north = north
        self.east = east
    }

    /// The smallest box holding one point.
    public init(_ point: Coordinate) {
        south = point.latitude
        north = point.latitude
        west = point.longitude
        east = point.longitude
    }

    /// The smallest box holding every point, choosing to cross the antimeridian when that
    /// gives a narrower box (the largest longitude gap between points is left outside).
    /// Returns nil for an empty sequence.
    /// - Complexity: O(n log n) in the number of points.
    public init?(covering points: some Sequence<Coordinate>) {
        var south = Double.infinity, north = -Double.infinity
        var longitudes: [Double] = []
        for p in points {
            south = min(south, p.latitude)
            north = max(north, p.latitude)
            longitudes.append(p.longitude)
        }
        guard !longitudes.isEmpty else { return nil }
        longitudes.sort()
        // The widest gap between consecutive longitudes (the wrap-around gap included)
        // is the part of the circle the box leaves out.
        var gap = longitudes[0] + 360 - longitudes[longitudes.count - 1]
        var west = longitudes[0], east = longitudes[longitudes.count - 1]
        for i in 1..<longitudes.count where longitudes[i] - longitudes[i - 1] > gap {
            gap = longitudes[i] - longitudes[i - 1]
            west = longitudes[i]
            east = longitudes[i - 1]
        }
        self.south = south
        self.north = north
        self.west = west
        self.east = east
    }

    /// Whether the box crosses the antimeridian.
    public var crossesAntimeridian: Bool { west > east }

    /// Width in degrees of longitude, in [0, 360].
    public var longitudeSpan: Double { crossesAntimeridian ? east + 360 - west : east - west }

    /// Whether the point lies inside or on the edge.
    public func contains(_ point: Coordinate) -> Bool {
        guard point.latitude >= south, point.latitude <= north else { return false }
        if crossesAntimeridian { return point.longitude >= west || point.longitude <= east }
        return point.longitude >= west && point.longitude <= east
    }

    /// Whether the two boxes share any point.
    public func intersects(_ other: BoundingBox) -> Bool {
        guard south <= other.north, other.south <= north else { return false }
        return longitudeIntervals.contains { a in
            other.longitudeIntervals.contains { b in a.lowerBound <= b.upperBound && b.lowerBound <= a.upperBound }
        }
    }

    /// The box grown to hold `point`, extending in whichever longitude direction is shorter.
    public func expanded(toInclude point: Coordinate) -> BoundingBox {
        if contains(point) { return self }
        var box = self
        box.south = min(south, point.latitude)
        box.north = max(north, point.latitude)
        let lon = point.longitude
        if !(crossesAntimeridian ? (lon >= west || lon <= east) : (lon >= west && lon <= east)) {
            let eastward = (lon - east + 360).truncatingRemainder(dividingBy: 360)
            let westward = (west - lon + 360).truncatingRemainder(dividingBy: 360)
            if eastward <= westward { box.east = lon } else { box.west = lon }
        }
        return box
    }

    /// The box as one or two non-crossing longitude intervals.
    var longitudeIntervals: [ClosedRange<Double>] {
        crossesAntimeridian ? [west...180, -180...east] : [west...east]
    }

    public var description: String { "[\(south),\(west) – \(north),\(east)]" }
}
