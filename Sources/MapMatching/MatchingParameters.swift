public import GeoBase
public import GeoCore
import Platform

/// The hidden Markov model's parameters (Newson & Krumm, "Hidden Markov Map Matching Through
/// Noise and Sparseness", ACM SIGSPATIAL GIS 2009, §4). Every value has a physical meaning; the
/// presets ``car`` and ``pedestrian`` are the documented defaults.
public struct MatchingParameters: Hashable, Sendable {
    /// The least GPS error standard deviation σ, metres: σ = max(floor, the fix's 68 %
    /// horizontal accuracy). Newson & Krumm estimated 4.07 m from their drive.
    public var sigmaFloor: Distance
    /// The 68 % accuracy assumed for fixes that report none (GPX without `hdop`, CSV), metres.
    public var defaultAccuracy: Distance
    /// The `defaultAccuracy` values a user may give, metres: above 0 through 1 km.
    public static let defaultAccuracies = ValidRange(above: 0, through: 1_000, unit: "m")
    /// The largest σ used, metres: a fix claiming a worse accuracy is treated as this good,
    /// which bounds the candidate search (absurd accuracies cannot make it unbounded).
    public var sigmaCeiling: Distance
    /// Newson & Krumm's β, metres: the scale of the exponential transition probability on
    /// |route distance − great-circle distance| (their 1 Hz estimate is about 3 m); a fix with
    /// noisy or sparse fixes get more (`beta(sigma:greatCircle:)`).
    public var beta: Distance
    /// Candidates lie within `radiusSigmas` × σ of the fix, but at least `minimumRadius`, at least
    /// as far as a road can still beat the off-road state (`offRoadReach(sigma:)`), and at most
    /// `maximumRadius` metres.
    public var radiusSigmas: Double
    public var minimumRadius: Distance
    public var maximumRadius: Distance
    /// Road segments kept per fix, nearest first; each gives one candidate per allowed direction.
    public var maximumCandidates: Int
    /// The fastest plausible travel, metres per second: a route between two candidates may be
    /// at most (seconds between the fixes) × this + both candidates' radii long.
    public var maximumSpeed: Speed
    /// A fix closer than this (metres) to the last routed fix is projected onto that fix's
    /// road instead of being routed (Valhalla's `interpolation_distance`; Newson & Krumm drop
    /// fixes within 2σ): standing still with jitter costs nothing and cannot invent loops.
    public var minimumStep: Distance
    /// Fixes further apart in time than this (seconds) start a new sub-matching.
    public var maximumGap: Duration
    /// Fixes further apart than this (metres) start a new sub-matching (Newson & Krumm break
    /// at 2 km-scale gaps; Valhalla's `breakage_distance` is 2000 m).
    public var maximumJump: Distance
    /// Backward movement along the same directed edge tolerated as GPS noise, metres (a car
    /// cannot reverse, but its fixes jitter at a stop); it counts as a negative road distance,
    /// so the transition pays for it.
    public var backwardTolerance: Distance
    /// Metres added to the road distance for each U-turn where the road graph has none (mid-edge,
    /// or at a junction; dead ends and barriers allow them freely): drivers turn in driveways
    /// and car parks the graph does not hold, rarely; walkers turn back freely, but a small
    /// penalty keeps GPS jitter from reading as turning.
    public var uTurnPenalty: Distance
    /// The off-road state: its emission is a road candidate's at this distance, metres, or at
    /// 3 σ when that is further (so it wins where the nearest road is further than that), ...
    public var offRoadDistance: Distance
    /// ... the probability per fix of leaving the road network (into a car park, a square) ...
    public var offRoadEntryProbability: Double
    /// ... and of coming back onto it from off-road ...
    public var offRoadExitProbability: Double
    /// ... and, from an off-road state that is the best state, of coming back onto a road no
    /// route reaches from the previous fix nor from where the chain left the road (a road
    /// missing from the map, a car park with two gates, a trace that starts off the graph):
    /// the bounded cost of re-entry. The re-entered path starts a new sub-matching. It keeps the off-road state from being
    /// absorbing: a fix near any road can leave it within a few fixes, whatever came before.
    /// The live answer's restart (the bounded regret of `MatchingSession`'s live recursion)
    /// costs the same: one bound for re-entry.
    public var offRoadRejoinProbability: Double
    /// An off-road state whose log probability is this far below the best road state's is not
    /// routed back onto the road (at 25 it is e⁻²⁵ ≈ 10⁻¹¹ times less likely): its re-entry
    /// searches reach as far as the time since it left the road allows.
    public var beamWidth: Double
    /// Longest run of undecided fixes kept: when the back-pointers have not converged after
    /// this many routed fixes, the oldest is committed to the currently best path (bounded
    /// memory; only reached on very long ambiguous stretches).
    public var maximumLag: Int

