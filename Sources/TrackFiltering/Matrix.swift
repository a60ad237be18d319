/// A 2×2 matrix `[[a, b], [c, d]]` held in registers: the blocks of the 4×4 constant-velocity
/// model (position, velocity), so no step of the filter touches the heap.
struct Mat2: Hashable, Sendable {
    var a: Double, b: Double, c: Double, d: Double

    static let zero = Mat2(a: 0, b: 0, c: 0, d: 0)
    static let identity = Mat2(a: 1, b: 0, c: 0, d: 1)
    static func diagonal(_ x: Double, _ y: Double) -> Mat2 { Mat2(a: x, b: 0, c: 0, d: y) }

    static func + (l: Mat2, r: Mat2) -> Mat2 { Mat2(a: l.a + r.a, b: l.b + r.b, c: l.c + r.c, d: l.d + r.d) }
    static func - (l: Mat2, r: Mat2) -> Mat2 { Mat2(a: l.a - r.a, b: l.b - r.b, c: l.c - r.c, d: l.d - r.d) }
    static func * (l: Mat2, k: Double) -> Mat2 { Mat2(a: l.a * k, b: l.b * k, c: l.c * k, d: l.d * k) }
    static func * (l: Mat2, r: Mat2) -> Mat2 {
        Mat2(a: l.a * r.a + l.b * r.c, b: l.a * r.b + l.b * r.d,
             c: l.c * r.a + l.d * r.c, d: l.c * r.b + l.d * r.d)
    }
    static func * (l: Mat2, v: Vec2) -> Vec2 { Vec2(x: l.a * v.x + l.b * v.y, y: l.c * v.x + l.d * v.y) }

    var transposed: Mat2 { Mat2(a: a, b: c, c: b, d: d) }
    var determinant: Double { a * d - b * c }
    var trace: Double { a + d }
    /// The inverse; callers guarantee a non-singular matrix (covariances plus positive noise).
    var inverse: Mat2 {
        let k = 1 / determinant
        return Mat2(a: d * k, b: -b * k, c: -c * k, d: a * k)
    }
    /// The symmetric part, to keep covariances symmetric against rounding.
    var symmetrized: Mat2 { let m = (b + c) / 2; return Mat2(a: a, b: m, c: m, d: d) }
}

/// A 2-vector (east, north) in metres or metres per second.
package struct Vec2: Hashable, Sendable {
    package init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
    package var x: Double, y: Double
    package static let zero = Vec2(x: 0, y: 0)
    package static func + (l: Vec2, r: Vec2) -> Vec2 { Vec2(x: l.x + r.x, y: l.y + r.y) }
    package static func - (l: Vec2, r: Vec2) -> Vec2 { Vec2(x: l.x - r.x, y: l.y - r.y) }
    package static func * (l: Vec2, k: Double) -> Vec2 { Vec2(x: l.x * k, y: l.y * k) }
    package var norm: Double { (x * x + y * y).squareRoot() }
    /// Whether `norm > distance`, without the square root (once per filter step).
    package func isFarther(than distance: Double) -> Bool { x * x + y * y > distance * distance }
    /// `vᵀ M⁻¹ v` given `M⁻¹` of a symmetric positive-definite `M`: the squared Mahalanobis length.
    func mahalanobisSquared(inverse inv: Mat2) -> Double {
        x * (inv.a * x + inv.b * y) + y * (inv.c * x + inv.d * y)
    }
}

/// A 4×4 matrix as 2×2 blocks `[[pp, pv], [vp, vv]]` over the state (east, north, vEast, vNorth).
struct Block4: Hashable, Sendable {
    var pp: Mat2, pv: Mat2, vp: Mat2, vv: Mat2

    static func + (l: Block4, r: Block4) -> Block4 {
        Block4(pp: l.pp + r.pp, pv: l.pv + r.pv, vp: l.vp + r.vp, vv: l.vv + r.vv)
    }
    static func - (l: Block4, r: Block4) -> Block4 {
        Block4(pp: l.pp - r.pp, pv: l.pv - r.pv, vp: l.vp - r.vp, vv: l.vv - r.vv)
    }
    static func * (l: Block4, r: Block4) -> Block4 {
        Block4(pp: l.pp * r.pp + l.pv * r.vp, pv: l.pp * r.pv + l.pv * r.vv,
               vp: l.vp * r.pp + l.vv * r.vp, vv: l.vp * r.pv + l.vv * r.vv)
    }
    static func * (l: Block4, s: State4) -> State4 {
        State4(position: l.pp * s.position + l.pv * s.velocity, velocity: l.vp * s.position + l.vv * s.velocity)
    }
    var transposed: Block4 { Block4(pp: pp.transposed, pv: vp.transposed, vp: pv.transposed, vv: vv.transposed) }
    var symmetrized: Block4 {
        let off = (pv + vp.transposed) * 0.5
        return Block4(pp: pp.symmetrized, pv: off, vp: off.transposed, vv: vv.symmetrized)
    }

    /// The inverse of a symmetric positive-definite matrix by its Schur complement
    /// (Golub & Van Loan, *Matrix Computations*, §3.2.1, block LDLᵀ).
    var inverse: Block4 {
        let ai = pp.inverse
        let aib = ai * pv
        let s = vv - vp * aib              // Schur complement of pp
        let si = s.inverse
        let top = aib * si
        return Block4(pp: ai + top * (vp * ai), pv: top * -1, vp: (si * (vp * ai)) * -1, vv: si)
    }

