import Platform

/// The solution of the inverse geodesic problem between two points.
public struct GeodesicInverseResult: Sendable, Hashable {
    /// The length of the shortest geodesic, in metres.
    public var distance: Distance
    /// The forward azimuth at the first point, degrees clockwise from north in (-180, 180].
    public var initialAzimuth: Double
    /// The forward azimuth at the second point (the direction of travel on arrival),
    /// degrees clockwise from north in (-180, 180].
    public var finalAzimuth: Double

    /// The forward azimuth at the first point as a bearing in [0, 360).
    public var initialBearing: Bearing { Bearing(degrees: initialAzimuth) }
    /// The direction of travel on arrival at the second point, in [0, 360).
    public var finalBearing: Bearing { Bearing(degrees: finalAzimuth) }
}

/// The solution of the direct geodesic problem.
public struct GeodesicDirectResult: Sendable, Hashable {
    /// The point reached.
    public var coordinate: Coordinate
    /// The forward azimuth on arrival, degrees clockwise from north in (-180, 180].
    public var finalAzimuth: Double

    /// The direction of travel on arrival, in [0, 360).
    public var finalBearing: Bearing { Bearing(degrees: finalAzimuth) }
}

/// Geodesics on an ellipsoid of revolution, accurate to round-off (about 15 nm for WGS84).
///
/// Implements Karney (2013), "Algorithms for geodesics", J. Geodesy 87:43–55
/// (doi:10.1007/s00190-012-0578-z): the auxiliary-sphere integrals I₁, I₂, I₃ as series to
/// order 6 (§3), the direct problem by reverting the distance series (eq. 20), and the
/// inverse problem by Newton's method on the azimuth α₁ (§4, eq. 46) started from a
/// spherical estimate, from the short-line solution (eqs. 48–50) or, for nearly antipodal
/// points, from the astroid (§5, eqs. 53–56), with meridional and equatorial lines solved
/// directly.
///
/// A value type without mutable state: share it freely across tasks.
public struct Geodesic: Sendable {
    /// The ellipsoid the geodesics lie on.
    public let ellipsoid: Ellipsoid

    private let a: Double
    private let f: Double
    private let f1: Double // 1 − f
    private let b: Double
    private let ep2: Double
    private let n: Double
    private let shortLineTolerance: Double
    private let series: LongitudeSeries

    private static let tol0 = Double.ulpOfOne
    private static let tol1 = 200 * tol0
    private static let tol2 = tol0.squareRoot()
    private static let tolb = tol0 * tol2
    private static let xthresh = 1000 * tol2
    private static let maxNewton = 20
    private static let maxIterations = maxNewton + Double.significandBitCount + 1 + 10

    /// Prepares the ellipsoid-dependent series coefficients.
    /// - Complexity: O(1).
    public init(_ ellipsoid: Ellipsoid) {
        self.ellipsoid = ellipsoid
        a = ellipsoid.equatorialRadius
        f = ellipsoid.flattening
        f1 = 1 - f
        b = ellipsoid.polarRadius
        ep2 = ellipsoid.secondEccentricitySquared
        n = ellipsoid.thirdFlattening
        // The short-line solution (eq. 48) errs by O(f σ₁₂²); accept it while that is below
        // round-off.
        shortLineTolerance = 0.1 * Geodesic.tol2
            / (max(0.001, abs(f)) * min(1, 1 - f / 2) / 2).squareRoot()
        series = LongitudeSeries(n: n)
    }

    /// Geodesics on WGS84.
    public static let wgs84 = Geodesic(.wgs84)

    // MARK: Inverse

    /// Solves the inverse problem: the shortest geodesic between two points.
    ///
    /// For coincident points the distance is 0 and both azimuths are those of the meridian
    /// (0° or 180°). At a pole the azimuth is the limit approaching the pole along the
    /// meridian of the longitude given for it.
    /// - Complexity: O(1); typically 2–4 Newton iterations, at most 83.
    public func inverse(from start: Coordinate, to end: Coordinate) -> GeodesicInverseResult {
        inverse(fromLatitude: start.latitude, longitude: start.longitude,
                toLatitude: end.latitude, longitude: end.longitude)
    }

