public import GeoCore
public import Platform

extension KalmanSmoother {
    /// A fix the gated pass kept, the caller's item it came with, and whether the filter
    /// (re)started there; or, with `emits` false, a fix the stationary rule held, which the
    /// passes use as a measurement and nobody receives (`FixedLagSmoothing`).
    struct Kept<Item> {
        var fix: Location
        var item: Item
        var startsSegment: Bool
        var emits = true
    }

    /// One fix of a forward pass, as the backward pass needs it.
    private struct Record {
        var frame: LocalFrame
        var filtered: State4
        var filteredCovariance: Block4
        var predicted: State4
        var predictedCovariance: Block4
        var dt: Double
        var startsSegment: Bool
    }

    /// Re-weighted passes at most (each O(n)); they usually settle in three to five.
    static let maximumReweightings = 10

    /// The window a long track is smoothed in: `core` fixes at a time, each window reaching
    /// `lag` kept fixes before and after its core, so every fix is estimated from at least `lag`
    /// fixes on each side (a fixed-lag smoother) and memory is O(core + 2 lag) however long the
    /// track. Where a window starts, its forward filter starts afresh; after `lag` fixes it has
    /// forgotten that start.
    public struct SmoothingWindow: Hashable, Sendable {
        public var core: Int
        public var lag: Int

        public init(core: Int, lag: Int) {
            self.core = max(core, 1)
            self.lag = max(lag, 0)
        }

        /// 1024 fixes a window, 256 fixes of lag (at 1 Hz, four minutes either side of a fix):
        /// on the evaluation tracks of `geo eval filters` every fix lies within 16 cm of the
        /// whole-track smoother's, with the same fixes kept (`FixedLagSmoothingTests`, windows
        /// of 50 with this lag), and the smoother's peak RSS stays at 22 MiB from 10⁴ to 10⁷
        /// fixes (`Benchmarks/rss.sh`).
        public static let standard = SmoothingWindow(core: 1024, lag: 256)

        /// The whole track in one window (O(n) memory): the reference the windows are checked against.
        public static let wholeTrack = SmoothingWindow(core: .max, lag: 0)
    }

    /// The Rauch–Tung–Striebel smoothed track: every fix the forward filter kept, re-estimated
    /// from the fixes before and after it (Rauch, Tung & Striebel, "Maximum likelihood estimates
    /// of linear dynamic systems", AIAA J. 3(8), 1965; Särkkä, *Bayesian Filtering and
    /// Smoothing*, 2013, Thm 8.2), `SmoothingWindow.standard` at a time. Same model and gates as `update(with:)`; segments split where
    /// the forward filter restarted on a jump (gaps are bridged). With `measurementDegreesOfFreedom` the position noise is
    /// Student-t (see `smoothed(_:rules:report:)`). Gated outliers and out-of-order fixes are
    /// left out and counted in `report`. Starts from this filter's parameters, not its state.
    /// - Complexity: O(n) time, O(window) memory besides the result.
    public func smoothed(_ track: some Sequence<Location>, report: inout FilterReport) -> [Location] {
        smoothed(track.lazy.map { ($0, nil) }, rules: StandardRules?.none, report: &report)
    }

    /// The RTS-smoothed track, without a report.
    public func smoothed(_ track: some Sequence<Location>) -> [Location] {
        var report = FilterReport()
        return smoothed(track, report: &report)
    }