    public init(sigmaFloor: Distance, defaultAccuracy: Distance, sigmaCeiling: Distance, beta: Distance, radiusSigmas: Double,
                minimumRadius: Distance, maximumRadius: Distance, maximumCandidates: Int, maximumSpeed: Speed,
                minimumStep: Distance, maximumGap: Duration, maximumJump: Distance, backwardTolerance: Distance,
                uTurnPenalty: Distance, offRoadDistance: Distance, offRoadEntryProbability: Double,
                offRoadExitProbability: Double, offRoadRejoinProbability: Double = 1e-8, beamWidth: Double, maximumLag: Int) {
        self.sigmaFloor = sigmaFloor
        self.defaultAccuracy = defaultAccuracy
        self.sigmaCeiling = sigmaCeiling
        self.beta = beta
        self.radiusSigmas = radiusSigmas
        self.minimumRadius = minimumRadius
        self.maximumRadius = maximumRadius
        self.maximumCandidates = maximumCandidates
        self.maximumSpeed = maximumSpeed
        self.minimumStep = minimumStep
        self.maximumGap = maximumGap
        self.maximumJump = maximumJump
        self.backwardTolerance = backwardTolerance
        self.uTurnPenalty = uTurnPenalty
        self.offRoadDistance = offRoadDistance
        self.offRoadEntryProbability = offRoadEntryProbability
        self.offRoadExitProbability = offRoadExitProbability
        self.offRoadRejoinProbability = offRoadRejoinProbability
        self.beamWidth = beamWidth
        self.maximumLag = maximumLag
    }

    /// The parameters of `mode` a matcher uses unless given others: ``car`` or ``pedestrian``.
    public init(for mode: MapMatchMode) { self = mode == .car ? .car : .pedestrian }

    /// Driving: σ ≥ 4.07 m (Newson & Krumm), 10 m assumed without accuracy (consumer GPS in
    /// the open), β 3 m, candidates within 4σ and the off-road reach (62–200 m; 70.6 m at σ 10 m), 8 segments, 250 km/h, 10 m steps,
    /// breaks after 120 s or 2 km, U-turns off the graph at 50 m; off-road beyond 60 m; an
    /// unrouted re-entry from off-road costs 10⁻⁸ (18.4 nats, the emission gain of one fix 5 m
    /// from a road over the off-road state's at σ 10 m).
    public static let car = MatchingParameters(
        sigmaFloor: .meters(4.07), defaultAccuracy: .meters(10), sigmaCeiling: .meters(50), beta: .meters(3), radiusSigmas: 4,
        minimumRadius: .meters(50), maximumRadius: .meters(200), maximumCandidates: 8, maximumSpeed: .metersPerSecond(70),
        minimumStep: .meters(10), maximumGap: .seconds(120), maximumJump: .meters(2000), backwardTolerance: .meters(20),
        uTurnPenalty: .meters(50), offRoadDistance: .meters(60), offRoadEntryProbability: 1e-3,
        offRoadExitProbability: 0.1, offRoadRejoinProbability: 1e-8, beamWidth: 25, maximumLag: 500)

    /// Walking: σ ≥ 8 m (phones among buildings), U-turns anywhere at 20 m, 4 m steps, 5 m/s at most,
    /// off-road (squares, parks, car parks) likely: it wins beyond 25 m from a path.
    public static let pedestrian = MatchingParameters(
        sigmaFloor: .meters(8), defaultAccuracy: .meters(10), sigmaCeiling: .meters(50), beta: .meters(3), radiusSigmas: 4,
        minimumRadius: .meters(40), maximumRadius: .meters(200), maximumCandidates: 8, maximumSpeed: .metersPerSecond(5),
        minimumStep: .meters(4), maximumGap: .seconds(300), maximumJump: .meters(1000), backwardTolerance: .meters(8),
        uTurnPenalty: .meters(20), offRoadDistance: .meters(25), offRoadEntryProbability: 0.05,
        offRoadExitProbability: 0.2, offRoadRejoinProbability: 1e-8, beamWidth: 25, maximumLag: 500)

    /// σ for a fix of this 68 % accuracy (nil, negative or NaN: not reported), metres.
    @inline(__always)
    func sigma(accuracy: Double?) -> Double {
        guard let a = accuracy, a.isFinite, a >= 0 else { return max(sigmaFloor.meters, defaultAccuracy.meters) }
        return min(sigmaCeiling.meters, max(sigmaFloor.meters, a))
    }

    /// The candidate radius for σ, metres.
    @inline(__always)
    func radius(sigma: Double) -> Double {
        min(maximumRadius.meters, max(minimumRadius.meters, radiusSigmas * sigma, offRoadReach(sigma: sigma)))
    }

    /// log N(distance; 0, σ): the Gaussian emission probability density (Newson & Krumm eq. 1).
    @inline(__always)
    func logEmission(distance: Double, sigma: Double) -> Double {
        let z = distance / sigma
        return -0.5 * z * z - log(sigma * 2.5066282746310002)
    }

    /// β for a fix of this σ, this far (great circle, metres) from the previous one: at least
    /// `beta`, 0.3 σ for noisy fixes and a tenth of the distance for sparse ones, whose
    /// great-circle distances stray further from the road distance (Newson & Krumm fit a larger
    /// β at longer sampling periods). σ 10 m, the default, and fixes under 30 m apart keep 3 m.
    @inline(__always)
    func beta(sigma: Double, greatCircle: Double) -> Double { max(beta.meters, 0.3 * sigma, 0.1 * greatCircle) }

