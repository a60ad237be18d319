import GeoCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A local tangent-plane approximation of WGS84 around one latitude: metres per degree
/// of latitude (meridional radius of curvature M) and of longitude (N cos φ).
///
/// Used for what must be fast and only needs to be locally exact: the lengths of the
/// short segments between OSM nodes (relative error below 1e-6 for segments under 1 km)
/// and point-to-segment projection in the spatial index. Long distances (the A* bound)
/// are computed the same way and scaled down so the heuristic stays admissible.
/// Source: radii of curvature, e.g. Torge & Müller, *Geodesy* (2012) §4.1.
public struct LocalMetric: Hashable, Sendable {
    /// Metres per degree of latitude at the reference latitude.
    public let metersPerDegreeLatitude: Double
    /// Metres per degree of longitude at the reference latitude.
    public let metersPerDegreeLongitude: Double

    /// The metric at `latitude` degrees.
    public init(latitude: Double) {
        let a = Ellipsoid.wgs84.equatorialRadius, e2 = Ellipsoid.wgs84.eccentricitySquared
        let phi = latitude * .pi / 180
        let s = sin(phi)
        let w = 1 - e2 * s * s
        let m = a * (1 - e2) / (w * w.squareRoot())
        let n = a / w.squareRoot()
        metersPerDegreeLatitude = m * .pi / 180
        metersPerDegreeLongitude = max(n * cos(phi) * .pi / 180, 1e-3)
    }

    /// Planar distance in metres between two points given in degrees.
    @inlinable
    public func distance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        let dy = (latitude2 - latitude1) * metersPerDegreeLatitude
        var dlon = longitude2 - longitude1
        if dlon > 180 { dlon -= 360 } else if dlon < -180 { dlon += 360 }
        let dx = dlon * metersPerDegreeLongitude
        return (dx * dx + dy * dy).squareRoot()
    }
}

/// Fixed-point degrees at 1e7 (OSM's precision) to degrees.
@inlinable func degrees(_ e7: Int32) -> Double { Double(e7) * 1e-7 }

/// The length in metres of the segment between two fixed-point points, in the local
/// metric at its mid-latitude.
func segmentLength(lat1: Int32, lon1: Int32, lat2: Int32, lon2: Int32) -> Double {
    let metric = LocalMetric(latitude: (degrees(lat1) + degrees(lat2)) / 2)
    return metric.distance(latitude1: degrees(lat1), longitude1: degrees(lon1),
                           latitude2: degrees(lat2), longitude2: degrees(lon2))
}

/// Bearing in degrees clockwise from north of the segment between two fixed-point points.
func segmentBearing(lat1: Int32, lon1: Int32, lat2: Int32, lon2: Int32) -> Double {
    let metric = LocalMetric(latitude: (degrees(lat1) + degrees(lat2)) / 2)
    let dy = Double(lat2 - lat1) * 1e-7 * metric.metersPerDegreeLatitude
    let dx = Double(lon2 - lon1) * 1e-7 * metric.metersPerDegreeLongitude
    var b = atan2(dx, dy) * 180 / .pi
    if b < 0 { b += 360 }
    return b
}