    /// The covariance of the constant-velocity prediction, `F P Fᵀ + Q` with F = `[[I, dt·I],
    /// [0, I]]` and white-acceleration Q of spectral density `q` per axis (Bar-Shalom, Li &
    /// Kirubarajan 2001, §6.2.2), for this symmetric P. Written out entry by entry: the ten
    /// distinct entries once each, the mirrored ones copied (`vp` = `pvᵀ`).
    @inline(__always)
    func predictedCovariance(dt: Double, q: Double) -> Block4 {
        let dt2 = dt * dt, q3 = q * dt2 * dt / 3, q2 = q * dt2 / 2, q1 = q * dt
        let ppa = pp.a + (pv.a + pv.a) * dt + vv.a * dt2 + q3
        let ppb = pp.b + (pv.b + pv.c) * dt + vv.b * dt2
        let ppd = pp.d + (pv.d + pv.d) * dt + vv.d * dt2 + q3
        let pva = pv.a + vv.a * dt + q2, pvb = pv.b + vv.b * dt
        let pvc = pv.c + vv.b * dt, pvd = pv.d + vv.d * dt + q2
        return Block4(pp: Mat2(a: ppa, b: ppb, c: ppb, d: ppd), pv: Mat2(a: pva, b: pvb, c: pvc, d: pvd),
                      vp: Mat2(a: pva, b: pvc, c: pvb, d: pvd),
                      vv: Mat2(a: vv.a + q1, b: vv.b, c: vv.b, d: vv.d + q1))
    }

    /// The Kalman measurement update of this symmetric covariance and `x` by a 2-vector
    /// measurement of the position (H = [I 0]) or the velocity (H = [0 I]) with innovation `y`
    /// and `si` = S⁻¹ (S = H P Hᵀ + R, symmetric): with B = P Hᵀ (4×2) the gain is K = B S⁻¹,
    /// x ← x + K y and P ← P − K Bᵀ. Written out for the blocks, the ten distinct entries of P
    /// once each (P − K Bᵀ is symmetric; `vp` = `pvᵀ`), no division.
    ///
    /// The two axes are not run as two independent 2-state filters, although Q and the position
    /// noise are axis-diagonal: the Doppler velocity's noise is along and across the reported
    /// course (`KalmanSmoother.velocityMeasurement`), so its R, and with it P, couples east and north.
    @inline(__always)
    mutating func correct(_ x: inout State4, measuringVelocity: Bool, innovation y: Vec2, inverseNoise si: Mat2) {
        // B's position rows and velocity rows: (pp, vp) for a position, (pv, vv) for a velocity.
        let bp = measuringVelocity ? pv : pp, bv = measuringVelocity ? vv : vp
        // K = B S⁻¹ (S⁻¹ symmetric: si.c = si.b).
        let kpa = bp.a * si.a + bp.b * si.b, kpb = bp.a * si.b + bp.b * si.d
        let kpc = bp.c * si.a + bp.d * si.b, kpd = bp.c * si.b + bp.d * si.d
        let kva = bv.a * si.a + bv.b * si.b, kvb = bv.a * si.b + bv.b * si.d
        let kvc = bv.c * si.a + bv.d * si.b, kvd = bv.c * si.b + bv.d * si.d
        x.position.x += kpa * y.x + kpb * y.y
        x.position.y += kpc * y.x + kpd * y.y
        x.velocity.x += kva * y.x + kvb * y.y
        x.velocity.y += kvc * y.x + kvd * y.y
        // P − K Bᵀ: row i of K times row j of B.
        let ppa = pp.a - (kpa * bp.a + kpb * bp.b), ppb = pp.b - (kpa * bp.c + kpb * bp.d)
        let ppd = pp.d - (kpc * bp.c + kpd * bp.d)
        let pva = pv.a - (kpa * bv.a + kpb * bv.b), pvb = pv.b - (kpa * bv.c + kpb * bv.d)
        let pvc = pv.c - (kpc * bv.a + kpd * bv.b), pvd = pv.d - (kpc * bv.c + kpd * bv.d)
        let vva = vv.a - (kva * bv.a + kvb * bv.b), vvb = vv.b - (kva * bv.c + kvb * bv.d)
        let vvd = vv.d - (kvc * bv.c + kvd * bv.d)
        pp = Mat2(a: ppa, b: ppb, c: ppb, d: ppd)
        pv = Mat2(a: pva, b: pvb, c: pvc, d: pvd)
        vp = Mat2(a: pva, b: pvc, c: pvb, d: pvd)
        vv = Mat2(a: vva, b: vvb, c: vvb, d: vvd)
    }

    /// The constant-velocity transition `[[I, dt·I], [0, I]]`.
    static func transition(_ dt: Double) -> Block4 {
        Block4(pp: .identity, pv: .diagonal(dt, dt), vp: .zero, vv: .identity)
    }
}

/// The constant-velocity state: position (m) and velocity (m/s), east and north.
struct State4: Hashable, Sendable {
    var position: Vec2
    var velocity: Vec2
    static func + (l: State4, r: State4) -> State4 { State4(position: l.position + r.position, velocity: l.velocity + r.velocity) }
    static func - (l: State4, r: State4) -> State4 { State4(position: l.position - r.position, velocity: l.velocity - r.velocity) }
}
