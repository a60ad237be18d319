public import GeoCore
public import Platform
import GeoBase

/// A constant-velocity Kalman filter on a local east/north plane, online one fix at a time, and
/// the Rauch–Tung–Striebel smoother over a saved track with the same model.
///
/// State: east, north (m) and their velocities (m/s); white-acceleration process noise
/// (Bar-Shalom, Li & Kirubarajan, *Estimation with Applications to Tracking and Navigation*,
/// 2001, §6.2.2). Each fix's own accuracy is its measurement noise: a 68 % radius r of a
/// circular normal error is σ·√(−2 ln 0.32) = 1.51 σ per axis. Reported speed and course are
/// fused as a velocity measurement, so speed and course survive filtering (HCKalmanFilter#16)
/// and the estimate does not lag (Soundscape-Android#317). Positions farther than the χ² gate
/// from the prediction are ignored (outliers); a long gap or repeated outliers that agree with
/// each other restart it, a start that the next fix contradicts is replaced by that fix, and a
/// fix that passed the gate but lies off the line its neighbours draw is overturned by the next
/// (the first fix after a gap too, judged from the estimate before the gap: `judgeStart`).
/// Every estimate carries its own accuracy, speed accuracy and course accuracy. All the 4×4
/// algebra is in 2×2 blocks held in registers: a step allocates nothing.
public struct KalmanSmoother: Sendable {
    /// The model's tunables.
    public var parameters: KalmanParameters {
        didSet { maximumGap = parameters.maximumGap.seconds }
    }
    /// `parameters.maximumGap` in seconds (a `Duration` conversion per fix costs a 128-bit division).
    private var maximumGap: Double
    /// Whether a fix has started the filter.
    private(set) var running = false
    /// The running estimate: its plane, state, covariance and time (meaningful when running).
    private(set) var frame = LocalFrame(origin: Coordinate(uncheckedLatitude: 0, longitude: 0))
    private(set) var x = State4(position: .zero, velocity: .zero)
    private(set) var p = Block4(pp: .zero, pv: .zero, vp: .zero, vv: .zero)
    private var time = Date(timeIntervalSince1970: 0)
    private var consecutiveOutliers = 0
    /// Fixes that corrected the estimate since the last (re)start.
    private(set) var updatesSinceStart = 0
    /// Whether the last step replaced an unconfirmed start (the RTS pass drops that start).
    private(set) var replacedUnconfirmedStart = false
    /// Whether the last step restarted on agreeing outliers that outnumber the fixes of the
    /// segment they overturned: that short segment was the outlier (the RTS pass drops it).
    private(set) var segmentOutvoted = false
    /// Whether the last step found the previous fix to be a jump: the estimate before that
    /// fix explains this one within the gate, better than it explained that fix, and that fix
    /// lies off the line from that estimate to this one by more than the motion allows. The
    /// gate alone cannot see such a jump when fixes are sparse (the prediction's uncertainty
    /// grows with the cube of the gap) or when it is a segment's second fix (the start knows
    /// no velocity); both neighbours can. The filter went back to the estimate before the jump
    /// and took this fix instead (the RTS pass and a batch clean drop the jump; a live consumer
    /// has shown it already). Three positions cannot always tell which of the last two jumped;
    /// the one the earlier estimate explains worse is taken to be the jump.
    private(set) var overturnedPreviousFix = false
    /// When the last step overturned a fix that had itself just overturned the one before it,
    /// and that earlier fix lies on the line from the estimate before it to this fix: the time
    /// of that earlier fix, which the filter took back (it and this fix corrected the estimate
    /// before it). A moderate error in the overturning fix had made an honest fix look off its
    /// line; the fix after it shows which of the two was wrong (`rts_bridgesGapsInsteadOfSplitting`
    /// lost two honest fixes of 80 that way). The RTS pass and a batch clean keep it again.
    private(set) var reinstatedFix: Date?
    /// The estimate before the last accepted fix (after a (re)start: the start's, or after a
    /// gap the estimate before it; in the filter's frame), that fix,
    /// and the fix it overturned from the same estimate, until the next fix confirms or
    /// overturns them.
    private var anchor: (x: State4, p: Block4, time: Date)?
    private var previousFix: Judged?
    private var overturnedFix: Judged?
    /// Whether the last step restarted because of a gap longer than `maximumGap` (the smoother
    /// bridges such gaps: they only widen the prediction).
    private(set) var restartedAfterGap = false
    /// The last gated position (plane metres), its per-axis σ and time.
    private var lastOutlier: (position: Vec2, sigma: Double, time: Date)?