    /// The smoothing pipeline: `rules` and this model's innovation gate judge each fix exactly as
    /// `TrackCleaner` does online (so a fix the rules pass but the gate rejects never becomes
    /// the rules' anchor), then the kept fixes are RTS-smoothed with heavy-tailed position noise.
    ///
    /// The online gate cannot reject a jump when the fixes are sparse: the prediction's
    /// uncertainty grows with the cube of the gap. Both neighbours of a jump disagree with it,
    /// so the smoother can: each fix's noise is Student-t with `measurementDegreesOfFreedom` ν,
    /// a Gaussian whose variance is scaled by a hidden weight λ, and the smoother alternates RTS
    /// passes with λ = (ν + 2) / (ν + E[dᵀR⁻¹d]) from the smoothed residual d and covariance
    /// (variational Bayes: Agamennoni, Nieto & Nebot, "Approximate inference in state-space
    /// models with heavy-tailed noise", IEEE Trans. Signal Process. 60(10), 2012, §IV). A fix
    /// whose final E[dᵀR⁻¹d] exceeds `gateChiSquare` is left out as an outlier, and so is a fix
    /// that the same gate, run backwards from the segment's end, rejects where it predicted the
    /// fix more sharply than the forward filter did (`judgeFromTheEnd`). Where the model's
    /// agility is estimated from the fixes (`KalmanParameters.estimatesProcessNoise`), it is
    /// estimated again without the outliers found, and the passes run again, until those agree.
    /// - Complexity: O(n) time per pass, at most (`maximumReestimations` + 1) × (`maximumReweightings`
    ///   + 3) + 1 passes and `maximumReestimations` + 1 gated filters backwards per window.
    public func smoothed<Rule: TrackFilter>(_ track: some Sequence<Location>, rules: Rule,
                                            report: inout FilterReport) -> [Location] {
        smoothed(track.lazy.map { ($0, nil) }, rules: rules, report: &report)
    }

    /// `smoothed(_:rules:report:)` over fixes with their receive times (for the stale rule).
    package func smoothed<Rule: TrackFilter>(_ track: some Sequence<(Location, Date?)>, rules: Rule,
                                     report: inout FilterReport, window: SmoothingWindow = .standard) -> [Location] {
        var out: [Location] = []
        smoothing(track, rules: rules, report: &report, window: window) { out.append($0) }
        return out
    }

    /// The smoothing pipeline of `smoothed(_:rules:report:)`, handing each smoothed fix to
    /// `emit` as soon as its window is done, so that memory stays O(window) when the caller
    /// streams the fixes in and out (`FixedLagSmoothing` for a caller that pushes them).
    /// - Complexity: O(n) time, O(`window.core` + 2 `window.lag`) memory.
    public func smoothing<Rule: TrackFilter>(_ track: some Sequence<(Location, Date?)>, rules: Rule,
                                             report: inout FilterReport, window: SmoothingWindow = .standard,
                                             _ emit: (Location) -> Void) {
        var stream = FixedLagSmoothing<Rule, Void>(smoother: self, rules: rules, window: window)
        for (fix, receivedAt) in track { stream.push(fix, receivedAt: receivedAt, item: ()) { fix, _ in emit(fix) } }
        stream.finish { fix, _ in emit(fix) }
        report.merge(stream.report)
    }

    /// Smooths `window` (its first fix starts the forward filter) and emits the fixes of `core`,
    /// leaving out those the Student-t weights mark as outliers.
    func smoothWindow<Item>(_ window: [Kept<Item>], core: Range<Int>, report: inout FilterReport,
                            _ emit: (Location, Item) throws -> Void) rethrows {
        guard !core.isEmpty else { return }
        // The passes read only fixes and segment starts: taken out of the generic `Kept<Item>`
        // once, so that they run as concrete code whatever `Item` the caller has (walking
        // `window` itself in each pass went through `Item`'s metadata and value witnesses, a
        // quarter of `geo gpx smooth`'s time).
        let fixes = window.map(\.fix)
        var starts = window.map(\.startsSegment)
        starts[0] = true
        var noiseScale = [Double](repeating: 1, count: fixes.count)
        // The model that judges outliers and the one that places the smoothed fixes
        // (`KalmanParameters.ProcessNoiseEstimation`).
        let preset = Motion(acceleration: [Double](repeating: parameters.accelerationNoise, count: fixes.count),
                            still: [Bool](repeating: false, count: fixes.count))
        let emits = window.map(\.emits)
        var excluded = [Bool](repeating: false, count: fixes.count)
        var judging = parameters.estimatesProcessNoise == .never ? preset
            : motion(fixes, starts: starts, emits: emits, excluded: excluded)
        guard let nu = parameters.measurementDegreesOfFreedom else {
            let placing = parameters.estimatesProcessNoise == .everywhere ? judging : preset
            let (records, states) = pass(fixes, starts: starts, noiseScale: noiseScale, motion: placing)
            for k in core where window[k].emits {
                try emit(Self.location(frame: records[k].frame, states[k].0, states[k].1, template: fixes[k]), window[k].item)
            }
            return
        }
        var (records, states, distances) = reweighted(fixes, starts: starts, noiseScale: &noiseScale, motion: judging, nu: nu)
        // The estimated motion came from every fix, the jumps among them: where they are more
        // than the estimate's quantile tolerates (bursts of jumps), it took them for motion and
        // the passes kept some. Estimated again without the outliers the passes found, until
        // those are the same (reweighted least squares: a robust fit, then the fit again without
        // the points it flags; Rousseeuw & Leroy, *Robust Regression and Outlier Detection*, 1987).
        if parameters.estimatesProcessNoise != .never {
            for _ in 0..<Self.maximumReestimations {
                let outliers = distances.map { $0 > parameters.gateChiSquare }
                guard outliers != excluded, outliers.contains(true) else { break }
                excluded = outliers
                judging = motion(fixes, starts: starts, emits: emits, excluded: excluded)
                (records, states, distances) = reweighted(fixes, starts: starts, noiseScale: &noiseScale, motion: judging, nu: nu)
            }
        }
        switch parameters.estimatesProcessNoise {
        case .judgingOutliers: (records, states) = pass(fixes, starts: starts, noiseScale: noiseScale, motion: preset)
        case .never, .everywhere: break
        }
        for k in core where window[k].emits {
            if distances[k] > parameters.gateChiSquare {
                report.reclassify(acceptedAs: .kalmanOutlier)
            } else {
                try emit(Self.location(frame: records[k].frame, states[k].0, states[k].1, template: fixes[k]), window[k].item)
            }
        }
    }

