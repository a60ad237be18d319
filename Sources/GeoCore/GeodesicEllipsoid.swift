public import GeoBase
/// An oblate ellipsoid of revolution, the figure geodesics are measured on.
///
/// All derived quantities follow the notation of Karney (2013), "Algorithms for geodesics",
/// J. Geodesy 87:43–55, §2: `b = a(1 − f)`, `e² = f(2 − f)`, `e′² = e²/(1 − e²)`, `n = f/(2 − f)`.
public struct Ellipsoid: Sendable, Hashable {
    /// The equatorial radius `a`, in metres.
    public let equatorialRadius: Double
    /// The flattening `f = (a − b)/a`, dimensionless.
    public let flattening: Double

    /// Creates an ellipsoid.
    /// - Parameters:
    ///   - equatorialRadius: `a` in metres, finite and positive.
    ///   - flattening: `f`, in [0, 1/50]: the series of Karney (2013) are accurate to
    ///     round-off only for |f| ≤ 1/50, and prolate figures are not supported.
    /// - Throws: `GeoCoreError` with `.invalidArgument` when a value is outside its domain.
    public init(equatorialRadius: Double, flattening: Double) throws(GeoCoreError) {
        guard equatorialRadius.isFinite, equatorialRadius > 0 else {
            throw GeoCoreError(.invalidArgument, "equatorial radius \(equatorialRadius) m is not finite and positive")
        }
        guard flattening >= 0, flattening <= 1.0 / 50 else {
            throw GeoCoreError(.invalidArgument, "flattening \(flattening) is outside [0, 1/50]")
        }
        self.equatorialRadius = equatorialRadius
        self.flattening = flattening
    }

    private init(uncheckedEquatorialRadius a: Double, flattening f: Double) {
        equatorialRadius = a
        flattening = f
    }

    /// WGS84 (NIMA TR8350.2, 3rd ed., §3.2): a = 6378137 m, 1/f = 298.257223563.
    public static let wgs84 = Ellipsoid(uncheckedEquatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// The polar semi-axis `b = a(1 − f)`, in metres.
    public var polarRadius: Double { equatorialRadius * (1 - flattening) }
    /// The first eccentricity squared, `e² = f(2 − f)`.
    @inlinable public var eccentricitySquared: Double { flattening * (2 - flattening) }
    /// The second eccentricity squared, `e′² = e²/(1 − e²)`.
    public var secondEccentricitySquared: Double {
        eccentricitySquared / ((1 - flattening) * (1 - flattening))
    }
    /// The third flattening, `n = (a − b)/(a + b) = f/(2 − f)`.
    public var thirdFlattening: Double { flattening / (2 - flattening) }

    /// The IUGG mean radius R₁ = (2a + b)/3, in metres (Moritz 1980, "Geodetic Reference
    /// System 1980"); 6371008.771 m for WGS84, usually quoted as 6371008.8 m.
    /// ``Spherical`` measures on a sphere of this radius.
    public var meanRadius: Double { (2 * equatorialRadius + polarRadius) / 3 }

    /// The principal radii of curvature at a latitude, in metres: meridional
    /// `M = a(1 − e²)/W³` (north–south) and prime vertical `N = a/W` (east–west), where
    /// `W = √(1 − e² sin²φ)` (Torge & Müller, *Geodesy*, 4th ed. 2012, §4.1, eq. 4.15/4.16).
    ///
    /// Every local frame of LocationKit computes its scale here. Takes `sin²φ` so a caller that
    /// already has `cos φ` saves a trigonometric call (`sin²φ = 1 − cos²φ`).
    /// - Complexity: O(1); one square root, no trigonometric call.
    @inlinable
    public func radiiOfCurvature(sinSquaredLatitude s2: Double) -> (meridional: Double, primeVertical: Double) {
        let e2 = eccentricitySquared
        let w2 = 1 - e2 * s2
        let w = w2.squareRoot()
        return (equatorialRadius * (1 - e2) / (w2 * w), equatorialRadius / w)
    }
}
