import Platform

extension Geodesic {
    /// Legs up to this chord length, in metres, are measured from their chord
    /// (``distance(fromLatitude:longitude:toLatitude:longitude:)``).
    public static let chordLegLimit = 1000.0

    /// The length of the shortest geodesic between two points, in metres, within 1e-9
    /// relative of ``inverse(fromLatitude:longitude:toLatitude:longitude:)`` and several times
    /// cheaper for the short legs of a track.
    ///
    /// A leg whose chord c (straight line through the ellipsoid) is at most
    /// ``chordLegLimit`` on an oblate ellipsoid is measured as s ≈ c · (1 + c² / (48 ρ²)),
    /// ρ = a(1 − e²) the smallest radius of curvature on the ellipsoid (the meridian's at the
    /// equator); every other leg goes to Karney's inverse.
    ///
    /// The error bound: a geodesic's principal normal is the surface normal, so its curvature
    /// in space is the normal curvature of its direction (Euler's theorem: between 1/N and
    /// 1/M), at most 1/ρ. By Schur's comparison theorem (a space curve whose curvature never
    /// exceeds a circle's has a chord no shorter than the circle's for the same length:
    /// S. S. Chern, "Curves and surfaces in Euclidean space", 1967, §5; do Carmo,
    /// "Differential Geometry of Curves and Surfaces", §5-7) the chord of a geodesic of length
    /// s ≤ πρ satisfies 2ρ sin(s / 2ρ) ≤ c ≤ s, so 0 ≤ s − c ≤ s³ / (24 ρ²), and the midpoint
    /// estimate above errs by at most s³ / (48 ρ²) (1 + s² / (8 ρ²)): relative
    /// 5.2e-10 at 1 km on WGS84, 5.2e-12 at 100 m, 5.2e-14 at 10 m. The chord is computed
    /// from differences of latitudes and longitudes, never of Cartesian coordinates, so its
    /// rounding error stays relative (a few units in the last place) for legs down to zero
    /// length, and across the antimeridian.
    /// - Parameters: latitudes in [-90, 90] degrees, longitudes any finite degrees; anything
    ///   else gives NaN.
    /// - Complexity: O(1): six sines or cosines and three square roots for a short leg.
    public func distance(fromLatitude lat1: Double, longitude lon1: Double,
                         toLatitude lat2: Double, longitude lon2: Double) -> Double {
        distance(from: chordPoint(latitude: lat1, longitude: lon1), to: chordPoint(latitude: lat2, longitude: lon2))
    }

    /// A point with the terms ``distance(from:to:)`` needs of it, so a track computes them once
    /// per point rather than twice (once for each leg the point ends). Valid only with the
    /// `Geodesic` (ellipsoid) that prepared it.
    public struct ChordPoint: Sendable {
        /// Degrees, as given.
        public let latitude, longitude: Double
        /// sin β and cos β (β the reduced latitude) and w = √(cos²φ + (1 − f)² sin²φ).
        fileprivate let sinBeta, cosBeta, w: Double
        /// Whether the chord formula applies (latitude within ±90° on an oblate ellipsoid).
        fileprivate let usesChord: Bool
    }

    /// The point (`latitude`, `longitude`) in degrees, prepared for ``distance(from:to:)``.
    /// - Complexity: O(1): two sines or cosines and one square root.
    public func chordPoint(latitude: Double, longitude: Double) -> ChordPoint {
        guard ellipsoid.flattening >= 0, abs(latitude) <= 90 else {
            return ChordPoint(latitude: latitude, longitude: longitude, sinBeta: .nan, cosBeta: .nan, w: .nan, usesChord: false)
        }
        let f1 = 1 - ellipsoid.flattening
        // Reduced (parametric) latitude β, tan β = (1 − f) tan φ: a point is
        // (a cos β cos λ, a cos β sin λ, b sin β) with b = (1 − f) a.
        // Sine and cosine reduced by exact quadrants in degrees, so cos φ keeps its relative
        // accuracy near a pole (cos of a rounded radian argument near π/2 would not).
        let (sinPhi, cosPhi) = GeodesicMath.sincosd(latitude)
        let w = (cosPhi * cosPhi + f1 * f1 * sinPhi * sinPhi).squareRoot()
        return ChordPoint(latitude: latitude, longitude: longitude,
                          sinBeta: f1 * sinPhi / w, cosBeta: cosPhi / w, w: w, usesChord: true)
    }

    /// The length of the shortest geodesic from `p1` to `p2`, in metres: exactly what
    /// ``distance(fromLatitude:longitude:toLatitude:longitude:)`` gives for their coordinates.
    /// - Complexity: O(1): two sines and two square roots for a short leg.
    public func distance(from p1: ChordPoint, to p2: ChordPoint) -> Double {
        let (lat1, lon1, lat2, lon2) = (p1.latitude, p1.longitude, p2.latitude, p2.longitude)
        guard p1.usesChord, p2.usesChord else {
            return inverse(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2).distance.meters
        }
        let a = ellipsoid.equatorialRadius, f1 = 1 - ellipsoid.flattening
        let degree = Double.pi / 180
        let (sinBeta1, cosBeta1, sinBeta2, cosBeta2) = (p1.sinBeta, p1.cosBeta, p2.sinBeta, p2.cosBeta)
        // sin(β₂ − β₁) = (1 − f) sin(φ₂ − φ₁) / (w₁ w₂): from the latitude difference, not
        // from a difference of nearly equal products.
        let sinDeltaBeta = f1 * sin((lat2 - lat1) * degree) / (p1.w * p2.w)
        let cosDeltaBeta = cosBeta1 * cosBeta2 + sinBeta1 * sinBeta2
        // sin²(Δβ/2) = sin²Δβ / (2 (1 + cos Δβ)), free of cancellation.
        let halfBetaSquared = sinDeltaBeta * sinDeltaBeta / (2 * (1 + cosDeltaBeta))
        // sin² of the mean reduced latitude: (1 − cos(β₁ + β₂)) / 2.
        let meanSinSquared = (1 - (cosBeta1 * cosBeta2 - sinBeta1 * sinBeta2)) / 2
        // The longitude difference reduced into [-180, 180] exactly (plus its rounding error).
        let (dLon, dLonError) = GeodesicMath.angleDifference(from: lon1, to: lon2)
        guard dLon.isFinite else { return .nan }
        let halfLambda = sin((dLon + dLonError) * (degree / 2))
        // |P₂ − P₁|² = 4 sin²(Δβ/2) (a² sin²β̄ + b² cos²β̄) + 4 a² cos β₁ cos β₂ sin²(Δλ/2),
        // β̄ = (β₁ + β₂)/2: a sum of two non-negative terms.
        let b = f1 * a
        let meridianPart = halfBetaSquared * (b * b + (a * a - b * b) * meanSinSquared)
        let chord = (4 * (meridianPart + a * a * cosBeta1 * cosBeta2 * halfLambda * halfLambda)).squareRoot()
        guard chord <= Geodesic.chordLegLimit else {
            return inverse(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2).distance.meters
        }
        let rho = a * f1 * f1 // a (1 − e²), since 1 − e² = (1 − f)²
        return chord * (1 + chord * chord / (48 * rho * rho))
    }
}
