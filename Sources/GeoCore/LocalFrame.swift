import Platform

/// The fast flat frame: a local east/north plane around an origin, in metres, for hot loops
/// (filters, simplification, road segment lengths, spatial-index projection).
///
/// A sinusoidal projection about the origin's meridian on the WGS84 ellipsoid:
/// `north = Δφ·M(φ₀)`, `east = Δλ·N(φ₀)·cos φ`, with `M` and `N` the meridional and prime-vertical
/// radii of curvature at the origin (``Ellipsoid/radiiOfCurvature(sinSquaredLatitude:)``; Snyder,
/// *Map Projections — A Working Manual*, USGS 1395, §30 and eq. 4-18/4-20). Scale is exact along
/// every parallel and along the central meridian; the shear away from it is about `Δλ·sin φ`
/// radians, under 0.2° within 20 km of the origin, which is why filters move their origin when
/// the position strays further (``recentringDistance``). The mapping is exactly invertible, so
/// positions round-trip without loss.
///
/// ``LocalTangentPlane`` is the exact frame (through ECEF, with height) at about ten times the
/// cost of a round trip here (`Benchmarks/filters.sh` measures both).
/// - Complexity: O(1); one cosine per conversion, none within 0.01 rad of the origin's latitude.
public struct LocalFrame: Hashable, Sendable {
    /// Where east = north = 0.
    public let origin: Coordinate
    /// Metres per degree of latitude at the origin, `M(φ₀)·π/180`.
    public let metersPerDegreeLatitude: Double
    /// Metres per degree of longitude along the origin's parallel, `N(φ₀)·cos φ₀·π/180`, at
    /// least 1 mm so that divisions by it stay finite at the poles.
    public let metersPerDegreeLongitude: Double
    @usableFromInline let latitude0: Double      // radians
    @usableFromInline let longitude0: Double     // degrees
    @usableFromInline let sinLatitude0: Double, cosLatitude0: Double
    @usableFromInline let meridionalRadius: Double
    @usableFromInline let primeVerticalRadius: Double
    /// `1 / meridionalRadius`, radians per metre north (a multiplication per conversion, not a division).
    @usableFromInline let radiansPerMeterNorth: Double

    /// The distance from the origin beyond which filters re-centre their frame, in metres.
    public static let recentringDistance = 20_000.0

    /// Creates the frame around `origin`.
    public init(origin: Coordinate) {
        self.origin = origin
        let phi = origin.latitude * .pi / 180
        let s = sin(phi), c = cos(phi)
        let radii = Ellipsoid.wgs84.radiiOfCurvature(sinSquaredLatitude: s * s)
        latitude0 = phi
        longitude0 = origin.longitude
        sinLatitude0 = s
        cosLatitude0 = c
        meridionalRadius = radii.meridional
        primeVerticalRadius = radii.primeVertical
        radiansPerMeterNorth = 1 / radii.meridional
        metersPerDegreeLatitude = radii.meridional * .pi / 180
        metersPerDegreeLongitude = max(radii.primeVertical * c * .pi / 180, 1e-3)
    }

    /// East and north of `coordinate`, in metres.
    @inlinable
    public func point(for coordinate: Coordinate) -> (east: Double, north: Double) {
        let phi = coordinate.latitude * (.pi / 180)
        var dl = coordinate.longitude - longitude0
        if dl > 180 { dl -= 360 } else if dl < -180 { dl += 360 }
        return (dl * (.pi / 180) * primeVerticalRadius * cosine(phi), (phi - latitude0) * meridionalRadius)
    }

    /// cos φ, by the angle-sum formula with a Taylor series near the origin's latitude, else
    /// by `cos`: cos(φ₀ + d) = cos φ₀ cos d − sin φ₀ sin d with cos d to d⁴ and sin d to d⁵ (the
    /// first terms left out, d⁶/720 and d⁷/5040, keep the error below 1e-13 within 0.01 rad ≈
    /// 60 km: `localFrame_cosineSeriesWithinItsBound`). cos φ₀ and sin φ₀ are the frame's, the
    /// series' divisions multiplications by constant reciprocals, so a conversion costs no
    /// trigonometric call and no division.
    @inlinable @inline(__always)
    func cosine(_ phi: Double) -> Double {
        let d = phi - latitude0
        guard abs(d) < 0.01 else { return _cos(phi) }
        let d2 = d * d
        let cosD = 1 + d2 * (-0.5 + d2 * (1.0 / 24))
        let sinD = d + d * d2 * (-1.0 / 6 + d2 * (1.0 / 120))
        return cosLatitude0 * cosD - sinLatitude0 * sinD
    }

