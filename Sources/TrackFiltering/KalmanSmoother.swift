public import GeoCore
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The tunables of the constant-velocity Kalman filter and smoother.
public struct KalmanParameters: Hashable, Sendable {
    /// One-sigma white acceleration driving the model, m/s²: low values smooth more and
    /// follow turns and speed changes more slowly.
    public var accelerationNoise: Double
    /// Squared Mahalanobis distance above which a position is an outlier (χ² with 2 degrees of
    /// freedom: 13.8 rejects 0.1 % of honest fixes).
    public var gateChiSquare: Double
    /// A longer silence between fixes restarts the filter at the next fix.
    public var maximumGap: Duration
    /// After this many outliers in a row the filter restarts at the latest fix (the track
    /// really jumped, e.g. out of a tunnel).
    public var maximumConsecutiveOutliers: Int
    /// Whether reported speed and course (Doppler) are fused as a velocity measurement.
    public var usesReportedVelocity: Bool
    /// The accuracy assumed for a fix that reports none (68 % radius).
    public var assumedAccuracy: Distance
    /// The speed accuracy assumed when a fix reports speed without one.
    public var assumedSpeedAccuracy: Speed
    /// The course accuracy assumed when a fix reports a course without one, degrees.
    public var assumedCourseAccuracy: Double
    /// One-sigma velocity uncertainty at a (re)start without a reported velocity.
    public var initialSpeedUncertainty: Speed

    public init(
        accelerationNoise: Double = 1.0,
        gateChiSquare: Double = 13.8,
        maximumGap: Duration = .seconds(30),
        maximumConsecutiveOutliers: Int = 4,
        usesReportedVelocity: Bool = true,
        assumedAccuracy: Distance = .meters(10),
        assumedSpeedAccuracy: Speed = .metersPerSecond(1),
        assumedCourseAccuracy: Double = 15,
        initialSpeedUncertainty: Speed = .metersPerSecond(5)
    ) {
        self.accelerationNoise = accelerationNoise
        self.gateChiSquare = gateChiSquare
        self.maximumGap = maximumGap
        self.maximumConsecutiveOutliers = maximumConsecutiveOutliers
        self.usesReportedVelocity = usesReportedVelocity
        self.assumedAccuracy = assumedAccuracy
        self.assumedSpeedAccuracy = assumedSpeedAccuracy
        self.assumedCourseAccuracy = assumedCourseAccuracy
        self.initialSpeedUncertainty = initialSpeedUncertainty
    }

    /// - Throws: `TrackFilteringError` with `.invalidParameter` for a non-positive or NaN value.
    public func validate() throws(TrackFilteringError) {
        let checks: [(String, Double)] = [
            ("accelerationNoise", accelerationNoise), ("gateChiSquare", gateChiSquare),
            ("maximumGap", maximumGap.seconds), ("assumedAccuracy", assumedAccuracy.meters),
            ("assumedSpeedAccuracy", assumedSpeedAccuracy.metersPerSecond),
            ("assumedCourseAccuracy", assumedCourseAccuracy),
            ("initialSpeedUncertainty", initialSpeedUncertainty.metersPerSecond),
        ]
        for (name, value) in checks where !(value > 0) {
            throw TrackFilteringError(.invalidParameter, "Kalman \(name) must be positive, got \(value)")
        }
        if maximumConsecutiveOutliers < 1 {
            throw TrackFilteringError(.invalidParameter, "Kalman maximumConsecutiveOutliers must be at least 1")
        }
    }
}

/// What the filter did with one fix.
public enum KalmanResult: Hashable, Sendable {
    /// The filter (re)started at this fix: the first one, after a gap, or after repeated outliers.
    case started(Location)
    /// The fix corrected the running estimate.
    case updated(Location)
    /// The fix failed the innovation gate and was ignored; the squared Mahalanobis distance.
    case rejected(mahalanobisSquared: Double)
    /// The fix is timestamped before the filter's time and was ignored.
    case outOfOrder

    /// The estimate after this fix, if it was used.
    public var estimate: Location? {
        switch self {
        case .started(let l), .updated(let l): l
        case .rejected, .outOfOrder: nil
        }
    }
}