    /// Times the process noise is estimated again without the outliers found (each time the
    /// backward judge and the re-weighted passes run again); they usually settle in one.
    static let maximumReestimations = 2

    /// The Student-t passes of `smoothWindow`: a pass, the backward judge, then passes that
    /// re-weight each fix until the weights settle; the last pass's records and smoothed states
    /// and each fix's E[dᵀR⁻¹d] (`noiseScale`: each fix's variance scale, 1 / its weight).
    private func reweighted(_ fixes: [Location], starts: [Bool], noiseScale: inout [Double], motion judging: Motion,
                            nu: Double) -> ([Record], [(State4, Block4)], [Double]) {
        var (records, states) = pass(fixes, starts: starts, noiseScale: noiseScale, motion: judging)
        // E[dᵀR⁻¹d] of each fix, at least the backward distance of a fix judged from the end: its
        // weight still falls as the smoothed track moves away from it (fixed at the backward
        // distance, a jump 130 m off kept σ 15 m and pulled the track off its honest neighbours).
        var distances = [Double](repeating: 0, count: fixes.count)
        let judgedOut = judgeFromTheEnd(fixes, starts: starts, records: records, acceleration: judging.acceleration, distances: &distances)
        let floor = distances
        for k in fixes.indices where judgedOut[k] { noiseScale[k] = (nu + distances[k]) / (nu + 2) }
        if judgedOut.contains(true) { (records, states) = pass(fixes, starts: starts, noiseScale: noiseScale, motion: judging) }
        for _ in 0...Self.maximumReweightings {
            var change = 0.0
            for k in fixes.indices {
                distances[k] = max(floor[k], expectedMahalanobisSquared(fixes[k], frame: records[k].frame, states[k]))
                let scale = (nu + distances[k]) / (nu + 2)
                change = max(change, abs(scale - noiseScale[k]) / noiseScale[k])
                noiseScale[k] = scale
            }
            if change < 1e-3 { break }
            (records, states) = pass(fixes, starts: starts, noiseScale: noiseScale, motion: judging)
        }
        return (records, states, distances)
    }