    /// log of (1/β) exp(−|route − great-circle| / β) (Newson & Krumm eq. 2), β for the newer
    /// fix's σ.
    @inline(__always)
    func logTransition(route: Double, greatCircle: Double, sigma: Double) -> Double {
        let beta = beta(sigma: sigma, greatCircle: greatCircle)
        return -abs(route - greatCircle) / beta - log(beta)
    }

    /// Where the off-road state's emission equals a road candidate's, metres: `offRoadDistance`,
    /// or 3 σ when that is further (a fix that noisy is still plausibly on a road 3 σ away).
    @inline(__always)
    func offRoadCrossover(sigma: Double) -> Double { max(offRoadDistance.meters, 3 * sigma) }

    /// The off-road state's emission: a road candidate's at `offRoadCrossover(sigma:)`.
    @inline(__always)
    func logOffRoadEmission(sigma: Double) -> Double {
        logEmission(distance: offRoadCrossover(sigma: sigma), sigma: sigma)
    }

    /// The furthest a road can lie from a fix and still be its best state, metres: √(x² + 2σ²
    /// ln(1/p)) for the crossover x and the entry probability p. A road state's transition is at
    /// most the off-road state's from the same parent divided by p (entering off-road costs p,
    /// leaving it costs more than staying), so a road further than this loses to the off-road
    /// state on emission alone. The candidate radius reaches at least this far: a fix between
    /// the crossover and here is on its road when the chain says so, not unmatched for want of
    /// a candidate (car, σ 10 m: 70.6 m, where 4 σ alone gave 50 m and the off-road state
    /// only won beyond 60 m).
    @inline(__always)
    func offRoadReach(sigma: Double) -> Double {
        let x = offRoadCrossover(sigma: sigma)
        return (x * x + 2 * sigma * sigma * -log(offRoadEntryProbability)).squareRoot()
    }

    /// Checks ranges; the presets pass.
    /// - Throws: `MatchError.invalidParameters` naming the first value out of range.
    public func validate() throws(MatchError) {
        func need(_ ok: Bool, _ what: String) throws(MatchError) {
            if !ok { throw MatchError(.invalidParameters, what) }
        }
        func positive(_ d: Distance) -> Bool { d.meters > 0 && d.meters.isFinite }
        try need(positive(sigmaFloor), "sigmaFloor must be positive, got \(sigmaFloor)")
        try need(positive(sigmaCeiling) && sigmaCeiling >= sigmaFloor, "sigmaCeiling must be ≥ sigmaFloor, got \(sigmaCeiling)")
        try need(positive(defaultAccuracy), "defaultAccuracy must be positive, got \(defaultAccuracy)")
        try need(positive(beta), "beta must be positive, got \(beta)")
        try need(radiusSigmas > 0 && radiusSigmas.isFinite, "radiusSigmas must be positive, got \(radiusSigmas)")
        try need(positive(minimumRadius) && maximumRadius >= minimumRadius && maximumRadius.meters <= 5000,
                 "radii must satisfy 0 < minimumRadius ≤ maximumRadius ≤ 5000 m")
        try need((1...64).contains(maximumCandidates), "maximumCandidates must be in 1…64, got \(maximumCandidates)")
        try need(maximumSpeed.metersPerSecond > 0 && maximumSpeed.metersPerSecond <= 300,
                 "maximumSpeed must be in (0, 300] m/s, got \(maximumSpeed)")
        try need(positive(maximumJump) && maximumJump.meters <= 100_000, "maximumJump must be in (0, 100 km], got \(maximumJump)")
        try need(maximumGap > .zero, "maximumGap must be positive, got \(maximumGap)")
        try need([minimumStep, backwardTolerance, uTurnPenalty].allSatisfy { $0.meters >= 0 } && positive(offRoadDistance),
                 "distances must not be negative")
        try need((0..<1).contains(offRoadEntryProbability) && offRoadEntryProbability > 0
                 && (0..<1).contains(offRoadExitProbability) && offRoadExitProbability > 0
                 && (0..<1).contains(offRoadRejoinProbability) && offRoadRejoinProbability > 0,
                 "off-road probabilities must be in (0, 1)")
        try need(beamWidth > 0, "beamWidth must be positive, got \(beamWidth)")
        try need((1...100_000).contains(maximumLag), "maximumLag must be in 1…100000, got \(maximumLag)")
    }
}

/// The one error type of MapMatching (STYLE.md §3.7).
public typealias MatchError = CodedError<MapMatchingErrorDomain>

/// Names MatchError's codes apart from other modules' (`CodedError`); it has no values.
public enum MapMatchingErrorDomain {}

extension ErrorCode where Domain == MatchError {
    /// `MatchingParameters.validate()` failed.
    public static var invalidParameters: Self { Self("invalid parameters") }
    /// The graph was built for another profile than the mode needs.
    public static var wrongProfile: Self { Self("wrong profile") }
}
