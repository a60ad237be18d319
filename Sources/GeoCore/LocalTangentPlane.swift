import Platform

/// Earth-centred, earth-fixed Cartesian coordinates on WGS84, in metres.
public struct ECEF: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }
}

/// East-north-up offsets from a local origin, in metres.
public struct ENU: Hashable, Sendable {
    public var east: Double
    public var north: Double
    public var up: Double
    public init(east: Double, north: Double, up: Double = 0) { self.east = east; self.north = north; self.up = up }
}

extension Coordinate {
    /// The ECEF position of this point at ellipsoidal height `height` (metres above WGS84).
    ///
    /// Exact closed form (e.g. Hofmann-Wellenhof et al., *GNSS*, §10.2.1).
    public func ecef(height: Double = 0) -> ECEF {
        let φ = latitude * .pi / 180, λ = longitude * .pi / 180
        let sφ = sin(φ), cφ = cos(φ)
        let N = Ellipsoid.wgs84.radiiOfCurvature(sinSquaredLatitude: sφ * sφ).primeVertical
        return ECEF(x: (N + height) * cφ * cos(λ),
                    y: (N + height) * cφ * sin(λ),
                    z: (N * (1 - Ellipsoid.wgs84.eccentricitySquared) + height) * sφ)
    }

    /// The geodetic position of an ECEF point: coordinate and ellipsoidal height in metres.
    ///
    /// Closed form of Vermeille (2002), "Direct transformation from geocentric coordinates to
    /// geodetic coordinates", J. Geodesy 76:451–454; exact to well below a micrometre at any height.
    public static func fromECEF(_ p: ECEF) -> (coordinate: Coordinate, height: Double) {
        let a2 = Ellipsoid.wgs84.equatorialRadius * Ellipsoid.wgs84.equatorialRadius, e2 = Ellipsoid.wgs84.eccentricitySquared, e4 = e2 * e2
        let pxy2 = p.x * p.x + p.y * p.y
        let pxy = pxy2.squareRoot()
        let lon = atan2(p.y, p.x) * 180 / .pi
        guard pxy > 1e-9 else { // on the polar axis
            let lat: Double = p.z >= 0 ? 90 : -90
            return (Coordinate(uncheckedLatitude: lat, longitude: Coordinate.normalizedLongitude(lon)), abs(p.z) - Ellipsoid.wgs84.polarRadius)
        }
        let pp = pxy2 / a2
        let q = (1 - e2) / a2 * p.z * p.z
        let r = (pp + q - e4) / 6
        let s = e4 * pp * q / (4 * r * r * r)
        let t = cbrt(1 + s + (s * (2 + s)).squareRoot())
        let u = r * (1 + t + 1 / t)
        let v = (u * u + e4 * q).squareRoot()
        let w = e2 * (u + v - q) / (2 * v)
        let k = (u + v + w * w).squareRoot() - w
        let D = k * pxy / (k + e2)
        let rr = (D * D + p.z * p.z).squareRoot()
        let height = (k + e2 - 1) / k * rr
        let lat = 2 * atan2(p.z, D + rr) * 180 / .pi
        return (Coordinate(uncheckedLatitude: lat, longitude: Coordinate.normalizedLongitude(lon)), height)
    }
}

/// A local tangent plane (east-north-up frame) anchored at an origin on WGS84.
///
/// Exact in both directions (through ECEF), so it serves filters and map matching at any
/// distance from the origin; the axes are those of the origin, so "north" drifts from true
/// north by the meridian convergence far from it.
public struct LocalTangentPlane: Hashable, Sendable {
    /// The origin of the frame.
    public let origin: Coordinate
    /// The origin's height above the ellipsoid, metres.
    public let originHeight: Double
    private let originECEF: ECEF
    private let sinLat: Double, cosLat: Double, sinLon: Double, cosLon: Double

    public init(origin: Coordinate, height: Double = 0) {
        self.origin = origin
        self.originHeight = height
        originECEF = origin.ecef(height: height)
        let φ = origin.latitude * .pi / 180, λ = origin.longitude * .pi / 180
        sinLat = sin(φ); cosLat = cos(φ); sinLon = sin(λ); cosLon = cos(λ)
    }

    /// The ENU offset of a point at ellipsoidal `height` from the origin, metres.
    public func enu(of point: Coordinate, height: Double = 0) -> ENU {
        let p = point.ecef(height: height)
        let dx = p.x - originECEF.x, dy = p.y - originECEF.y, dz = p.z - originECEF.z
        return ENU(east: -sinLon * dx + cosLon * dy,
                   north: -sinLat * cosLon * dx - sinLat * sinLon * dy + cosLat * dz,
                   up: cosLat * cosLon * dx + cosLat * sinLon * dy + sinLat * dz)
    }

    /// The geodetic position and ellipsoidal height (metres) of an ENU offset.
    public func coordinate(of enu: ENU) -> (coordinate: Coordinate, height: Double) {
        let dx = -sinLon * enu.east - sinLat * cosLon * enu.north + cosLat * cosLon * enu.up
        let dy = cosLon * enu.east - sinLat * sinLon * enu.north + cosLat * sinLon * enu.up
        let dz = cosLat * enu.north + sinLat * enu.up
        return Coordinate.fromECEF(ECEF(x: originECEF.x + dx, y: originECEF.y + dy, z: originECEF.z + dz))
    }
}