    /// Which fixes a gated filter run backwards from their segment's end rejects where it
    /// predicted them more sharply than the forward filter did (`KalmanSmoother.judgeBackward`;
    /// the trace of the predicted position covariance, the forward one from `records`, infinite
    /// at a start), with their squared Mahalanobis distance from its prediction in `distances`.
    /// The forward gate judges a segment's first fixes knowing no velocity (σ 5 m/s: 100 m in
    /// 20 s) and never judges its start, so two agreeing jumps that start a track pass it; the
    /// Student-t passes cannot drop them either, since the start's unknown velocity explains
    /// any position before the fixes that follow (variational Bayes keeps the local optimum it
    /// starts from: Agamennoni et al. 2012, §IV). A start is a start only for the forward
    /// filter: judged from the end, the jumps come after a track whose motion is known, and the
    /// sharper of the two one-sided gates decides, as the forward gate alone does elsewhere.
    /// (`geo eval filters --cases wide`, 10 s with bursts of jumps, seed 20240601: a track that
    /// starts with two jumps 150 m off kept both, cerknica 7.7 % too long.)
    private func judgeFromTheEnd(_ fixes: [Location], starts: [Bool], records: [Record], acceleration: [Double],
                                 distances: inout [Double]) -> [Bool] {
        var out = [Bool](repeating: false, count: fixes.count)
        var backward = KalmanSmoother(parameters: parameters)
        for k in fixes.indices.reversed() {
            if k + 1 == fixes.count || starts[k + 1] { backward.reset() }
            let (d2, spread) = backward.judgeBackward(fixes[k], accelerationNoise: acceleration[min(k + 1, fixes.count - 1)])
            let forwardSpread = records[k].startsSegment ? .infinity : records[k].predictedCovariance.pp.trace
            if d2 > parameters.gateChiSquare, spread < forwardSpread {
                distances[k] = d2
                out[k] = true
            }
        }
        return out
    }

    /// Each step's motion model in the passes; element k is for the step from fix k − 1 to fix k.
    struct Motion {
        /// White-acceleration noise, m/s² (the square root of `processNoise(_:starts:)`).
        var acceleration: [Double]
        /// Whether the device was still at both ends of the step (`stillness(_:starts:)`):
        /// the step then also measures a zero velocity (`stillVelocitySigma`).
        var still: [Bool]
    }

    /// The motion estimated from the fixes: `processNoise(_:starts:)` from the fixes that
    /// `emits` and not `excluded` (not a stop's held fixes, which would make every turn near it
    /// look like noise; not the outliers the passes found, which make every triple near a jump
    /// look like motion), each fix left out taking the value of the step it lies in, the next
    /// used fix's; and on every step between two fixes the device was still at
    /// (`stillness(_:starts:)`, judged from every fix not `excluded`, the held ones too: they
    /// are the best witnesses of a stop) the least the estimate allows (`leastProcessNoise`)
    /// and a zero velocity, as `holdStill` tells the online filter at a held fix. The scatter of
    /// a stop's fixes is noise, so its triples showed as much motion as the noise makes (the
    /// estimate is an upper bound), and the smoothed track wandered through every stop the
    /// stationary rule let go with the noise (issue 34 §2, `geo eval filters --cases wide`:
    /// korita every 10 s with 10 m of noise, 7 of the 10 % it was too long came from its
    /// stops; every 1 s, 2 of 2.7 %). The least process noise alone still let the track drift
    /// through a stop at the velocity its fixes' correlated error suggested (korita with 10 m of
    /// noise: 5.5 of the 8.1 % too long were still in its stops); the zero velocity holds it.
    private func motion(_ fixes: [Location], starts: [Bool], emits: [Bool], excluded: [Bool]) -> Motion {
        let (kept, keptStarts) = Self.subset(starts: starts) { emits[$0] && !excluded[$0] }
        var out: [Double]
        if kept.count == fixes.count {
            out = processNoise(fixes, starts: keptStarts)
        } else {
            let q = processNoise(kept.map { fixes[$0] }, starts: keptStarts)
            out = [Double](repeating: parameters.accelerationNoise * parameters.accelerationNoise, count: fixes.count)
            var next = q.count - 1
            for k in fixes.indices.reversed() {
                while next > 0, kept[next - 1] >= k { next -= 1 }
                if next >= 0, next < q.count { out[k] = q[next] }
            }
        }
        let (measured, measuredStarts) = Self.subset(starts: starts) { !excluded[$0] }
        let still = stillness(measured.map { fixes[$0] }, starts: measuredStarts)
        let least = parameters.accelerationNoise * parameters.accelerationNoise * Self.leastProcessNoise
        var stillSteps = [Bool](repeating: false, count: fixes.count)
        for m in measured.indices.dropFirst() where still[m] && still[m - 1] && !measuredStarts[m] {
            // The step into fix measured[m] and those of the excluded fixes since measured[m - 1].
            for k in (measured[m - 1] + 1)...measured[m] {
                out[k] = min(out[k], least)
                stillSteps[k] = true
            }
        }
        return Motion(acceleration: out.map { $0.squareRoot() }, still: stillSteps)
    }