/// A constant-velocity Kalman filter on a local east/north plane, online one fix at a time, and
/// the Rauch–Tung–Striebel smoother over a saved track with the same model.
///
/// State: east, north (m) and their velocities (m/s); white-acceleration process noise
/// (Bar-Shalom, Li & Kirubarajan, *Estimation with Applications to Tracking and Navigation*,
/// 2001, §6.2.2). Each fix's own accuracy is its measurement noise: a 68 % radius r of a
/// circular normal error is σ·√(−2 ln 0.32) = 1.51 σ per axis. Reported speed and course are
/// fused as a velocity measurement, so speed and course survive filtering (HCKalmanFilter#16)
/// and the estimate does not lag (Soundscape-Android#317). Positions farther than the χ² gate
/// from the prediction are ignored (outliers); a long gap or repeated outliers restart it.
/// Every estimate carries its own accuracy, speed accuracy and course accuracy. All the 4×4
/// algebra is in 2×2 blocks held in registers: a step allocates nothing.
public struct KalmanSmoother: Sendable {
    /// The model's tunables.
    public var parameters: KalmanParameters
    private(set) var filter: Filter?
    private var consecutiveOutliers = 0

    /// 1 / √(−2 ln 0.32): from a 68 % horizontal radius to a per-axis standard deviation.
    static let radiusToSigma = 1 / (-2 * log(0.32)).squareRoot()

    public init(parameters: KalmanParameters = KalmanParameters()) {
        self.parameters = parameters
    }

    /// The latest estimate, nil before the first fix or after `reset()`.
    public var estimate: Location? {
        guard let filter else { return nil }
        return filter.location(filter.x, filter.p, template: filter.lastFix)
    }

    /// Forgets everything; the next fix starts afresh.
    public mutating func reset() {
        filter = nil
        consecutiveOutliers = 0
    }

    /// Feeds one fix (in timestamp order) and returns what became of it.
    /// - Complexity: O(1), no allocation.
    public mutating func update(with fix: Location) -> KalmanResult {
        var record = Step.none
        return update(with: fix, recording: &record)
    }

    /// One step, also returning the quantities the RTS backward pass needs.
    mutating func update(with fix: Location, recording step: inout Step) -> KalmanResult {
        guard var f = filter else { return start(at: fix, recording: &step) }
        let dt = fix.timestamp.timeIntervalSince(f.time)
        if dt < 0 { return .outOfOrder }
        if dt > parameters.maximumGap.seconds { return start(at: fix, recording: &step) }
        if f.x.position.norm > LocalFrame.recentringDistance { f.recentre() }
        let (xp, pp) = f.predicted(dt: dt, q: parameters.accelerationNoise * parameters.accelerationNoise)
        let z = f.frame.point(for: fix.coordinate)
        let sigma = accuracy(of: fix) * Self.radiusToSigma
        let innovation = Vec2(x: z.east - xp.position.x, y: z.north - xp.position.y)
        let s = pp.pp + Mat2.diagonal(sigma * sigma, sigma * sigma)
        let d2 = innovation.mahalanobisSquared(s)
        if d2 > parameters.gateChiSquare {
            consecutiveOutliers += 1
            if consecutiveOutliers >= parameters.maximumConsecutiveOutliers {
                return start(at: fix, recording: &step)
            }
            return .rejected(mahalanobisSquared: d2)
        }
        consecutiveOutliers = 0
        var x = xp, p = pp
        Self.correctPosition(&x, &p, innovation: innovation, noise: s)
        if let (v, r) = velocityMeasurement(fix) {
            let vi = v - x.velocity
            let sv = p.vv + r
            if vi.mahalanobisSquared(sv) <= parameters.gateChiSquare {
                Self.correctVelocity(&x, &p, innovation: vi, noise: sv)
            }
        }
        step = .update(frame: f.frame, predicted: xp, predictedCovariance: pp, dt: dt)
        f.x = x
        f.p = p.symmetrized
        f.time = fix.timestamp
        f.lastFix = fix
        filter = f
        return .updated(f.location(x, f.p, template: fix))
    }

