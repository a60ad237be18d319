import Platform

/// Angle helpers and the series expansions of Karney (2013), "Algorithms for geodesics",
/// J. Geodesy 87:43–55, truncated at order 6 in ε (eqs. 17, 18, 21, 42, 43) and order 5 in
/// n and ε for the longitude integral (eqs. 24, 25).
///
/// Series coefficients are held in `SIMD8<Double>` lanes: lane `l − 1` holds the coefficient
/// of sin 2lσ, so no heap storage is touched on the hot path.
enum GeodesicMath {
    /// √(smallest normal double): stands in for cos β at a pole so azimuths stay defined.
    static let tiny = Double.leastNormalMagnitude.squareRoot()
    /// Radians per degree.
    static let degree = Double.pi / 180

    /// Scales (s, c) to unit length. The norm is √(s² + c²) with one Newton correction whose
    /// residual is computed exactly with fused multiply-adds: as accurate as a correctly
    /// rounded `hypot` (the last bit matters for millimetre lines, whose azimuth comes from a
    /// difference of nearly equal sines) at a fraction of glibc `hypot`'s cost.
    @inline(__always)
    static func normalize(_ s: inout Double, _ c: inout Double) {
        let ss = s * s, cc = c * c
        let (sum, e) = twoSum(ss, cc)
        // s² + c² = sum + low exactly, up to the rounding of `low` itself.
        let low = e + (-ss).addingProduct(s, s) + (-cc).addingProduct(c, c)
        let r0 = sum.squareRoot()
        let r = r0 + (sum.addingProduct(-r0, r0) + low) / (2 * r0)
        s /= r
        c /= r
    }

    /// x when positive, else +0 (never −0, which would turn atan2(−0, −1) into −π).
    @inline(__always)
    static func positivePart(_ x: Double) -> Double { x > 0 ? x : 0 }

    /// Error-free sum: `s + t` equals `a + b` exactly (Knuth, TAOCP vol. 2, §4.2.2).
    @inline(__always)
    static func twoSum(_ a: Double, _ b: Double) -> (s: Double, t: Double) {
        let s = a + b
        let bp = s - a
        let ap = s - bp
        return (s, (a - ap) + (b - bp))
    }

    /// Rounds angles below 1/16 degree onto a coarser grid (multiples of 2⁻⁵⁷ degrees), so that
    /// tiny inputs give the same result as their sum with small exact values would.
    @inline(__always)
    static func roundAngle(_ x: Double) -> Double {
        let z = 1.0 / 16
        let y = abs(x)
        let r = y < z ? z - (z - y) : y
        return x < 0 ? -r : r
    }

    /// The sine and cosine of `x + t` degrees (t a small correction, such as the rounding error
    /// of a difference), reduced by exact quadrants first, so sin 180° is exactly 0 and
    /// cos 90° exactly 0. Arguments below 1/16° are rounded by ``roundAngle(_:)``.
    @inline(__always)
    static func sincosd(_ x: Double, error t: Double = 0) -> (sin: Double, cos: Double) {
        var r = abs(x) <= 180 ? x : x.remainder(dividingBy: 360)
        let q = (r / 90).rounded()
        r = roundAngle((r - 90 * q) + t) * degree
        let s = sin(r), c = cos(r)
        switch (q.isFinite ? Int(q) : 0) & 3 { // NaN in, NaN out
        case 0: return (s, c + 0)
        case 1: return (c, 0 - s)
        case 2: return (-s, 0 - c)
        default: return (-c, s + 0)
        }
    }

    /// atan2 in degrees, in [-180, 180], exact at multiples of 90°.
    @inline(__always)
    static func atan2d(_ y: Double, _ x: Double) -> Double {
        var x = x, y = y
        var q = 0
        if abs(y) > abs(x) { swap(&x, &y); q = 2 }
        if x.sign == .minus { x = -x; q += 1 }
        let ang = atan2(y, x) / degree
        switch q {
        case 1: return (y.sign == .minus ? -180 : 180) - ang
        case 2: return 90 - ang
        case 3: return -90 + ang
        default: return ang
        }
    }

    /// The difference `y − x` in degrees reduced to [-180, 180], as a rounded value plus the
    /// rounding error, so differences near ±180° keep their sign.
    @inline(__always)
    static func angleDifference(from x: Double, to y: Double) -> (d: Double, e: Double) {
        let (s, t) = twoSum(reduced(-x), reduced(y))
        var d = reduced(s)
        if d == 0 || abs(d) == 180 {
            let sign = t == 0 ? y - x : -t
            d = sign < 0 ? -abs(d) : abs(d)
        }
        return (d, t)
    }

    /// x reduced modulo 360 into [-180, 180], exactly; skips the division when already there.
    @inline(__always)
    static func reduced(_ x: Double) -> Double {
        abs(x) <= 180 ? x : x.remainder(dividingBy: 360)
    }

    /// Longitude in degrees wrapped into [-180, 180).
    @inline(__always)
    static func wrapLongitude(_ x: Double) -> Double {
        let r = x.remainder(dividingBy: 360)
        return r == 180 ? -180 : r
    }

    /// Σₗ cₗ sin 2lσ for l = 1...count by Clenshaw summation, given sin σ and cos σ.
    @inline(__always)
    static func sinSeries(_ c: SIMD8<Double>, count: Int, sin s: Double, cos cs: Double) -> Double {
        let ar = 2 * (cs - s) * (cs + s) // 2 cos 2σ
        var b1 = 0.0, b2 = 0.0
        var k = count - 1
        while k >= 0 {
            let b = ar * b1 - b2 + c[k]
            b2 = b1
            b1 = b
            k -= 1
        }
        return 2 * s * cs * b1
    }