    /// 1 / √(−2 ln 0.32): from a 68 % horizontal radius to a per-axis standard deviation.
    package static let radiusToSigma = 1 / (-2 * log(0.32)).squareRoot()

    public init(parameters: KalmanParameters = KalmanParameters()) {
        self.parameters = parameters
        maximumGap = parameters.maximumGap.seconds
    }

    /// The latest estimate (position, time, accuracies, speed, course), nil before the first fix
    /// or after `reset()`. The results of `update(with:)` also carry the fix's other fields.
    public var estimate: Location? {
        guard running else { return nil }
        return Self.location(frame: frame, x, p, template: Location(coordinate: frame.origin, timestamp: time))
    }

    /// Forgets everything; the next fix starts afresh.
    public mutating func reset() {
        running = false
        consecutiveOutliers = 0
        lastOutlier = nil
    }

    /// Feeds one fix (in timestamp order) and returns what became of it.
    /// - Complexity: O(1), no allocation.
    public mutating func update(with fix: Location) -> KalmanResult {
        var record = Step.none
        return update(with: fix, recording: &record)
    }

    /// What a step did, without the estimate (the cleaner's allocation- and copy-light path).
    enum Outcome { case started, updated, rejected(Double), outOfOrder }

    /// One step that writes the estimate over `out` (a copy of the fix) instead of returning it.
    mutating func update(with fix: Location, into out: inout Location) -> Outcome {
        var record = Step.Discarded()
        let outcome = step(fix, recording: &record)
        switch outcome {
        case .started, .updated: Self.write(frame: frame, x, p, into: &out)
        case .rejected, .outOfOrder: break
        }
        return outcome
    }

    /// One step, also returning the quantities the RTS backward pass needs.
    mutating func update(with fix: Location, recording step: inout Step) -> KalmanResult {
        switch self.step(fix, recording: &step) {
        case .started: return .started(Self.location(frame: frame, x, p, template: fix))
        case .updated: return .updated(Self.location(frame: frame, x, p, template: fix))
        case .rejected(let d2): return .rejected(mahalanobisSquared: d2)
        case .outOfOrder: return .outOfOrder
        }
    }

    private mutating func step(_ fix: Location, recording step: inout some StepRecording) -> Outcome {
        replacedUnconfirmedStart = false
        segmentOutvoted = false
        overturnedPreviousFix = false
        reinstatedFix = nil
        restartedAfterGap = false
        guard running else { return start(at: fix, recording: &step) }
        let dt = fix.timestamp.timeIntervalSince(time)
        if dt < 0 { return .outOfOrder }
        if dt > maximumGap {
            restartedAfterGap = true
            let beforeGap = (frame: frame, x: x, p: p, time: time)
            let outcome = start(at: fix, recording: &step)
            judgeStart(fix, against: beforeGap)
            return outcome
        }
        if x.position.isFarther(than: LocalFrame.recentringDistance) { recentre() }
        let (xp, pp) = predicted(dt: dt)
        let z = frame.point(for: fix.coordinate)
        let sigma = accuracy(of: fix) * Self.radiusToSigma
        let innovation = Vec2(x: z.east - xp.position.x, y: z.north - xp.position.y)
        let s = pp.pp + Mat2.diagonal(sigma * sigma, sigma * sigma)
        let si = s.inverse
        let d2 = innovation.mahalanobisSquared(inverse: si)
        if d2 > parameters.gateChiSquare {
            if overturningPrevious(with: fix, at: Vec2(x: z.east, y: z.north), sigma: sigma, recording: &step) { return .updated }
            // A start no second fix has confirmed may itself have been the outlier (the first
            // fix after a gap can be a multipath jump): the disagreeing fix replaces it.
            if updatesSinceStart == 0 {
                replacedUnconfirmedStart = true
                return start(at: fix, recording: &step)
            }
            // Outliers count towards a restart only while they agree with each other (the
            // track really moved); scattered multipath bursts keep resetting the count.
            let here = Vec2(x: z.east, y: z.north)
            if let last = lastOutlier, consistent(last, here, sigma: sigma, at: fix.timestamp) {
                consecutiveOutliers += 1
            } else {
                consecutiveOutliers = 1
            }
            lastOutlier = (here, sigma, fix.timestamp)
            if consecutiveOutliers >= parameters.maximumConsecutiveOutliers {
                let outvoted = updatesSinceStart + 1
                let outcome = start(at: fix, recording: &step)
                segmentOutvoted = outvoted < parameters.maximumConsecutiveOutliers
                return outcome
            }
            return .rejected(d2)
        }
        if overturningPrevious(with: fix, at: Vec2(x: z.east, y: z.north), sigma: sigma, recording: &step) { return .updated }
        consecutiveOutliers = 0
        lastOutlier = nil
        updatesSinceStart += 1
        anchor = (x, p, time)
        let velocity = velocityMeasurement(fix)
        previousFix = Judged(time: fix.timestamp, velocity: velocity, position: Vec2(x: z.east, y: z.north),
                             variance: sigma * sigma, fromAnchor: d2)
        overturnedFix = nil
        correct(velocity: velocity, at: fix.timestamp, predicted: xp, pp, innovation: innovation, inverseNoise: si, dt: dt, recording: &step)
        return .updated
    }