    /// The coordinate at `east`, `north` metres from the origin (latitudes clamped to ±90°).
    @inlinable
    public func coordinate(east: Double, north: Double) -> Coordinate {
        var phi = latitude0 + north * radiansPerMeterNorth
        phi = min(max(phi, -.pi / 2), .pi / 2)
        let c = max(cosine(phi), 1e-12)
        let lat = phi * (180 / .pi)
        let lon = Coordinate.normalizedLongitude(longitude0 + east / (primeVerticalRadius * c) * (180 / .pi))
        return Coordinate(uncheckedLatitude: lat, longitude: lon)
    }

    /// The distance between two nearby coordinates, metres, as `LocalFrame.distance(_:_:)` but
    /// with this frame's radii and cosine series (no trigonometric call near the origin's
    /// latitude; the radii differ from the midpoint's by under 1e-5 within 60 km). Always
    /// inlined, so the filters' two hops per fix overlap instead of waiting on each other's
    /// square root.
    @inlinable @inline(__always)
    public func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let c = cosine((a.latitude + b.latitude) * (.pi / 360))
        var dl = b.longitude - a.longitude
        if dl > 180 { dl -= 360 } else if dl < -180 { dl += 360 }
        let de = dl * (.pi / 180) * primeVerticalRadius * c
        let dn = (b.latitude - a.latitude) * (.pi / 180) * meridionalRadius
        return (de * de + dn * dn).squareRoot()
    }

    /// The planar distance between two points in this frame's constant scale (both axes
    /// scaled as at the origin: ``metersPerDegreeLatitude``, ``metersPerDegreeLongitude``), in
    /// metres. The cheapest measure here (no trigonometric call, no branch on latitude), for
    /// bounds over many points; its relative error grows with the points' latitude distance
    /// from the origin, about `tan φ₀·Δφ` (1e-4 at 45° for 0.6 km).
    /// - Complexity: O(1).
    @inlinable
    public func planarDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let dy = (b.latitude - a.latitude) * metersPerDegreeLatitude
        var dlon = b.longitude - a.longitude
        if dlon > 180 { dlon -= 360 } else if dlon < -180 { dlon += 360 }
        let dx = dlon * metersPerDegreeLongitude
        return (dx * dx + dy * dy).squareRoot()
    }

    /// Whether `coordinate` is near enough to the origin's latitude (0.005 rad ≈ 30 km) for
    /// ``distance(_:_:)`` to need no trigonometric call.
    @inlinable
    public func coversLatitude(of coordinate: Coordinate) -> Bool {
        abs(coordinate.latitude * .pi / 180 - latitude0) < 0.005
    }

    /// The distance between two nearby coordinates on the plane tangent at their midpoint, in metres.
    ///
    /// Relative error below 1e-6 for points a few kilometres apart; the filter rules only compare
    /// short hops with thresholds, where this is exact enough and ~30× cheaper than a geodesic.
    /// ``Spherical/equirectangularDistance(from:to:)`` is the same measure with documented
    /// error bounds, for callers that want a `Distance`.
    /// - Complexity: O(1); one trigonometric call.
    @inlinable
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let phi = (a.latitude + b.latitude) * (.pi / 360)
        let c = _cos(phi)
        let radii = Ellipsoid.wgs84.radiiOfCurvature(sinSquaredLatitude: 1 - c * c)
        var dl = b.longitude - a.longitude
        if dl > 180 { dl -= 360 } else if dl < -180 { dl += 360 }
        let de = dl * (.pi / 180) * radii.primeVertical * c
        let dn = (b.latitude - a.latitude) * (.pi / 180) * radii.meridional
        return (de * de + dn * dn).squareRoot()
    }
}

/// `cos` from the C library for GeoCore's inlinable code, which cannot name the internally
/// imported libm itself.
@usableFromInline func _cos(_ x: Double) -> Double { cos(x) }
