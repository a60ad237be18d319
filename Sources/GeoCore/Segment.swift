import Platform

/// The closest point on a segment to a query point.
public struct SegmentProjection: Hashable, Sendable {
    /// The closest point on the segment.
    public var coordinate: Coordinate
    /// Where it lies along the segment, 0 at the start, 1 at the end.
    public var fraction: Double
    /// Geodesic distance from the query point to `coordinate`.
    public var distance: Distance
}

extension Coordinate {
    /// Projects this point onto the segment `start`–`end`.
    ///
    /// The foot of the perpendicular is found in a local equirectangular plane centred on the
    /// segment (scale `cos φ` at its mid-latitude), which places it within millimetres of the
    /// geodesic foot for segments up to a few kilometres, the length of road and track segments;
    /// the returned distance is geodesic. A segment across the antimeridian is handled by
    /// unwrapping longitudes around `start`.
    /// - Complexity: O(1).
    public func projected(onSegmentFrom start: Coordinate, to end: Coordinate) -> SegmentProjection {
        let midLat = (start.latitude + end.latitude) / 2 * .pi / 180
        let kx = cos(midLat)
        func unwrap(_ lon: Double) -> Double {
            var d = lon - start.longitude
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            return d
        }
        let bx = unwrap(end.longitude) * kx, by = end.latitude - start.latitude
        let px = unwrap(longitude) * kx, py = latitude - start.latitude
        let len2 = bx * bx + by * by
        var t = len2 > 0 ? (px * bx + py * by) / len2 : 0
        t = min(max(t, 0), 1)
        let foot: Coordinate
        if t == 0 { foot = start } else if t == 1 { foot = end } else {
            foot = Coordinate(uncheckedLatitude: start.latitude + t * by,
                              longitude: Coordinate.normalizedLongitude(start.longitude + t * unwrap(end.longitude)))
        }
        return SegmentProjection(coordinate: foot, fraction: t, distance: distance(to: foot))
    }
}