    /// The indices of the fixes `includes` names, and whether each starts a segment (when any
    /// fix since the previous one named did).
    private static func subset(starts: [Bool], _ includes: (Int) -> Bool) -> ([Int], [Bool]) {
        var kept: [Int] = []
        var keptStarts: [Bool] = []
        var startSince = false
        for k in starts.indices {
            startSince = startSince || starts[k]
            guard includes(k) else { continue }
            kept.append(k)
            keptStarts.append(keptStarts.isEmpty || startSince)
            startSince = false
        }
        return (kept, keptStarts)
    }

    /// E[dᵀR⁻¹d] for the fix's residual d from the smoothed state: the squared Mahalanobis
    /// distance of the smoothed mean plus tr(R⁻¹ P_pos), its spread (R the fix's own noise).
    private func expectedMahalanobisSquared(_ fix: Location, frame: LocalFrame, _ state: (State4, Block4)) -> Double {
        let z = frame.point(for: fix.coordinate)
        let d = Vec2(x: z.east - state.0.position.x, y: z.north - state.0.position.y)
        return (d.x * d.x + d.y * d.y + state.1.pp.trace) / positionVariance(of: fix)
    }

    /// One forward pass over the kept fixes with their noise scales and each step's motion
    /// (`Motion`, restarting where `starts` says), then the backward pass: the forward records
    /// and the smoothed state and covariance of each fix.
    private func pass(_ fixes: [Location], starts: [Bool], noiseScale: [Double],
                      motion: Motion) -> ([Record], [(State4, Block4)]) {
        var forward = KalmanSmoother(parameters: parameters)
        var records: [Record] = []
        records.reserveCapacity(fixes.count)
        for k in fixes.indices {
            var step = Step.none
            forward.refit(with: fixes[k], noiseScale: noiseScale[k], accelerationNoise: motion.acceleration[k],
                          still: motion.still[k], startsSegment: starts[k], recording: &step)
            let (fx, fp) = (forward.x, forward.p)
            switch step {
            case .none:
                preconditionFailure("Broken contract: refit records every step")
            case .start(let frame):
                records.append(Record(frame: frame, filtered: fx, filteredCovariance: fp, predicted: fx,
                                      predictedCovariance: fp, dt: 0, startsSegment: true))
            case .update(let frame, let predicted, let predictedCovariance, let dt):
                records.append(Record(frame: frame, filtered: fx, filteredCovariance: fp, predicted: predicted,
                                      predictedCovariance: predictedCovariance, dt: dt, startsSegment: false))
            }
        }
        var smoothed = [(State4, Block4)]()
        smoothed.reserveCapacity(records.count)
        guard let last = records.last else { return (records, smoothed) }
        var (xs, ps) = (last.filtered, last.filteredCovariance)
        smoothed.append((xs, ps))
        for k in stride(from: records.count - 2, through: 0, by: -1) {
            let r = records[k], next = records[k + 1]
            if next.startsSegment {
                (xs, ps) = (r.filtered, r.filteredCovariance)
            } else {
                // C = P_k|k Fᵀ (P_k+1|k)⁻¹; x_k|n = x_k|k + C (x_k+1|n − x_k+1|k).
                let c = r.filteredCovariance * Block4.transition(next.dt).transposed * next.predictedCovariance.inverse
                xs = r.filtered + c * (xs - next.predicted)
                ps = (r.filteredCovariance + c * (ps - next.predictedCovariance) * c.transposed).symmetrized
            }
            smoothed.append((xs, ps))
        }
        smoothed.reverse()
        return (records, smoothed)
    }
}