    /// Solves the inverse problem on raw degrees, skipping `Coordinate` validation (the hot
    /// batch path).
    /// - Parameters: latitudes in [-90, 90] degrees, longitudes any finite degrees; anything
    ///   else (NaN, infinities, latitudes out of range) gives NaN in every field.
    /// - Complexity: O(1); typically 2–4 Newton iterations, at most 83.
    public func inverse(fromLatitude lat1: Double, longitude lon1: Double,
                        toLatitude lat2: Double, longitude lon2: Double) -> GeodesicInverseResult {
        let r = solveInverse(lat1, lon1, lat2, lon2)
        return GeodesicInverseResult(distance: Distance(meters: r.s12),
                                     initialAzimuth: r.azi1, finalAzimuth: r.azi2)
    }

    private typealias M = GeodesicMath

    /// The inverse solution in metres and degrees (azimuths in (-180, 180]).
    @inline(__always)
    private func solveInverse(_ latitude1: Double, _ longitude1: Double,
                              _ latitude2: Double, _ longitude2: Double)
        -> (s12: Double, azi1: Double, azi2: Double) {
        // Reduce to lon12 in [0, 180], lat1 <= 0 and |lat2| <= |lat1| (§4); undo at the end.
        let (d, e) = M.angleDifference(from: longitude1, to: longitude2)
        guard d.isFinite, abs(latitude1) <= 90, abs(latitude2) <= 90 else { return (.nan, .nan, .nan) }
        var lonsign: Double = d.sign == .minus ? -1 : 1
        let lon12 = lonsign * d, lon12e = lonsign * e
        let lon12s = (180 - lon12) - lon12e // the supplement, 180° − lon12
        let lam12 = lon12 * M.degree
        let (slam12, clam12) = M.sincosd(lon12, error: lon12e)

        var lat1 = M.roundAngle(latitude1), lat2 = M.roundAngle(latitude2)
        let swapp: Double = abs(lat1) < abs(lat2) ? -1 : 1
        if swapp < 0 {
            lonsign = -lonsign
            swap(&lat1, &lat2)
        }
        let latsign: Double = lat1 < 0 ? 1 : -1
        lat1 *= latsign
        lat2 *= latsign

        // Reduced latitudes: tan β = (1 − f) tan φ (eq. 1); cos β ≥ tiny keeps poles regular.
        var (sbet1, cbet1) = M.sincosd(lat1)
        sbet1 *= f1
        M.normalize(&sbet1, &cbet1)
        cbet1 = max(M.tiny, cbet1)
        var (sbet2, cbet2) = M.sincosd(lat2)
        sbet2 *= f1
        M.normalize(&sbet2, &cbet2)
        cbet2 = max(M.tiny, cbet2)
        // When |β₂| and |β₁| agree to round-off make them equal, so that eq. 45's cos²β₂ − cos²β₁
        // (computed from whichever of sin β or cos β is more sensitive) vanishes exactly.
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = sbet2 < 0 ? -abs(sbet1) : abs(sbet1) }
        } else if abs(sbet2) == -sbet1 {
            cbet2 = cbet1
        }
        let dn1 = (1 + ep2 * sbet1 * sbet1).squareRoot()
        let dn2 = (1 + ep2 * sbet2 * sbet2).squareRoot()

        var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0
        var s12 = 0.0
        var solved = false

        if lat1 == -90 || slam12 == 0 {
            // Meridional: α₁ = λ₁₂ (0 or 180°). Valid unless it runs past a conjugate
            // point (m₁₂ < 0), where the shortest line leaves the meridian.
            calp1 = clam12
            salp1 = slam12
            calp2 = 1
            salp2 = 0
            let ssig1 = sbet1, csig1 = calp1 * cbet1
            let ssig2 = sbet2, csig2 = calp2 * cbet2
            var sig12 = atan2(M.positivePart(csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
            var l = lengths(eps: n, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                            ssig2: ssig2, csig2: csig2, dn2: dn2, reduced: true)
            if sig12 < 1 || l.m12b >= 0 {
                if sig12 < 3 * M.tiny || (sig12 < Geodesic.tol0 && (l.s12b < 0 || l.m12b < 0)) {
                    sig12 = 0
                    l.s12b = 0
                }
                s12 = l.s12b * b
                solved = true
            }
        }

        if !solved && sbet1 == 0 && lon12s >= f * 180 {
            // Equatorial, short of the point where the shortest line leaves the equator.
            calp1 = 0
            calp2 = 0
            salp1 = 1
            salp2 = 1
            s12 = a * lam12
            solved = true
        }

        if !solved {
            let start = inverseStart(sbet1: sbet1, cbet1: cbet1, sbet2: sbet2, cbet2: cbet2,
                                     lam12: lam12, slam12: slam12, clam12: clam12)
            salp1 = start.salp1
            calp1 = start.calp1
            if start.sig12 >= 0 {
                // Short line solved on the auxiliary sphere with ω = λ/w̄ (eq. 48).
                salp2 = start.salp2
                calp2 = start.calp2
                s12 = start.sig12 * b * start.dnm
            } else {
                // Newton's method on α₁, kept inside a shrinking bracket (0, π).
                var salp1a = M.tiny, calp1a = 1.0, salp1b = M.tiny, calp1b = -1.0
                var tripn = false, tripb = false
                var it = 0
                var l = Lambda()
                while it < Geodesic.maxIterations {
                    l = lambda12(sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2,
                                 dn2: dn2, salp1: salp1, calp1: calp1, slam12: slam12, clam12: clam12,
                                 derivative: it < Geodesic.maxNewton)
                    let v = l.v
                    if tripb || !(abs(v) >= (tripn ? 8 : 1) * Geodesic.tol0) { break }
                    if v > 0 && (it > Geodesic.maxNewton || calp1 / salp1 > calp1b / salp1b) {
                        salp1b = salp1
                        calp1b = calp1
                    } else if v < 0 && (it > Geodesic.maxNewton || calp1 / salp1 < calp1a / salp1a) {
                        salp1a = salp1
                        calp1a = calp1
                    }
                    it += 1
                    if it <= Geodesic.maxNewton && l.dv > 0 {
                        let dalp1 = -v / l.dv
                        if abs(dalp1) < .pi {
                            let sd = sin(dalp1), cd = cos(dalp1)
                            let nsalp1 = salp1 * cd + calp1 * sd
                            if nsalp1 > 0 {
                                calp1 = calp1 * cd - salp1 * sd
                                salp1 = nsalp1
                                M.normalize(&salp1, &calp1)
                                tripn = abs(v) <= 16 * Geodesic.tol0
                                continue
                            }
                        }
                    }
                    // Bisection when Newton leaves the bracket or stalls.
                    salp1 = (salp1a + salp1b) / 2
                    calp1 = (calp1a + calp1b) / 2
                    M.normalize(&salp1, &calp1)
                    tripn = false
                    tripb = abs(salp1a - salp1) + (calp1a - calp1) < Geodesic.tolb
                        || abs(salp1 - salp1b) + (calp1 - calp1b) < Geodesic.tolb
                }
                salp2 = l.salp2
                calp2 = l.calp2
                let s = lengths(eps: l.eps, sig12: l.sig12, ssig1: l.ssig1, csig1: l.csig1, dn1: dn1,
                                ssig2: l.ssig2, csig2: l.csig2, dn2: dn2, reduced: false)
                s12 = s.s12b * b
            }
        }

        if swapp < 0 {
            swap(&salp1, &salp2)
            swap(&calp1, &calp2)
        }
        salp1 *= swapp * lonsign
        calp1 *= swapp * latsign
        salp2 *= swapp * lonsign
        calp2 *= swapp * latsign
        var azi1 = M.atan2d(salp1, calp1), azi2 = M.atan2d(salp2, calp2)
        if azi1 == -180 { azi1 = 180 }
        if azi2 == -180 { azi2 = 180 }
        return (s12 + 0, azi1, azi2)
    }

    /// Distance and reduced length (both divided by b) along a geodesic with parameter ε
    /// between σ₁ and σ₂: s/b = I₁ (eq. 7), m₁₂/b from J = I₁ − I₂ (eq. 38).
    @inline(__always)
    private func lengths(eps: Double, sig12: Double, ssig1: Double, csig1: Double, dn1: Double,
                         ssig2: Double, csig2: Double, dn2: Double, reduced: Bool)
        -> (s12b: Double, m12b: Double) {
        let a1 = M.a1(eps)
        let c1 = M.c1(eps)
        let s12b = a1 * (sig12 + M.sinSeries(c1, count: 6, sin: ssig2, cos: csig2)
            - M.sinSeries(c1, count: 6, sin: ssig1, cos: csig1))
        guard reduced else { return (s12b, 0) }
        let a2 = M.a2(eps)
        let cj = a1 * c1 - a2 * M.c2(eps)
        let j12 = (a1 - a2) * sig12 + M.sinSeries(cj, count: 6, sin: ssig2, cos: csig2)
            - M.sinSeries(cj, count: 6, sin: ssig1, cos: csig1)
        let m12b = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
        return (s12b, m12b)
    }

    private struct Start {
        var sig12 = -1.0
        var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0, dnm = 1.0
    }

    /// The starting α₁ for Newton's method; solves short lines outright (`sig12 >= 0`).
    @inline(__always)
    private func inverseStart(sbet1: Double, cbet1: Double, sbet2: Double, cbet2: Double,
                              lam12: Double, slam12: Double, clam12: Double) -> Start {
        var r = Start()
        let sbet12 = sbet2 * cbet1 - cbet2 * sbet1 // sin(β₂ − β₁)
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
        let sbet12a = sbet2 * cbet1 + cbet2 * sbet1 // sin(β₂ + β₁)
        let shortline = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
        var somg12: Double, comg12: Double
        if shortline {
            // w̄ at the mean reduced latitude; ω₁₂ = λ₁₂ / w̄ with w = (1 − f) dn (eq. 48).
            var sbetm2 = (sbet1 + sbet2) * (sbet1 + sbet2)
            sbetm2 /= sbetm2 + (cbet1 + cbet2) * (cbet1 + cbet2)
            r.dnm = (1 + ep2 * sbetm2).squareRoot()
            let omg12 = lam12 / (f1 * r.dnm)
            somg12 = sin(omg12)
            comg12 = cos(omg12)
        } else {
            somg12 = slam12
            comg12 = clam12
        }
        // Great circle on the auxiliary sphere (eq. 49), written to avoid cancellation.
        r.salp1 = cbet2 * somg12
        r.calp1 = comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * somg12 * somg12 / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * somg12 * somg12 / (1 - comg12)
        let ssig12 = (r.salp1 * r.salp1 + r.calp1 * r.calp1).squareRoot()
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12

        if shortline && ssig12 < shortLineTolerance {
            // Eq. 50 for α₂.
            r.salp2 = cbet1 * somg12
            r.calp2 = sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? somg12 * somg12 / (1 + comg12) : 1 - comg12)
            M.normalize(&r.salp2, &r.calp2)
            r.sig12 = atan2(ssig12, csig12)
        } else if abs(n) > 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * .pi * cbet1 * cbet1 {
            // Not nearly antipodal: the spherical estimate is a good start.
        } else {
            // Nearly antipodal (§5): scale the offset from the antipode by the width of the
            // cut, Δ = f π cos β₁ A₃ in longitude, then solve the astroid (eq. 55).
            let lam12x = atan2(-slam12, -clam12) // λ₁₂ − π
            let k2 = sbet1 * sbet1 * ep2
            let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
            let lamscale = f * cbet1 * series.a3(eps) * .pi
            let betscale = lamscale * cbet1
            let x = lam12x / lamscale
            let y = sbet12a / betscale
            if y > -Geodesic.tol1 && x > -1 - Geodesic.xthresh {
                // On the cut itself (β₂ = −β₁, |x| ≤ 1): α₁ follows from x alone.
                r.salp1 = min(1, -x)
                r.calp1 = -(1 - r.salp1 * r.salp1).squareRoot()
            } else {
                let mu = Geodesic.astroid(x: x, y: y)
                // Eq. 56: α₁ = atan2(−x/(1 + μ), y/μ).
                r.salp1 = -x / (1 + mu)
                r.calp1 = y / mu
            }
        }
        if r.salp1 > 0 {
            M.normalize(&r.salp1, &r.calp1)
        } else {
            r.salp1 = 1
            r.calp1 = 0
        }
        return r
    }

    /// The positive root μ of the astroid equation
    /// μ⁴ + 2μ³ + (1 − x² − y²)μ² − 2y²μ − y² = 0 (Karney 2013, eq. 55), y ≠ 0.
    /// By Descartes' rule of signs there is exactly one; found by Newton's method inside a
    /// bisection bracket.
    private static func astroid(x: Double, y: Double) -> Double {
        let p = 1 - x * x - y * y, q = y * y
        func g(_ m: Double) -> Double { (((m + 2) * m + p) * m - 2 * q) * m - q }
        var lo = 0.0, hi = 1.0
        while g(hi) < 0 { lo = hi; hi *= 2 }
        var m = (lo + hi) / 2
        for _ in 0..<200 {
            let gm = g(m)
            if gm == 0 { return m }
            if gm < 0 { lo = m } else { hi = m }
            let dg = ((4 * m + 6) * m + 2 * p) * m - 2 * q
            var next = m - gm / dg
            if !(next > lo && next < hi) { next = (lo + hi) / 2 }
            if abs(next - m) <= 4 * Double.ulpOfOne * m { return next }
            m = next
        }
        return m
    }

    private struct Lambda {
        var v = 0.0, dv = 0.0
        var salp2 = 0.0, calp2 = 0.0
        var sig12 = 0.0, ssig1 = 0.0, csig1 = 0.0, ssig2 = 0.0, csig2 = 0.0, eps = 0.0
    }

    /// λ₁₂(α₁) − λ₁₂ for the geodesic leaving β₁ at α₁ and reaching β₂ (eqs. 5, 8, 11, 45),
    /// with its derivative ∂λ₁₂/∂α₁ = m₁₂/(a cos α₂ cos β₂) (eqs. 46–47).
    @inline(__always)
    private func lambda12(sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double,
                          dn2: Double, salp1: Double, calp1 calp1In: Double,
                          slam12: Double, clam12: Double, derivative: Bool) -> Lambda {
        var r = Lambda()
        // Break the degeneracy of equatorial lines heading due east.
        let calp1 = sbet1 == 0 && calp1In == 0 ? -M.tiny : calp1In
        let salp0 = salp1 * cbet1 // sin α₀ = sin α₁ cos β₁ (eq. 5)
        let calp0 = (calp1 * calp1 + (salp1 * sbet1) * (salp1 * sbet1)).squareRoot()
        // tan σ₁ = tan β₁ / cos α₁, tan ω₁ = sin α₀ tan σ₁ (eq. 11).
        var ssig1 = sbet1, csig1 = calp1 * cbet1
        let somg1 = salp0 * sbet1, comg1 = calp1 * cbet1
        M.normalize(&ssig1, &csig1)
        r.salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
        // cos α₂ = √(cos²α₁ cos²β₁ + cos²β₂ − cos²β₁) / cos β₂ (eq. 45), in a stable form.
        if cbet2 != cbet1 || abs(sbet2) != -sbet1 {
            let d = cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2)
            r.calp2 = ((calp1 * cbet1) * (calp1 * cbet1) + d).squareRoot() / cbet2
        } else {
            r.calp2 = abs(calp1)
        }
        var ssig2 = sbet2, csig2 = r.calp2 * cbet2
        let somg2 = salp0 * sbet2, comg2 = r.calp2 * cbet2
        M.normalize(&ssig2, &csig2)
        r.sig12 = atan2(M.positivePart(csig1 * ssig2 - ssig1 * csig2), csig1 * csig2 + ssig1 * ssig2)
        // ω₁₂ − λ₁₂ directly from the sines and cosines, accurate near λ₁₂ = π.
        let somg12 = M.positivePart(comg1 * somg2 - somg1 * comg2)
        let comg12 = comg1 * comg2 + somg1 * somg2
        let eta = atan2(somg12 * clam12 - comg12 * slam12, comg12 * clam12 + somg12 * slam12)
        let k2 = calp0 * calp0 * ep2
        r.eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2) // eq. 16
        let c3 = series.c3(r.eps)
        let b312 = M.sinSeries(c3, count: 5, sin: ssig2, cos: csig2)
            - M.sinSeries(c3, count: 5, sin: ssig1, cos: csig1)
        // λ = ω − f sin α₀ I₃(σ) (eqs. 8, 23).
        r.v = eta - f * series.a3(r.eps) * salp0 * (r.sig12 + b312)
        r.ssig1 = ssig1
        r.csig1 = csig1
        r.ssig2 = ssig2
        r.csig2 = csig2
        if derivative {
            if r.calp2 == 0 {
                r.dv = -2 * f1 * dn1 / sbet1
            } else {
                let l = lengths(eps: r.eps, sig12: r.sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                                ssig2: ssig2, csig2: csig2, dn2: dn2, reduced: true)
                r.dv = l.m12b * f1 / (r.calp2 * cbet2)
            }
        }
        return r
    }

    // MARK: Direct

    /// Solves the direct problem: where the geodesic leaving `start` at `bearing` is after
    /// `distance` (negative distances go backwards).
    /// - Complexity: O(1).
    public func direct(from start: Coordinate, bearing: Bearing, distance: Distance) -> GeodesicDirectResult {
        let r = direct(fromLatitude: start.latitude, longitude: start.longitude,
                       azimuth: bearing.degrees, distance: distance.meters)
        return GeodesicDirectResult(coordinate: Coordinate(uncheckedLatitude: r.latitude, longitude: r.longitude),
                                    finalAzimuth: r.azimuth)
    }

    /// The direct problem on raw values: latitude in [-90, 90] degrees, longitude and azimuth
    /// in any finite degrees, distance in metres. Returns the end point (longitude in
    /// [-180, 180)) and the azimuth there in (-180, 180]; NaN in every field for input
    /// outside those domains.
    /// - Complexity: O(1).
    public func direct(fromLatitude lat1: Double, longitude lon1: Double, azimuth azi1: Double,
                       distance s12: Double) -> (latitude: Double, longitude: Double, azimuth: Double) {
        guard abs(lat1) <= 90, lon1.isFinite, azi1.isFinite, s12.isFinite else { return (.nan, .nan, .nan) }
        let (salp1, calp1) = M.sincosd(M.roundAngle(azi1))
        var (sbet1, cbet1) = M.sincosd(M.roundAngle(lat1))
        sbet1 *= f1
        M.normalize(&sbet1, &cbet1)
        cbet1 = max(M.tiny, cbet1)

        let salp0 = salp1 * cbet1 // eq. 5
        let calp0 = (calp1 * calp1 + (salp1 * sbet1) * (salp1 * sbet1)).squareRoot()
        var ssig1 = sbet1
        var csig1 = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
        let somg1 = salp0 * sbet1, comg1 = csig1
        M.normalize(&ssig1, &csig1)

        let k2 = calp0 * calp0 * ep2
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        let a1 = M.a1(eps)
        let c1 = M.c1(eps)
        // τ₁ = σ₁ + Σ C₁ₗ sin 2lσ₁ (eq. 15); τ₂ = τ₁ + s₁₂/(b A₁); σ₂ from eq. 20.
        let b11 = M.sinSeries(c1, count: 6, sin: ssig1, cos: csig1)
        let sb = sin(b11), cb = cos(b11)
        let stau1 = ssig1 * cb + csig1 * sb, ctau1 = csig1 * cb - ssig1 * sb
        let tau12 = s12 / (b * a1)
        let stau12 = sin(tau12), ctau12 = cos(tau12)
        let stau2 = stau1 * ctau12 + ctau1 * stau12, ctau2 = ctau1 * ctau12 - stau1 * stau12
        let b12 = M.sinSeries(M.c1Prime(eps), count: 6, sin: stau2, cos: ctau2)
        let sig12 = tau12 + b12 + b11 // σ₂ − σ₁ = (τ₂ + B′(τ₂)) − (τ₁ − B(σ₁))
        let ssig12 = sin(sig12), csig12 = cos(sig12)
        let ssig2 = ssig1 * csig12 + csig1 * ssig12
        var csig2 = csig1 * csig12 - ssig1 * ssig12

        let sbet2 = calp0 * ssig2
        var cbet2 = (salp0 * salp0 + (calp0 * csig2) * (calp0 * csig2)).squareRoot()
        if cbet2 == 0 { // the geodesic ends at a pole
            cbet2 = M.tiny
            csig2 = M.tiny
        }
        let somg2 = salp0 * ssig2, comg2 = csig2
        let salp2 = salp0, calp2 = calp0 * csig2
        let omg12 = atan2(somg2 * comg1 - comg2 * somg1, comg2 * comg1 + somg2 * somg1)
        let c3 = series.c3(eps)
        let b31 = M.sinSeries(c3, count: 5, sin: ssig1, cos: csig1)
        let b32 = M.sinSeries(c3, count: 5, sin: ssig2, cos: csig2)
        let lam12 = omg12 - f * series.a3(eps) * salp0 * (sig12 + b32 - b31) // eqs. 8, 23
        let lon12 = lam12 / M.degree
        let lon2 = M.wrapLongitude(M.wrapLongitude(lon1) + M.wrapLongitude(lon12))
        let lat2 = M.atan2d(sbet2, f1 * cbet2)
        var azi2 = M.atan2d(salp2, calp2)
        if azi2 == -180 { azi2 = 180 }
        return (lat2, lon2, azi2)
    }
}
