import Platform

/// Fast approximations of WGS84 distances for hot loops, with measured error bounds.
///
/// Use ``Geodesic`` (or `Coordinate.distance(to:)`) wherever accuracy matters; these trade
/// accuracy for speed: one `asin` and a few trigonometric calls instead of an iteration.
/// The bounds below were measured against the WGS84 geodesic (GeographicLib) on seeded
/// sweeps of 100,000 pairs and are checked by `SphericalTests`.
public enum Spherical {
    /// The sphere's radius: the IUGG mean radius R₁ of WGS84, 6371008.771 m.
    public static let radius = Ellipsoid.wgs84.meanRadius

    private static let degree = Double.pi / 180

    /// The great-circle distance on a sphere of radius ``radius`` (the haversine formula,
    /// Sinnott 1984, "Virtues of the haversine", Sky and Telescope 68:159).
    ///
    /// Error bound: within 0.6 % of the WGS84 geodesic distance at any distance and latitude
    /// (measured worst case 0.56 %, at long north–south lines). Accurate to round-off as a
    /// great-circle distance, including for nearly coincident and antipodal points.
    /// - Complexity: O(1).
    public static func distance(from start: Coordinate, to end: Coordinate) -> Distance {
        let dlat = (end.latitude - start.latitude) * (Double.pi / 180)
        let dlon = (end.longitude - start.longitude) * (Double.pi / 180)
        let s1 = sin(dlat / 2), s2 = sin(dlon / 2)
        let h = s1 * s1 + cos(start.latitude * (Double.pi / 180)) * cos(end.latitude * (Double.pi / 180)) * s2 * s2
        return Distance(meters: 2 * radius * asin(min(1, h.squareRoot())))
    }

    /// The initial great-circle bearing on the sphere.
    ///
    /// Error bound, against the WGS84 geodesic's initial bearing: within 0.2° for lines up to
    /// 10,000 km (at every length: it ignores the flattening), within 0.8° up to 18,000 km,
    /// and unbounded near antipodal points, where the shortest line's direction is unstable.
    /// - Complexity: O(1).
    public static func initialBearing(from start: Coordinate, to end: Coordinate) -> Bearing {
        let phi1 = start.latitude * (Double.pi / 180), phi2 = end.latitude * (Double.pi / 180)
        let dlon = (end.longitude - start.longitude) * (Double.pi / 180)
        let y = sin(dlon) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dlon)
        return Bearing(degrees: atan2(y, x) * (180 / Double.pi))
    }

    /// The equirectangular (local flat-earth) distance: the coordinate differences scaled by
    /// WGS84's meridional and prime-vertical radii of curvature at the mid-latitude.
    ///
    /// Error bound, relative to the WGS84 geodesic distance, growing with the square of the
    /// distance and with latitude (measured worst cases):
    ///
    /// | ends within | ≤ 1 km | ≤ 10 km | ≤ 100 km | ≤ 1000 km |
    /// |-------------|--------|---------|----------|-----------|
    /// | ±70°        | 1e-8   | 1e-6    | 1e-4     | 1 %       |
    /// | ±80°        | 1e-7   | 4e-6    | 4e-4     | 3 %       |
    /// | ±85°        | 2e-7   | 2e-5    | 2e-3     | 15 %      |
    ///
    /// Longitude differences are wrapped, so lines across the antimeridian are fine. Not for
    /// lines near a pole or longer than ~100 km: use the geodesic there.
    /// - Complexity: O(1).
    public static func equirectangularDistance(from start: Coordinate, to end: Coordinate) -> Distance {
        var dlon = end.longitude - start.longitude
        if dlon > 180 { dlon -= 360 } else if dlon < -180 { dlon += 360 }
        let phim = (start.latitude + end.latitude) * (Double.pi / 360)
        let s = sin(phim)
        let radii = Ellipsoid.wgs84.radiiOfCurvature(sinSquaredLatitude: s * s)
        let y = radii.meridional * (end.latitude - start.latitude) * (Double.pi / 180)
        let x = radii.primeVertical * cos(phim) * dlon * (Double.pi / 180)
        return Distance(meters: (x * x + y * y).squareRoot())
    }
}