/// The smoothing pipeline of `KalmanSmoother.smoothed(_:rules:report:)` as a stream the caller
/// pushes fixes into: the rules and the Kalman gate judge each fix online, as `TrackCleaner`
/// does, and the kept fixes are RTS-smoothed in the windows of `KalmanSmoother.SmoothingWindow`
/// (a fixed-lag smoother: each fix is estimated from at least `window.lag` kept fixes on each
/// side; with the standard window, 256 fixes, four minutes at 1 Hz). Fixes the stationary rule
/// holds go into the smoother too, as measurements that are not emitted: the stop they show is
/// evidence against a jump between them. A smoothed fix leaves,
/// with the item it came with, once its window is done, so memory is O(`window.core` +
/// 2 `window.lag`) however long the track.
///
/// ```swift
/// var stream = FixedLagSmoothing<StandardRules, GPXPoint>(smoother: smoother, rules: rules)
/// for (fix, point) in points { try stream.push(fix, item: point) { smoothed, point in … } }
/// try stream.finish { smoothed, point in … }
/// ```
public struct FixedLagSmoothing<Rule: TrackFilter, Item> {
    private typealias Kept = KalmanSmoother.Kept<Item>
    private let smoother: KalmanSmoother
    private let window: KalmanSmoother.SmoothingWindow
    private var cleaner: TrackCleaner<Rule>
    /// Kept fixes: the first `context` were emitted already and stay as the next window's
    /// lead-in; the rest wait for their window.
    private var kept: [Kept] = []
    private var context = 0
    /// Fixes the gated pass kept and a later one exposed as outliers, and the smoother's own
    /// outliers: accepted by the cleaner, dropped here.
    private var dropped = FilterReport()
    /// The last fix dropped as a jump, until the next fix confirms that or takes it back.
    private var overturned: Kept?
    /// Whether the filter's last (re)start was the first fix after a gap (or replaced one that
    /// was): the smoother bridges such a start instead of splitting there.
    private var startedAfterGap = false
    /// Why the rules or the gate rejected the last fix pushed; nil: they passed it (it is
    /// emitted unless a later fix or the smoother exposes it as an outlier).
    private(set) var rejectedLast: RejectionReason?

    /// The cleaner's Kalman filter, read in place: binding it to a `let` copied the whole
    /// filter (over 800 bytes) for every fix.
    private var kalman: KalmanSmoother { _read { yield cleaner.kalman! } }

    public init(smoother: KalmanSmoother, rules: Rule, window: KalmanSmoother.SmoothingWindow = .standard) {
        self.smoother = smoother
        self.window = window
        cleaner = TrackCleaner(rule: rules, kalman: smoother.parameters)
    }

    /// Counts per reason of every fix pushed; complete after `finish(_:)`.
    public var report: FilterReport {
        var r = cleaner.report
        r.merge(dropped)
        return r
    }

