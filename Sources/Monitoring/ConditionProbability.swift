import Platform
public import GeoCore

/// The probability that the true position is inside a region, given a fix and its error.
///
/// The error model is the one `Location` documents: a circular normal error whose 68 % radius is
/// `horizontalAccuracy`, so the per-axis standard deviation is σ = r₆₈ / √(−2 ln 0.32) =
/// r₆₈ / 1.5096.
///
/// - A circle of radius R whose centre is d from the fix: the distance of the true position
///   from the centre is Rice-distributed (Rice 1945; ν = d, σ), so P(inside) is the Rice CDF at
///   R, `1 − Q₁(d/σ, R/σ)` (Marcum Q), integrated here numerically (``rice(distance:radius:sigma:)``).
/// - A region much larger than the error (smallest extent ≥ ``largeRegionRatio`` σ): the
///   boundary near the fix is close to a straight line, so P(inside) = Φ(s/σ) on the signed
///   distance s to the boundary (``normal(signedDistance:sigma:)``). For a circle with R = 20 σ
///   this differs from the Rice value by at most 0.01 (near s = 0; `InsideProbabilityTests`); at
///   the decision thresholds (0.9, 0.1) by under 0.01. Polygon corners make it a little
///   optimistic: 1.28 σ inside a right-angled convex corner it says 0.90, the truth is 0.81.
/// - A polygon smaller than that: the mean of the indicator over a fixed low-discrepancy set of
///   ``cubatureOffsets`` normal offsets (quasi-Monte Carlo, error about 1/256).
public enum InsideProbability {
    /// √(−2 ln 0.32): a 68 % horizontal radius over the per-axis standard deviation.
    public static let radiusPerSigma = (-2 * log(0.32)).squareRoot()
    /// Regions whose smallest extent is at least this many σ use the normal approximation.
    public static let largeRegionRatio = 20.0
    /// Beyond this many σ from the boundary the probability is taken as 0 or 1 (error < 1e-9).
    public static let decidedBeyond = 6.0

    /// The per-axis standard deviation of a fix whose 68 % radius is `accuracy` metres.
    @inlinable public static func sigma(accuracy: Double) -> Double { accuracy / radiusPerSigma }

    /// Φ(s/σ): the half-plane probability, `s` metres inside the boundary (negative outside).
    public static func normal(signedDistance s: Double, sigma: Double) -> Double {
        0.5 * erfc(-s / (sigma * 2.0.squareRoot()))
    }

    /// The Rice CDF at `radius`: P(|X| ≤ R) for X ~ N(ν, σ²I₂) with |ν| = `distance`, metres.
    ///
    /// ∫₀ᴿ (r/σ²) exp(−(r−ν)²/2σ²) · e^{−rν/σ²} I₀(rν/σ²) dr, by 48-point composite Simpson over
    /// the part of [0, R] within ``decidedBeyond`` σ of ν (the integrand outside is below 1e-8);
    /// I₀ scaled as in ``scaledBesselI0(_:)``. Absolute error below 1e-5 (tests).
    public static func rice(distance nu: Double, radius: Double, sigma: Double) -> Double {
        let lower = max(0, nu - (decidedBeyond + 2) * sigma), upper = min(radius, nu + (decidedBeyond + 2) * sigma)
        guard upper > lower else { return nu < radius ? 1 : 0 }
        let n = 48
        let h = (upper - lower) / Double(n)
        let s2 = sigma * sigma
        var sum = 0.0
        for i in 0...n {
            let r = lower + Double(i) * h
            let f = r / s2 * exp(-(r - nu) * (r - nu) / (2 * s2)) * scaledBesselI0(r * nu / s2)
            sum += f * (i == 0 || i == n ? 1 : (i % 2 == 1 ? 4 : 2))
        }
        return min(max(sum * h / 3, 0), 1)
    }

    /// e^{−x} I₀(x) for x ≥ 0: Abramowitz & Stegun 9.8.1 (x ≤ 3.75, |ε| < 1.6e-7) and 9.8.2
    /// (x > 3.75, relative |ε| < 1.9e-7).
    static func scaledBesselI0(_ x: Double) -> Double {
        if x <= 3.75 {
            let t = (x / 3.75) * (x / 3.75)
            let i0 = 1 + t * (3.5156229 + t * (3.0899424 + t * (1.2067492 + t * (0.2659732 + t * (0.0360768 + t * 0.0045813)))))
            return i0 * exp(-x)
        }
        let t = 3.75 / x
        let p = 0.39894228 + t * (0.01328592 + t * (0.00225319 + t * (-0.00157565 + t * (0.00916281
            + t * (-0.02057706 + t * (0.02635537 + t * (-0.01647633 + t * 0.00392377)))))))
        return p / x.squareRoot()
    }

    /// P(inside) for a circle of `radius` whose centre is `distance` from the fix (metres).
    public static func circle(distance d: Double, radius: Double, sigma: Double) -> Double {
        let s = radius - d
        if s >= decidedBeyond * sigma { return 1 }
        if s <= -decidedBeyond * sigma { return 0 }
        if radius >= largeRegionRatio * sigma { return normal(signedDistance: s, sigma: sigma) }
        return rice(distance: d, radius: radius, sigma: sigma)
    }

    /// P(inside) for a polygon, the fix at (`east`, `north`) in the region's frame.
    static func polygon(_ region: PolygonRegion, east: Double, north: Double, sigma: Double) -> Double {
        let s = region.signedDistance(east: east, north: north)
        if s >= decidedBeyond * sigma { return 1 }
        if s <= -decidedBeyond * sigma { return 0 }
        if region.minimumExtent >= largeRegionRatio * sigma { return normal(signedDistance: s, sigma: sigma) }
        var inside = 0
        for o in cubatureOffsets where region.contains(east: east + o.0 * sigma, north: north + o.1 * sigma) { inside += 1 }
        return Double(inside) / Double(cubatureOffsets.count)
    }

    /// P(inside) for any geographic condition; nil for a beacon condition.
    public static func of(_ condition: MonitorCondition, at fix: Coordinate, sigma: Double) -> Double? {
        switch condition {
        case .circle(let c):
            return circle(distance: LocalFrame.distance(c.center, fix), radius: c.radius.meters, sigma: sigma)
        case .polygon(let region):
            let q = region.frame.point(for: fix)
            return polygon(region, east: q.east, north: q.north, sigma: sigma)
        case .beacon:
            return nil
        }
    }

    /// 256 standard bivariate normal offsets from a Fibonacci lattice on the unit square (Box–
    /// Muller of u = (i + ½)/256 and the golden-ratio sequence), the same every run.
    static let cubatureOffsets: [(Double, Double)] = (0..<256).map { i in
        let u = (Double(i) + 0.5) / 256
        let v = (Double(i) * 0.618_033_988_749_894_8).truncatingRemainder(dividingBy: 1)
        let r = (-2 * log(1 - u)).squareRoot()
        return (r * cos(2 * .pi * v), r * sin(2 * .pi * v))
    }
}