    /// Whether the previous fix was a jump that `fix` exposes (`overturnedPreviousFix`); if so,
    /// the filter goes back to the estimate before it and takes `fix` from there.
    /// - Parameter here: the fix in the filter's frame, metres.
    private mutating func overturningPrevious(with fix: Location, at here: Vec2, sigma: Double, recording step: inout some StepRecording) -> Bool {
        guard let a = anchor, let previous = previousFix else { return false }
        let dt = fix.timestamp.timeIntervalSince(a.time)
        let variance = sigma * sigma
        guard dt > 0, offLine(previous, from: a, to: here, variance: variance, dt: dt) else { return false }
        let current = (x: x, p: p, time: time)
        (x, p, time) = a
        let (xs, ps) = predicted(dt: dt)
        let innovation = here - xs.position
        let si = (ps.pp + Mat2.diagonal(variance, variance)).inverse
        let fromAnchor = innovation.mahalanobisSquared(inverse: si)
        guard fromAnchor <= parameters.gateChiSquare, fromAnchor < previous.fromAnchor else {
            (x, p, time) = current
            return false
        }
        overturnedPreviousFix = true
        consecutiveOutliers = 0
        lastOutlier = nil
        // An overturned start after a gap: the filter bridges the gap from the estimate before it.
        updatesSinceStart = max(updatesSinceStart, 1)
        if let earlier = overturnedFix, !offLine(earlier, from: a, to: here, variance: variance, dt: dt) {
            // The previous fix had overturned `earlier`, which lies on the line to this fix:
            // the previous fix was the odd one out. The estimate takes `earlier`, then this fix.
            let dte = earlier.time.timeIntervalSince(a.time)
            let (xe, pe) = predicted(dt: dte)
            let ie = earlier.position - xe.position
            let sie = (pe.pp + Mat2.diagonal(earlier.variance, earlier.variance)).inverse
            correct(velocity: earlier.velocity, at: earlier.time, predicted: xe, pe, innovation: ie, inverseNoise: sie, dt: dte, recording: &step)
            anchor = (x, p, time)
            let dtn = fix.timestamp.timeIntervalSince(time)
            let (xn, pn) = predicted(dt: dtn)
            let innovation = here - xn.position
            let si = (pn.pp + Mat2.diagonal(variance, variance)).inverse
            reinstatedFix = earlier.time
            updatesSinceStart += 1
            let velocity = velocityMeasurement(fix)
            previousFix = Judged(time: fix.timestamp, velocity: velocity, position: here, variance: variance,
                                 fromAnchor: innovation.mahalanobisSquared(inverse: si))
            overturnedFix = nil
            correct(velocity: velocity, at: fix.timestamp, predicted: xn, pn, innovation: innovation, inverseNoise: si, dt: dtn, recording: &step)
            return true
        }
        overturnedFix = previous
        let velocity = velocityMeasurement(fix)
        previousFix = Judged(time: fix.timestamp, velocity: velocity, position: here, variance: variance, fromAnchor: fromAnchor)
        correct(velocity: velocity, at: fix.timestamp, predicted: xs, ps, innovation: innovation, inverseNoise: si, dt: dt, recording: &step)
        return true
    }