    /// Judges one fix (in timestamp order) and emits the smoothed fixes of any window it completes.
    /// - Parameter receivedAt: when the fix arrived, for the stale rule; nil offline.
    /// - Complexity: amortised O(1) time per fix.
    public mutating func push(_ fix: Location, receivedAt: Date? = nil, item: Item,
                              _ emit: (Location, Item) throws -> Void) rethrows {
        let decision = cleaner.process(fix, receivedAt: receivedAt)
        rejectedLast = decision.reason
        guard cleaner.kalman != nil else { return }
        guard decision.location != nil else {
            // A fix held for stillness is no error, only no news for a live map: the smoother
            // takes it as a measurement (not emitted), so a jump between a stop's fixes has
            // neighbours that contradict it instead of minutes of silence around it, in which
            // any jump fits the model (issue 34 §2: bursts of jumps during the korita walk's
            // stops). The online filter takes the same fixes as zero-velocity updates
            // (`TrackCleaner`, `KalmanSmoother.holdStill`).
            if decision.reason == .stationary, !kept.isEmpty {
                kept.append(Kept(fix: fix, item: item, startsSegment: false, emits: false))
                try smoothFullWindow(emit)
            }
            return
        }
        // The previous fix, if the gated pass kept it and it waits (after a held fix the
        // smoother judges it: whether the window had emitted it must not decide).
        let previous = kept.last.flatMap { $0.emits && kept.count > context ? $0 : nil }
        if kalman.overturnedPreviousFix, let previous, !previous.startsSegment {
            // The previous fix was a jump this one exposed; if it had overturned the fix
            // before it, that one is taken back (`KalmanSmoother.reinstatedFix`), in its
            // place by time.
            let jump = kept.removeLast()
            dropped.reclassify(acceptedAs: .kalmanOutlier)
            if let time = kalman.reinstatedFix, let earlier = overturned, earlier.fix.timestamp == time,
               case let at = kept.lastIndex(where: { $0.fix.timestamp < time }).map({ $0 + 1 }) ?? 0, at >= context {
                kept.insert(earlier, at: at)
                dropped.reinstate(rejectedAs: .kalmanOutlier)
                overturned = nil
            } else {
                overturned = jump
            }
        } else if kalman.replacedUnconfirmedStart, let previous, previous.startsSegment || startedAfterGap {
            // The previous fix (re)started the filter and this one contradicted it: it was the
            // outlier. Also when it was the first fix after a gap, which the smoother bridges
            // (so it does not start a segment): left in, it stood as the last fix before the
            // segment its replacement starts, judged by no fix after it (korita every 5–60 s,
            // seed 7000080 of `geo eval filters --cases wide`: a jump 195 m off kept, 8.6 % too
            // long).
            kept.removeLast()
            dropped.reclassify(acceptedAs: .kalmanOutlier)
        } else if kalman.segmentOutvoted, let start = kept.lastIndex(where: \.startsSegment),
                  kept[start...].allSatisfy(\.emits) {
            // More agreeing outliers than the segment had fixes: the segment was the outlier
            // (as far back as fixes still wait; a segment outvoted is a few fixes long). Not
            // when the stationary rule held fixes in it: a stop confirmed it.
            let from = max(start, context)
            for _ in from..<kept.count { dropped.reclassify(acceptedAs: .kalmanOutlier) }
            kept.removeSubrange(from...)
        }
        if !kalman.overturnedPreviousFix { overturned = nil }
        // A gap only widens the prediction, so the smoother bridges it; it splits where the
        // track jumped (outliers that agreed) or at a start that replaced an outlier.
        if kalman.updatesSinceStart == 0 {
            startedAfterGap = kalman.restartedAfterGap || (kalman.replacedUnconfirmedStart && startedAfterGap)
        }
        let restarted = kalman.updatesSinceStart == 0 && !startedAfterGap
        kept.append(Kept(fix: fix, item: item, startsSegment: kept.isEmpty || restarted))
        try smoothFullWindow(emit)
    }

    /// Smooths and emits the core of the window once it and its lag are full.
    private mutating func smoothFullWindow(_ emit: (Location, Item) throws -> Void) rethrows {
        if kept.count - context >= window.core + window.lag {
            try smoother.smoothWindow(kept, core: context..<(context + window.core), report: &dropped, emit)
            let keep = min(window.lag, context + window.core)
            kept.removeFirst(context + window.core - keep)
            context = keep
        }
    }

    /// Smooths and emits the fixes still waiting: the end of the track (call it once).
    public mutating func finish(_ emit: (Location, Item) throws -> Void) rethrows {
        let waiting = kept, from = context
        kept = []
        context = 0
        try smoother.smoothWindow(waiting, core: from..<waiting.count, report: &dropped, emit)
    }
}

/// The batch clean of a saved track (`geo gpx clean`): `TrackCleaner`'s rules and Kalman filter,
/// as live, over the track without the fixes the smoothing pipeline (`FixedLagSmoothing`) exposes
/// as jumps after its rules and gate passed them. Between sparse fixes the online tests cannot
/// see every jump: a fix 68 m off the midpoint of a 60 s span lies within the spread a 0.3 m/s²
/// model allows when nothing fixes the velocity at either end (`KalmanSmoother.offLine`), while
/// the smoother, which knows the velocity from the fixes on both sides, gives it no weight
/// (`geo eval filters --cases sparse`, cerknica every 30 s: one seed 7.5 % too long). Taking such
/// a fix out before the filter sees it also keeps it from pulling the estimates after it.
/// What the smoothing pipeline's rules or gate rejected stays rejected, for the same reason:
/// `clean` keeps a subset of what `smooth` keeps. Re-judged by a filter that no longer saw the
/// jump the smoother took out, a burst's later jumps passed its gate (issue 34 §2, korita every
/// 10 s with bursts of jumps: after the smoother dropped a burst's second fix, its third and
/// fourth, 146 and 179 m off, were delivered; that seed was 10.6 % too long).
/// Each fix leaves once the smoother's window holding it is done, so memory is O(window) kept
/// fixes plus the fixes the rules drop between them.
public struct SmoothedCleaning<Rule: TrackFilter, Item> {
    /// A pushed fix waiting for the smoother's verdict, and why the smoothing pipeline's rules
    /// or gate rejected it (nil: they passed it).
    private struct Waiting {
        var fix: Location
        var receivedAt: Date?
        var item: Item
        var rejectedAs: RejectionReason?
    }