    /// A₁ (eq. 17): the scale of the distance integral I₁.
    @inline(__always)
    static func a1(_ eps: Double) -> Double {
        let e2 = eps * eps
        return (1 + e2 * (1.0 / 4 + e2 * (1.0 / 64 + e2 / 256))) / (1 - eps)
    }

    /// C₁ₗ (eq. 18): the Fourier coefficients of I₁(σ).
    @inline(__always)
    static func c1(_ eps: Double) -> SIMD8<Double> {
        let e2 = eps * eps, e3 = e2 * eps, e4 = e2 * e2, e5 = e4 * eps, e6 = e3 * e3
        return SIMD8(
            eps * (-1.0 / 2 + e2 * (3.0 / 16 - e2 / 32)),
            e2 * (-1.0 / 16 + e2 * (1.0 / 32 - e2 * 9 / 2048)),
            e3 * (-1.0 / 48 + e2 * 3 / 256),
            e4 * (-5.0 / 512 + e2 * 3 / 512),
            e5 * (-7.0 / 1280),
            e6 * (-7.0 / 2048),
            0, 0)
    }

    /// C′₁ₗ (eq. 21): the coefficients of the reverted series σ(τ) with τ = s/(b A₁).
    @inline(__always)
    static func c1Prime(_ eps: Double) -> SIMD8<Double> {
        let e2 = eps * eps, e3 = e2 * eps, e4 = e2 * e2, e5 = e4 * eps, e6 = e3 * e3
        return SIMD8(
            eps * (1.0 / 2 + e2 * (-9.0 / 32 + e2 * 205 / 1536)),
            e2 * (5.0 / 16 + e2 * (-37.0 / 96 + e2 * 1335 / 4096)),
            e3 * (29.0 / 96 - e2 * 75 / 128),
            e4 * (539.0 / 1536 - e2 * 2391 / 2560),
            e5 * (3467.0 / 7680),
            e6 * (38081.0 / 61440),
            0, 0)
    }

    /// A₂ (eq. 42): the scale of I₂, used for the reduced length.
    @inline(__always)
    static func a2(_ eps: Double) -> Double {
        let e2 = eps * eps
        return (1 - eps) * (1 + e2 * (1.0 / 4 + e2 * (9.0 / 64 + e2 * 25 / 256)))
    }

    /// C₂ₗ (eq. 43): the Fourier coefficients of I₂(σ).
    @inline(__always)
    static func c2(_ eps: Double) -> SIMD8<Double> {
        let e2 = eps * eps, e3 = e2 * eps, e4 = e2 * e2, e5 = e4 * eps, e6 = e3 * e3
        return SIMD8(
            eps * (1.0 / 2 + e2 * (1.0 / 16 + e2 / 32)),
            e2 * (3.0 / 16 + e2 * (1.0 / 32 + e2 * 35 / 2048)),
            e3 * (5.0 / 48 + e2 * 5 / 256),
            e4 * (35.0 / 512 + e2 * 7 / 512),
            e5 * (63.0 / 1280),
            e6 * (77.0 / 2048),
            0, 0)
    }
}

/// The longitude-integral series A₃(ε) and C₃ₗ(ε) (Karney 2013, eqs. 24–25), whose
/// coefficients are polynomials in n fixed per ellipsoid; lane j multiplies ε^(j+1)
/// (ε^j for A₃).
struct LongitudeSeries: Sendable {
    let a3: SIMD8<Double>
    let c31: SIMD8<Double>
    let c32: SIMD8<Double>
    let c33: SIMD8<Double>
    let c34: SIMD8<Double>
    let c35: SIMD8<Double>

    init(n: Double) {
        let n2 = n * n
        a3 = SIMD8(1,
                   -(1.0 / 2 - n / 2),
                   -(1.0 / 4 + n / 8 - 3 * n2 / 8),
                   -(1.0 / 16 + 3 * n / 16 + n2 / 16),
                   -(3.0 / 64 + n / 32),
                   -3.0 / 128,
                   0, 0)
        c31 = SIMD8(1.0 / 4 - n / 4, 1.0 / 8 - n2 / 8, 3.0 / 64 + 3 * n / 64 - n2 / 64,
                    5.0 / 128 + n / 64, 3.0 / 128, 0, 0, 0)
        c32 = SIMD8(0, 1.0 / 16 - 3 * n / 32 + n2 / 32, 3.0 / 64 - n / 32 - 3 * n2 / 64,
                    3.0 / 128 + n / 128, 5.0 / 256, 0, 0, 0)
        c33 = SIMD8(0, 0, 5.0 / 192 - 3 * n / 64 + 5 * n2 / 192, 3.0 / 128 - 5 * n / 192,
                    7.0 / 512, 0, 0, 0)
        c34 = SIMD8(0, 0, 0, 7.0 / 512 - 7 * n / 256, 7.0 / 512, 0, 0, 0)
        c35 = SIMD8(0, 0, 0, 0, 21.0 / 2560, 0, 0, 0)
    }

    /// A₃(ε).
    @inline(__always)
    func a3(_ eps: Double) -> Double {
        let e2 = eps * eps
        let e = SIMD8(1, eps, e2, e2 * eps, e2 * e2, e2 * e2 * eps, 0, 0)
        return (a3 * e).sum()
    }

    /// C₃ₗ(ε) for l = 1...5, in lanes 0...4.
    @inline(__always)
    func c3(_ eps: Double) -> SIMD8<Double> {
        let e2 = eps * eps
        let p = SIMD8(eps, e2, e2 * eps, e2 * e2, e2 * e2 * eps, 0, 0, 0)
        return SIMD8((c31 * p).sum(), (c32 * p).sum(), (c33 * p).sum(), (c34 * p).sum(),
                     (c35 * p).sum(), 0, 0, 0)
    }
}