    /// A fix the filter accepted and the next one judges: its position in the anchor's frame,
    /// per-axis variance (m²) and squared Mahalanobis distance from the anchor's prediction.
    struct Judged {
        var time: Date
        /// Its Doppler velocity measurement, if any (`velocityMeasurement(_:)`).
        var velocity: (Vec2, Mat2)?
        var position: Vec2
        var variance: Double
        var fromAnchor: Double
    }

    /// Whether the previous fix is farther than the gate from the straight line between the
    /// anchor estimate and a fix `dt` seconds after it (at `here`, with per-axis `variance`).
    /// Under white acceleration q the deviation of the position at a fraction f of T from that
    /// line has variance q² T³ f² (1 − f)² / 3 (the integrated Wiener process conditioned on both
    /// ends; the model of Bar-Shalom et al. §6.2.2), added to the three positions' own noise.
    /// The anchor's velocity is left out on purpose: at sparse fixes a walker turns between
    /// them, and a test that trusted the velocity took honest fixes after a turn for jumps
    /// (cerknica every 30 s: smooth 0.03 → 3.25 % too long).
    @inline(__always)  // see `predicted(dt:)`
    private func offLine(_ previous: Judged, from a: (x: State4, p: Block4, time: Date),
                         to here: Vec2, variance: Double, dt: Double) -> Bool {
        let f = previous.time.timeIntervalSince(a.time) / dt
        let q = parameters.accelerationNoise * parameters.accelerationNoise
        let spread = previous.variance + (1 - f) * (1 - f) * a.p.pp.trace / 2 + f * f * variance
            + q * dt * dt * dt * f * f * (1 - f) * (1 - f) / 3
        let deviation = previous.position - (a.x.position + (here - a.x.position) * f)
        return (deviation.x * deviation.x + deviation.y * deviation.y) / spread > parameters.gateChiSquare
    }

    /// One step of the smoother's re-weighted passes over fixes the gated pass kept: no gate,
    /// no restart rules; the fix's position variance is multiplied by `noiseScale` (1 / its
    /// Student-t weight), the step predicts with `accelerationNoise` (m/s², the step's own:
    /// `processNoise(_:starts:)`), measures a zero velocity (σ `stillVelocitySigma`) instead of
    /// the fix's own where the device was `still` over the step, and `startsSegment` restarts
    /// where the gated pass did.
    mutating func refit(with fix: Location, noiseScale: Double, accelerationNoise: Double, still: Bool,
                        startsSegment: Bool, recording step: inout Step) {
        guard running, !startsSegment else {
            _ = start(at: fix, noiseScale: noiseScale, recording: &step)
            return
        }
        let dt = fix.timestamp.timeIntervalSince(time)
        if x.position.isFarther(than: LocalFrame.recentringDistance) { recentre() }
        let (xp, pp) = Self.predicted(x, p, dt: dt, accelerationNoise: accelerationNoise)
        let z = frame.point(for: fix.coordinate)
        let variance = positionVariance(of: fix) * noiseScale
        let innovation = Vec2(x: z.east - xp.position.x, y: z.north - xp.position.y)
        let si = (pp.pp + Mat2.diagonal(variance, variance)).inverse
        updatesSinceStart += 1
        correct(velocity: still ? Self.zeroVelocity : velocityMeasurement(fix), at: fix.timestamp, predicted: xp, pp, innovation: innovation,
                inverseNoise: si, dt: dt, recording: &step)
    }