    private var smoothing: FixedLagSmoothing<Rule, Int>?
    private var cleaning: TrackCleaning<Rule, Item>
    /// Fixes pushed and not yet judged, from index `first` on.
    private var waiting: [Waiting] = []
    private var first = 0
    /// Fixes the smoother dropped after its gate passed them.
    private var dropped = FilterReport()

    /// - Parameters:
    ///   - cleaner: a fresh cleaner; its rules and Kalman parameters also drive the smoothing
    ///     pipeline (without a Kalman filter nothing is smoothed: fixes go straight to `cleaner`).
    ///   - window: the smoother's window.
    public init(_ cleaner: TrackCleaner<Rule>, window: KalmanSmoother.SmoothingWindow = .standard) {
        cleaning = TrackCleaning(cleaner)
        smoothing = cleaner.kalman.map { FixedLagSmoothing(smoother: KalmanSmoother(parameters: $0.parameters), rules: cleaner.rule, window: window) }
    }

    /// Counts per reason of every fix pushed (complete after `finish(_:)`); the fixes the
    /// smoother exposed count as Kalman outliers.
    public var report: FilterReport {
        var r = cleaning.report
        r.merge(dropped)
        return r
    }

    /// Takes one fix (in timestamp order) and emits the cleaned fixes that can leave.
    /// - Complexity: amortised O(1) time per fix.
    public mutating func push(_ fix: Location, receivedAt: Date? = nil, item: Item,
                              _ emit: (Location, Item) throws -> Void) rethrows {
        guard smoothing != nil else { return try cleaning.push(fix, receivedAt: receivedAt, item: item, emit) }
        let index = first + waiting.count
        var kept: [Int] = []
        smoothing!.push(fix, receivedAt: receivedAt, item: index) { kept.append($1) }
        waiting.append(Waiting(fix: fix, receivedAt: receivedAt, item: item, rejectedAs: smoothing!.rejectedLast))
        try release(kept: kept, through: kept.last, emit)
    }

    /// Judges and emits everything still waiting (the end of the track; call it once).
    public mutating func finish(_ emit: (Location, Item) throws -> Void) rethrows {
        if smoothing != nil {
            var kept: [Int] = []
            smoothing!.finish { kept.append($1) }
            try release(kept: kept, through: first + waiting.count - 1, emit)
        }
        try cleaning.finish(emit)
    }

    /// Hands the waiting fixes up to index `last` to the cleaner, given the (increasing) indices
    /// among them the smoother kept: a fix its gate passed and it did not keep is dropped, and
    /// one its rules or gate rejected goes to the cleaner's rules (their state) but is rejected
    /// for the same reason whatever they say.
    private mutating func release(kept: [Int], through last: Int?, _ emit: (Location, Item) throws -> Void) rethrows {
        guard let last, last >= first else { return }
        var next = kept.startIndex
        for k in 0...(last - first) {
            let w = waiting[k]
            let isKept = next < kept.endIndex && kept[next] == first + k
            if isKept { next += 1 }
            if w.rejectedAs == nil, !isKept {
                dropped.record(.kalmanOutlier)
            } else {
                try cleaning.push(w.fix, receivedAt: w.receivedAt, item: w.item, rejectedAs: w.rejectedAs, emit)
            }
        }
        waiting.removeFirst(last - first + 1)
        first = last + 1
    }
}
