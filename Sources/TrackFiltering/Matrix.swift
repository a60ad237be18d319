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
struct Vec2: Hashable, Sendable {
    var x: Double, y: Double
    static let zero = Vec2(x: 0, y: 0)
    static func + (l: Vec2, r: Vec2) -> Vec2 { Vec2(x: l.x + r.x, y: l.y + r.y) }
    static func - (l: Vec2, r: Vec2) -> Vec2 { Vec2(x: l.x - r.x, y: l.y - r.y) }
    static func * (l: Vec2, k: Double) -> Vec2 { Vec2(x: l.x * k, y: l.y * k) }
    var norm: Double { (x * x + y * y).squareRoot() }
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