    /// One step of a time-reversed gated filter (`KalmanSmoother.smoothWindow`): `fix` is taken
    /// before the fixes this filter has seen. A constant-velocity model with white acceleration
    /// run backwards in time is the same model with the velocity negated, so the step predicts
    /// back over the time to `fix` as the forward filter predicts ahead. Positions only (a
    /// reported velocity would point the other way). A fix beyond the gate is not taken;
    /// `maximumConsecutiveOutliers` of them in a row restart the filter at the last.
    /// - Returns: the fix's squared Mahalanobis distance from the prediction, and the
    ///   prediction's position variance (trace, m²; infinite where the filter starts).
    mutating func judgeBackward(_ fix: Location, accelerationNoise: Double) -> (distance: Double, spread: Double) {
        var step = Step.Discarded()
        guard running else {
            _ = start(at: fix, recording: &step)
            return (0, .infinity)
        }
        if x.position.isFarther(than: LocalFrame.recentringDistance) { recentre() }
        let (xp, pp) = Self.predicted(x, p, dt: time.timeIntervalSince(fix.timestamp), accelerationNoise: accelerationNoise)
        let z = frame.point(for: fix.coordinate)
        let variance = positionVariance(of: fix)
        let innovation = Vec2(x: z.east - xp.position.x, y: z.north - xp.position.y)
        let si = (pp.pp + Mat2.diagonal(variance, variance)).inverse
        let d2 = innovation.mahalanobisSquared(inverse: si)
        if d2 <= parameters.gateChiSquare {
            var (xu, pu) = (xp, pp)
            Self.correctPosition(&xu, &pu, innovation: innovation, inverseNoise: si)
            (x, p, time) = (xu, pu.symmetrized, fix.timestamp)
            consecutiveOutliers = 0
        } else {
            consecutiveOutliers += 1
            if consecutiveOutliers >= parameters.maximumConsecutiveOutliers { _ = start(at: fix, recording: &step) }
        }
        return (d2, pp.pp.trace)
    }

    /// The measurement update of an accepted fix taken at `fixTime`: position, then its Doppler
    /// `velocity` (`velocityMeasurement(_:)`, computed once per fix) if that passes its own gate.
    private mutating func correct(velocity: (Vec2, Mat2)?, at fixTime: Date, predicted xp: State4, _ pp: Block4,
                                  innovation: Vec2, inverseNoise si: Mat2, dt: Double, recording step: inout some StepRecording) {
        var xu = xp, pu = pp
        Self.correctPosition(&xu, &pu, innovation: innovation, inverseNoise: si)
        if let (v, r) = velocity {
            let vi = v - xu.velocity
            let svi = (pu.vv + r).inverse
            if vi.mahalanobisSquared(inverse: svi) <= parameters.gateChiSquare {
                Self.correctVelocity(&xu, &pu, innovation: vi, inverseNoise: svi)
            }
        }
        step.record(.update(frame: frame, predicted: xp, predictedCovariance: pp, dt: dt))
        x = xu
        p = pu.symmetrized
        time = fixTime
    }

    /// Tells the filter the device was still at `time` (a zero-velocity update, as pedestrian
    /// navigation does at foot contact; Foxlin, IEEE CG&A 25(6), 2005): time advances, the
    /// velocity is zero with uncertainty `sigma`, and the position and its uncertainty stay as
    /// they were, since nothing moved. A long stop then neither restarts the filter nor lets
    /// the position uncertainty grow, so the first fixes after it cannot kick the velocity.
    /// A held fix lay where the estimate is, so it confirms a start as a fix that corrected
    /// the estimate does: a jump after a stop at the start of a track is gated, not taken for
    /// a start that replaces the stop's (issue 34 §2, korita every 10 s with bursts of jumps).
    /// - Parameter sigma: one-sigma uncertainty of "zero", m/s.
    /// - Complexity: O(1), no allocation.
    public mutating func holdStill(at time: Date, sigma: Speed = stillVelocitySigma) {
        guard running, time > self.time else { return }
        let s2 = sigma.metersPerSecond * sigma.metersPerSecond
        x.velocity = .zero
        p = Block4(pp: p.pp, pv: .zero, vp: .zero, vv: .diagonal(s2, s2))
        self.time = time
        updatesSinceStart += 1
    }

    /// Whether two gated positions could be the same moving device: they are no farther apart
    /// than the estimated speed (plus three sigma) allows in the time between them, plus the χ²
    /// gate radius of both fixes' noise. Direction is not used: after a sharp turn the filter's
    /// heading is the thing that is wrong.
    @inline(__always)  // see `predicted(dt:)`
    private func consistent(_ last: (position: Vec2, sigma: Double, time: Date), _ here: Vec2, sigma: Double,
                            at time: Date) -> Bool {
        let dt = time.timeIntervalSince(last.time)
        let speed = x.velocity.norm + 3 * (p.vv.trace / 2).squareRoot()
        let noise = (parameters.gateChiSquare * (last.sigma * last.sigma + sigma * sigma)).squareRoot()
        return (here - last.position).norm <= speed * dt + noise
    }

