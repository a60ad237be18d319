extension Coordinate {
    /// The length of the shortest WGS84 geodesic to `other` (Karney 2013), accurate to
    /// about 15 nm.
    /// - Complexity: O(1); see ``Geodesic/inverse(from:to:)``.
    public func distance(to other: Coordinate) -> Distance {
        Geodesic.wgs84.inverse(from: self, to: other).distance
    }

    /// The initial bearing of the shortest WGS84 geodesic to `other`. For coincident points
    /// it is the meridian direction (0° or 180°).
    /// - Complexity: O(1); see ``Geodesic/inverse(from:to:)``.
    public func bearing(to other: Coordinate) -> Bearing {
        Geodesic.wgs84.inverse(from: self, to: other).initialBearing
    }

    /// The point reached by following the WGS84 geodesic leaving here at `bearing` for
    /// `distance` (negative goes backwards).
    /// - Complexity: O(1).
    public func coordinate(at distance: Distance, facing bearing: Bearing) -> Coordinate {
        Geodesic.wgs84.direct(from: self, bearing: bearing, distance: distance).coordinate
    }
}

extension Geodesic {
    /// The length of the path through `coordinates` in order, each leg the shortest geodesic.
    /// Zero for fewer than two points.
    /// - Complexity: O(n) inverse solutions for n points.
    public func length(ofPolyline coordinates: some Collection<Coordinate>) -> Distance {
        var total = 0.0
        var previous: Coordinate?
        for c in coordinates {
            if let p = previous {
                total += inverse(fromLatitude: p.latitude, longitude: p.longitude,
                                 toLatitude: c.latitude, longitude: c.longitude).distance.meters
            }
            previous = c
        }
        return Distance(meters: total)
    }
}

/// The WGS84 geodesic length of the path through `coordinates` in order; zero for fewer
/// than two points.
/// - Complexity: O(n) inverse solutions for n points.
public func polylineLength(_ coordinates: some Collection<Coordinate>) -> Distance {
    Geodesic.wgs84.length(ofPolyline: coordinates)
}
