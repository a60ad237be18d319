package import GeoCore
import TrackFiltering
import Platform

/// A constant-velocity Kalman filter in the style of HCKalmanFilter, the contrast row of the
/// filter evaluation: fixed measurement noise (`rValue` 29, ignoring each fix's accuracy),
/// finite-difference velocity as a measurement, its process noise (σ = 0.0625, discrete
/// white-noise acceleration), no gating, no restart, speed and course not kept. Runs in metres
/// on a plane (HCKalmanFilter works in degrees) and with the velocity difference's sign the
/// right way round.
package struct FixedNoiseKalman: Sendable {
    /// One axis: position (m) and velocity (m/s), with a 2×2 covariance.
    private struct Axis {
        var x = 0.0, v = 0.0
        var p00 = 0.0, p01 = 0.0, p11 = 0.0
    }

    /// Measurement noise variance, m² (HCKalmanFilter's `rValue`).
    package let rValue = 29.0
    /// Process noise scale (HCKalmanFilter's `sigma`).
    package let sigma = 0.0625
    private var east = Axis(), north = Axis()
    private var previous: (t: Date, e: Double, n: Double)?

    package init() {}

    /// Filters one fix, in arrival order, on the plane `frame`; returns the estimate (the first
    /// fix as it is). Only coordinate, timestamp and altitude are kept.
    /// - Complexity: O(1).
    package mutating func process(_ fix: Location, frame: LocalFrame) -> Location {
        let p = frame.point(for: fix.coordinate)
        guard let prev = previous else {
            east = Axis(x: p.east)
            north = Axis(x: p.north)
            previous = (fix.timestamp, p.east, p.north)
            return fix
        }
        let dt = max(fix.timestamp.timeIntervalSince(prev.t), 1e-3)
        let ve = (p.east - prev.e) / dt, vn = (p.north - prev.n) / dt
        Self.step(&east, z: p.east, zv: ve, dt: dt, r: rValue, sigma: sigma)
        Self.step(&north, z: p.north, zv: vn, dt: dt, r: rValue, sigma: sigma)
        previous = (fix.timestamp, p.east, p.north)
        var out = Location(coordinate: frame.coordinate(east: east.x, north: north.x), timestamp: fix.timestamp)
        out.altitude = fix.altitude
        return out
    }

    /// Predict with A = [[1, dt], [0, 1]], Q = σ·[[dt⁴/4, dt³/2], [dt³/2, dt²]]; update with
    /// H = I and R = r·I.
    private static func step(_ a: inout Axis, z: Double, zv: Double, dt: Double, r: Double, sigma: Double) {
        let x = a.x + a.v * dt, v = a.v
        let dt2 = dt * dt
        let p00 = a.p00 + 2 * dt * a.p01 + dt2 * a.p11 + sigma * dt2 * dt2 / 4
        let p01 = a.p01 + dt * a.p11 + sigma * dt2 * dt / 2
        let p11 = a.p11 + sigma * dt2
        // S = P + R; K = P S⁻¹.
        let s00 = p00 + r, s01 = p01, s11 = p11 + r
        let det = s00 * s11 - s01 * s01
        let i00 = s11 / det, i01 = -s01 / det, i11 = s00 / det
        let k00 = p00 * i00 + p01 * i01, k01 = p00 * i01 + p01 * i11
        let k10 = p01 * i00 + p11 * i01, k11 = p01 * i01 + p11 * i11
        let y0 = z - x, y1 = zv - v
        a.x = x + k00 * y0 + k01 * y1
        a.v = v + k10 * y0 + k11 * y1
        // P = (I − K) P⁻.
        a.p00 = (1 - k00) * p00 - k01 * p01
        a.p01 = (1 - k00) * p01 - k01 * p11
        a.p11 = -k10 * p01 + (1 - k11) * p11
    }
}