    /// Tells the filter the device was still at `time` (a zero-velocity update, as pedestrian
    /// navigation does at foot contact; Foxlin, IEEE CG&A 25(6), 2005): time advances with the
    /// velocity pulled to zero, so a long stop neither restarts the filter nor lets it coast.
    /// - Parameter sigma: one-sigma uncertainty of "zero", m/s.
    /// - Complexity: O(1), no allocation.
    public mutating func holdStill(at time: Date, sigma: Speed = .metersPerSecond(0.1)) {
        guard var f = filter else { return }
        let dt = time.timeIntervalSince(f.time)
        guard dt > 0 else { return }
        var (x, p) = f.predicted(dt: dt, q: parameters.accelerationNoise * parameters.accelerationNoise)
        let s2 = sigma.metersPerSecond * sigma.metersPerSecond
        Self.correctVelocity(&x, &p, innovation: Vec2.zero - x.velocity, noise: p.vv + .diagonal(s2, s2))
        f.x = x
        f.p = p.symmetrized
        f.time = time
        filter = f
    }

    private mutating func start(at fix: Location, recording step: inout Step) -> KalmanResult {
        consecutiveOutliers = 0
        let frame = LocalFrame(origin: fix.coordinate)
        let sigma = accuracy(of: fix) * Self.radiusToSigma
        let s0 = parameters.initialSpeedUncertainty.metersPerSecond
        var x = State4(position: .zero, velocity: .zero)
        var p = Block4(pp: .diagonal(sigma * sigma, sigma * sigma), pv: .zero, vp: .zero, vv: .diagonal(s0 * s0, s0 * s0))
        if let (v, r) = velocityMeasurement(fix) {
            let vi = v - x.velocity
            Self.correctVelocity(&x, &p, innovation: vi, noise: p.vv + r)
        }
        let f = Filter(frame: frame, x: x, p: p.symmetrized, time: fix.timestamp, lastFix: fix)
        filter = f
        step = .start(frame: frame)
        return .started(f.location(x, f.p, template: fix))
    }

    private func accuracy(of fix: Location) -> Double {
        if let m = fix.horizontalAccuracy?.meters, m > 0 { return m }
        return parameters.assumedAccuracy.meters
    }

    /// The fix's Doppler velocity (east, north) and its covariance, when it reports one.
    private func velocityMeasurement(_ fix: Location) -> (Vec2, Mat2)? {
        guard parameters.usesReportedVelocity, let speed = fix.speed?.metersPerSecond, speed >= 0 else { return nil }
        let ss = fix.speedAccuracy.map(\.metersPerSecond).flatMap { $0 > 0 ? $0 : nil }
            ?? parameters.assumedSpeedAccuracy.metersPerSecond
        guard let course = fix.course else {
            // Without a course only a standstill says anything about the velocity vector.
            guard speed <= ss else { return nil }
            let v = ss * ss + speed * speed
            return (.zero, .diagonal(v, v))
        }
        let c = course.radians
        let u = Vec2(x: sin(c), y: cos(c))               // along track
        let courseSigma = (fix.courseAccuracy.flatMap { $0 > 0 ? $0 : nil } ?? parameters.assumedCourseAccuracy) * .pi / 180
        let cross = max(ss, speed * min(courseSigma, .pi / 2))
        let a = ss * ss, b = cross * cross
        // R = a·u·uᵀ + b·w·wᵀ with w = (u.y, −u.x) across the track.
        let r = Mat2(a: a * u.x * u.x + b * u.y * u.y, b: (a - b) * u.x * u.y,
                     c: (a - b) * u.x * u.y, d: a * u.y * u.y + b * u.x * u.x)
        return (u * speed, r)
    }

    /// Position update with H = [I 0]; `noise` is the innovation covariance S = Ppp + R.
    static func correctPosition(_ x: inout State4, _ p: inout Block4, innovation y: Vec2, noise s: Mat2) {
        let si = s.inverse
        let kp = p.pp * si, kv = p.vp * si
        x.position = x.position + kp * y
        x.velocity = x.velocity + kv * y
        p = Block4(pp: p.pp - kp * p.pp, pv: p.pv - kp * p.pv, vp: p.vp - kv * p.pp, vv: p.vv - kv * p.pv)
    }

