import GeoBase
import GeoCore
import Testing
@testable import TrackFiltering

// The Kalman step's written-out algebra (`Block4.predictedCovariance`, `Block4.correct`) against
// the same formulas in plain block products: F P Fᵀ + Q, and K = P Hᵀ S⁻¹, x + K y,
// P − K S Kᵀ, on seeded symmetric positive-definite covariances.

/// A seeded symmetric positive-definite 4×4 covariance A Aᵀ + εI, as blocks.
private func randomCovariance(_ rng: inout SplitMix64) -> Block4 {
    func m(_ rng: inout SplitMix64) -> Mat2 {
        Mat2(a: rng.uniform(-3, 3), b: rng.uniform(-3, 3), c: rng.uniform(-3, 3), d: rng.uniform(-3, 3))
    }
    let a = Block4(pp: m(&rng), pv: m(&rng), vp: m(&rng), vv: m(&rng))
    let p = a * a.transposed
    return Block4(pp: p.pp + .diagonal(0.1, 0.1), pv: p.pv, vp: p.vp, vv: p.vv + .diagonal(0.1, 0.1)).symmetrized
}

private func largestDifference(_ l: Block4, _ r: Block4) -> Double {
    [l.pp - r.pp, l.pv - r.pv, l.vp - r.vp, l.vv - r.vv].map { max(abs($0.a), abs($0.b), abs($0.c), abs($0.d)) }.max() ?? 0
}

@Test func predictedCovariance_isTheBlockProduct() {
    var rng = SplitMix64(seed: 41)
    for _ in 0..<1_000 {
        let p = randomCovariance(&rng)
        let dt = rng.uniform(0.01, 30), q = rng.uniform(0.01, 25)
        let f = Block4.transition(dt)
        let noise = Block4(pp: .diagonal(q * dt * dt * dt / 3, q * dt * dt * dt / 3), pv: .diagonal(q * dt * dt / 2, q * dt * dt / 2),
                           vp: .diagonal(q * dt * dt / 2, q * dt * dt / 2), vv: .diagonal(q * dt, q * dt))
        let expected = f * p * f.transposed + noise
        let got = p.predictedCovariance(dt: dt, q: q)
        let scale = max(abs(expected.pp.a), abs(expected.pp.d), 1)
        #expect(largestDifference(got, expected) <= 1e-12 * scale, "dt \(dt) s, q \(q) m²/s³")
        #expect(got.vp == got.pv.transposed && got.pp.b == got.pp.c && got.vv.b == got.vv.c, "symmetric")
    }
}

@Test func correct_isTheKalmanUpdate() {
    var rng = SplitMix64(seed: 42)
    for measuringVelocity in [false, true] {
        for _ in 0..<1_000 {
            let p = randomCovariance(&rng)
            let x = State4(position: Vec2(x: rng.uniform(-50, 50), y: rng.uniform(-50, 50)),
                           velocity: Vec2(x: rng.uniform(-20, 20), y: rng.uniform(-20, 20)))
            let y = Vec2(x: rng.uniform(-10, 10), y: rng.uniform(-10, 10))
            let r = rng.uniform(0.1, 25)
            // H selects the position (H = [I 0]) or the velocity (H = [0 I]); B = P Hᵀ.
            let (hph, bTop, bBottom) = measuringVelocity ? (p.vv, p.pv, p.vv) : (p.pp, p.pp, p.vp)
            let si = (hph + .diagonal(r, r)).inverse
            let kp = bTop * si, kv = bBottom * si
            let gain = Block4(pp: kp, pv: .zero, vp: kv, vv: .zero)       // K in the first block column
            let bt = Block4(pp: bTop.transposed, pv: bBottom.transposed, vp: .zero, vv: .zero)  // Bᵀ in the first block row
            let expectedP = p - gain * bt
            let expectedX = State4(position: x.position + kp * y, velocity: x.velocity + kv * y)
            var gotP = p, gotX = x
            gotP.correct(&gotX, measuringVelocity: measuringVelocity, innovation: y, inverseNoise: si)
            let scale = max(abs(p.pp.a), abs(p.vv.a), abs(p.pp.d), abs(p.vv.d), 1)
            #expect(largestDifference(gotP, expectedP) <= 1e-12 * scale, "velocity \(measuringVelocity)")
            let dx = (gotX - expectedX)
            #expect(max(abs(dx.position.x), abs(dx.position.y), abs(dx.velocity.x), abs(dx.velocity.y)) <= 1e-12 * 100)
            #expect(gotP.vp == gotP.pv.transposed && gotP.pp.b == gotP.pp.c && gotP.vv.b == gotP.vv.c, "symmetric")
        }
    }
}