    private mutating func start(at fix: Location, noiseScale: Double = 1, recording step: inout some StepRecording) -> Outcome {
        consecutiveOutliers = 0
        lastOutlier = nil
        updatesSinceStart = 0
        frame = LocalFrame(origin: fix.coordinate)
        let variance = positionVariance(of: fix) * noiseScale
        let s0 = parameters.initialSpeedUncertainty.metersPerSecond
        var xs = State4(position: .zero, velocity: .zero)
        var ps = Block4(pp: .diagonal(variance, variance), pv: .zero, vp: .zero, vv: .diagonal(s0 * s0, s0 * s0))
        if let (v, r) = velocityMeasurement(fix) {
            let vi = v - xs.velocity
            Self.correctVelocity(&xs, &ps, innovation: vi, inverseNoise: (ps.vv + r).inverse)
        }
        x = xs
        p = ps.symmetrized
        time = fix.timestamp
        running = true
        anchor = (x, p, time)
        previousFix = nil
        overturnedFix = nil
        step.record(.start(frame: frame))
        return .started
    }

    /// Makes the estimate from before a gap the anchor that the fix starting after it is judged
    /// from (in the new frame), so the next fix can overturn that start as it overturns any fix
    /// off the line its neighbours draw. A restart knows no velocity, so the gate lets almost
    /// anything in as the second fix (5 m/s of uncertainty over 30 s is 150 m): without this,
    /// a jump that arrives as the first fix after a gap was taken for the track (cerknica every
    /// 30 s, where a fix the rules drop makes a 60 s gap: `geo gpx clean` 21 % too long on one
    /// seed). The line test's spread grows with the cube of the span, so after a long gap only
    /// a start far off the line is overturned; the rest restart as before.
    private mutating func judgeStart(_ fix: Location, against before: (frame: LocalFrame, x: State4, p: Block4, time: Date)) {
        let here = frame.point(for: before.frame.coordinate(east: before.x.position.x, north: before.x.position.y))
        let a = (x: State4(position: Vec2(x: here.east, y: here.north), velocity: before.x.velocity), p: before.p, time: before.time)
        let (xs, ps) = Self.predicted(a.x, a.p, dt: time.timeIntervalSince(a.time), accelerationNoise: parameters.accelerationNoise)
        let variance = positionVariance(of: fix)
        let si = (ps.pp + Mat2.diagonal(variance, variance)).inverse
        anchor = a
        previousFix = Judged(time: time, velocity: velocityMeasurement(fix), position: .zero, variance: variance,
                             fromAnchor: (Vec2.zero - xs.position).mahalanobisSquared(inverse: si))
    }

    /// x⁻ = F x, P⁻ = F P Fᵀ + Q in closed form for the constant-velocity F.
    /// Inlined, as are the other non-mutating helpers the mutating steps call: an outlined call
    /// passes a copy of the whole filter (817 bytes, a `memcpy` per call, 20 % of a step).
    @inline(__always)
    private func predicted(dt: Double) -> (State4, Block4) {
        Self.predicted(x, p, dt: dt, accelerationNoise: parameters.accelerationNoise)
    }

    /// `predicted(dt:)` from a given state and covariance.
    private static func predicted(_ x: State4, _ p: Block4, dt: Double, accelerationNoise: Double) -> (State4, Block4) {
        let x1 = State4(position: x.position + x.velocity * dt, velocity: x.velocity)
        return (x1, p.predictedCovariance(dt: dt, q: accelerationNoise * accelerationNoise))
    }

    /// Moves the origin under the current position (velocity kept: the frames' axes differ by
    /// the meridian convergence, under 0.2° at the re-centring distance).
    private mutating func recentre() {
        frame = LocalFrame(origin: frame.coordinate(east: x.position.x, north: x.position.y))
        x.position = .zero
        // The fixes the overturn rules remember were in the old frame: they start afresh.
        anchor = nil
        previousFix = nil
        overturnedFix = nil
    }

    @inline(__always)  // see `predicted(dt:)`
    private func accuracy(of fix: Location) -> Double {
        if let m = fix.horizontalAccuracy?.meters, m > 0 { return m }
        return parameters.assumedAccuracy.meters
    }

    /// The fix's per-axis position variance, m², from its 68 % radius.
    @inline(__always)  // see `predicted(dt:)`
    func positionVariance(of fix: Location) -> Double {
        let sigma = accuracy(of: fix) * Self.radiusToSigma
        return sigma * sigma
    }