    /// Velocity update with H = [0 I]; `noise` is S = Pvv + R.
    static func correctVelocity(_ x: inout State4, _ p: inout Block4, innovation y: Vec2, noise s: Mat2) {
        let si = s.inverse
        let kp = p.pv * si, kv = p.vv * si
        x.position = x.position + kp * y
        x.velocity = x.velocity + kv * y
        p = Block4(pp: p.pp - kp * p.vp, pv: p.pv - kp * p.vv, vp: p.vp - kv * p.vp, vv: p.vv - kv * p.vv)
    }

    /// The running estimate in its frame.
    struct Filter: Sendable {
        var frame: LocalFrame
        var x: State4
        var p: Block4
        var time: Date
        var lastFix: Location

        /// x⁻ = F x, P⁻ = F P Fᵀ + Q in closed form for the constant-velocity F.
        func predicted(dt: Double, q: Double) -> (State4, Block4) {
            let x1 = State4(position: x.position + x.velocity * dt, velocity: x.velocity)
            let dt2 = dt * dt
            let pp = p.pp + (p.pv + p.vp) * dt + p.vv * dt2 + Mat2.diagonal(1, 1) * (q * dt2 * dt / 3)
            let pv = p.pv + p.vv * dt + Mat2.diagonal(1, 1) * (q * dt2 / 2)
            let vv = p.vv + Mat2.diagonal(1, 1) * (q * dt)
            return (x1, Block4(pp: pp, pv: pv, vp: pv.transposed, vv: vv))
        }

        /// Moves the origin under the current position (velocity kept: the frames' axes
        /// differ by the meridian convergence, under 0.2° at the re-centring distance).
        mutating func recentre() {
            let here = frame.coordinate(east: x.position.x, north: x.position.y)
            frame = LocalFrame(origin: here)
            x.position = .zero
        }

        /// The estimate as a `Location`, with the template's other fields (altitude, …).
        func location(_ x: State4, _ p: Block4, template: Location) -> Location {
            KalmanSmoother.location(frame: frame, x, p, template: template)
        }
    }

    /// What a forward step hands the backward pass.
    enum Step: Sendable {
        case none
        case start(frame: LocalFrame)
        case update(frame: LocalFrame, predicted: State4, predictedCovariance: Block4, dt: Double)
    }

    static func location(frame: LocalFrame, _ x: State4, _ p: Block4, template: Location) -> Location {
        var out = template
        out.coordinate = frame.coordinate(east: x.position.x, north: x.position.y)
        // Largest eigenvalue of the position covariance: the 68 % radius of its widest axis.
        let m = p.pp
        let half = (m.a - m.d) / 2
        let lambda = (m.a + m.d) / 2 + (half * half + m.b * m.b).squareRoot()
        out.horizontalAccuracy = Distance(meters: lambda.squareRoot() / radiusToSigma)
        let speed = x.velocity.norm
        out.speed = Speed(metersPerSecond: speed)
        let v = p.vv
        if speed > 1e-9 {
            let u = x.velocity * (1 / speed)
            let along = u.x * (v.a * u.x + v.b * u.y) + u.y * (v.c * u.x + v.d * u.y)
            let w = Vec2(x: u.y, y: -u.x)
            let across = w.x * (v.a * w.x + v.b * w.y) + w.y * (v.c * w.x + v.d * w.y)
            out.speedAccuracy = Speed(metersPerSecond: max(along, 0).squareRoot())
            out.course = Bearing(degrees: atan2(x.velocity.x, x.velocity.y) * 180 / .pi)
            out.courseAccuracy = min(atan2(max(across, 0).squareRoot(), speed) * 180 / .pi, 180)
        } else {
            out.speedAccuracy = Speed(metersPerSecond: (max(v.trace, 0) / 2).squareRoot())
            out.course = nil
            out.courseAccuracy = nil
        }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