    /// The one-sigma uncertainty of the zero velocity of a device known to be still: a held fix
    /// online (`holdStill(at:sigma:)`), a step between still fixes in the smoother's passes.
    public static let stillVelocitySigma = Speed.metersPerSecond(0.1)

    /// `stillVelocitySigma` as a velocity measurement (east, north) and its covariance.
    private static let zeroVelocity: (Vec2, Mat2) = {
        let s = stillVelocitySigma.metersPerSecond
        return (.zero, .diagonal(s * s, s * s))
    }()

    /// The fix's Doppler velocity (east, north) and its covariance, when it reports one.
    @inline(__always)  // see `predicted(dt:)`
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
        let c = course.degrees * (.pi / 180)
        let u = Vec2(x: sin(c), y: cos(c))               // along track
        let courseSigma = (fix.courseAccuracy.flatMap { $0.degrees > 0 ? $0.degrees : nil } ?? parameters.assumedCourseAccuracy) * (.pi / 180)
        let cross = max(ss, speed * min(courseSigma, .pi / 2))
        let a = ss * ss, b = cross * cross
        // R = a·u·uᵀ + b·w·wᵀ with w = (u.y, −u.x) across the track.
        let r = Mat2(a: a * u.x * u.x + b * u.y * u.y, b: (a - b) * u.x * u.y,
                     c: (a - b) * u.x * u.y, d: a * u.y * u.y + b * u.x * u.x)
        return (u * speed, r)
    }

    /// Position update with H = [I 0]; `inverseNoise` is S⁻¹ of the innovation covariance S = Ppp + R.
    static func correctPosition(_ x: inout State4, _ p: inout Block4, innovation y: Vec2, inverseNoise si: Mat2) {
        p.correct(&x, measuringVelocity: false, innovation: y, inverseNoise: si)
    }

    /// Velocity update with H = [0 I]; `inverseNoise` is S⁻¹ with S = Pvv + R.
    static func correctVelocity(_ x: inout State4, _ p: inout Block4, innovation y: Vec2, inverseNoise si: Mat2) {
        p.correct(&x, measuringVelocity: true, innovation: y, inverseNoise: si)
    }

    /// What a forward step hands the backward pass.
    enum Step: Sendable, StepRecording {
        case none
        case start(frame: LocalFrame)
        case update(frame: LocalFrame, predicted: State4, predictedCovariance: Block4, dt: Double)

        mutating func record(_ step: Step) { self = step }

        /// Where the online filter records its steps: nowhere (the steps, a frame and a
        /// covariance each, are not even built in the specialised code).
        struct Discarded: StepRecording {
            func record(_ step: Step) {}
        }
    }

    /// atan(o / a) for o, a ≥ 0: by its Taylor series when o/a < 0.1 (terms to the 9th power:
    /// error below 1e-11 rad), else `atan2`. Moving fixes take the cheap branch.
    static func angle(opposite o: Double, adjacent a: Double) -> Double {
        guard o < 0.1 * a else { return atan2(o, a) }
        let t = o / a, t2 = t * t
        return t * (1 - t2 * (1.0 / 3 - t2 * (1.0 / 5 - t2 * (1.0 / 7 - t2 / 9))))
    }

    static func location(frame: LocalFrame, _ x: State4, _ p: Block4, template: Location) -> Location {
        var out = template
        write(frame: frame, x, p, into: &out)
        return out
    }

    /// Overwrites position, accuracy, speed and course of `out` with the estimate.
    static func write(frame: LocalFrame, _ x: State4, _ p: Block4, into out: inout Location) {
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
            out.course = Bearing(degrees: atan2(x.velocity.x, x.velocity.y) * (180 / .pi))
            out.courseAccuracy = .degrees(min(angle(opposite: max(across, 0).squareRoot(), adjacent: speed) * (180 / .pi), 180))
        } else {
            out.speedAccuracy = Speed(metersPerSecond: (max(v.trace, 0) / 2).squareRoot())
            out.course = nil
            out.courseAccuracy = nil
        }
    }
}

/// Where a forward step's record for the backward pass goes (`KalmanSmoother.Step`, or nowhere).
protocol StepRecording {
    mutating func record(_ step: KalmanSmoother.Step)
}

