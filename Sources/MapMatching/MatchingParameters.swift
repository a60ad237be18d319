public import GeoCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hidden Markov model's parameters (Newson & Krumm, "Hidden Markov Map Matching Through
/// Noise and Sparseness", ACM SIGSPATIAL GIS 2009, §4). Every value has a physical meaning; the
/// presets ``car`` and ``pedestrian`` are the documented defaults.
public struct MatchingParameters: Hashable, Sendable {
    /// The least GPS error standard deviation σ, metres: σ = max(floor, the fix's 68 %
    /// horizontal accuracy). Newson & Krumm estimated 4.07 m from their drive.
    public var sigmaFloor: Double
    /// The 68 % accuracy assumed for fixes that report none (GPX without `hdop`, CSV), metres.
    public var defaultAccuracy: Double
    /// The largest σ used, metres: a fix claiming a worse accuracy is treated as this good,
    /// which bounds the candidate search (absurd accuracies cannot make it unbounded).
    public var sigmaCeiling: Double
    /// Newson & Krumm's β, metres: the scale of the exponential transition probability on
    /// |route distance − great-circle distance| (their 1 Hz estimate is about 3 m).
    public var beta: Double
    /// Candidates lie within `radiusSigmas` × σ of the fix, but at least `minimumRadius` and at
    /// most `maximumRadius` metres.
    public var radiusSigmas: Double
    public var minimumRadius: Double
    public var maximumRadius: Double
    /// Road segments kept per fix, nearest first; each gives one candidate per allowed direction.
    public var maximumCandidates: Int
    /// The fastest plausible travel, metres per second: a route between two candidates may be
    /// at most (seconds between the fixes) × this + both candidates' radii long.
    public var maximumSpeed: Double
    /// A fix closer than this (metres) to the last routed fix is projected onto that fix's
    /// road instead of being routed (Valhalla's `interpolation_distance`; Newson & Krumm drop
    /// fixes within 2σ): standing still with jitter costs nothing and cannot invent loops.
    public var minimumStep: Double
    /// Fixes further apart in time than this (seconds) start a new sub-matching.
    public var maximumGap: Double
    /// Fixes further apart than this (metres) start a new sub-matching (Newson & Krumm break
    /// at 2 km-scale gaps; Valhalla's `breakage_distance` is 2000 m).
    public var maximumJump: Double
    /// Backward movement along the same directed edge tolerated as GPS noise, metres (a car
    /// cannot reverse, but its fixes jitter at a stop); it counts as a negative road distance,
    /// so the transition pays for it.
    public var backwardTolerance: Double
    /// Metres added to the road distance for each U-turn where the road graph has none (mid-edge,
    /// or at a junction; dead ends and barriers allow them freely): drivers turn in driveways
    /// and car parks the graph does not hold, rarely; walkers turn back freely, but a small
    /// penalty keeps GPS jitter from reading as turning.
    public var uTurnPenalty: Double
    /// The off-road state: its emission is a road candidate's at this distance, metres (so it
    /// wins where the nearest road is further than that), ...
    public var offRoadDistance: Double
    /// ... the probability per fix of leaving the road network (into a car park, a square) ...
    public var offRoadEntryProbability: Double
    /// ... and of coming back onto it from off-road.
    public var offRoadExitProbability: Double
    /// Longest run of undecided fixes kept: when the back-pointers have not converged after
    /// this many routed fixes, the oldest is committed to the currently best path (bounded
    /// memory; only reached on very long ambiguous stretches).
    public var maximumLag: Int

    public init(sigmaFloor: Double, defaultAccuracy: Double, sigmaCeiling: Double, beta: Double, radiusSigmas: Double,
                minimumRadius: Double, maximumRadius: Double, maximumCandidates: Int, maximumSpeed: Double,
                minimumStep: Double, maximumGap: Double, maximumJump: Double, backwardTolerance: Double,
                uTurnPenalty: Double, offRoadDistance: Double, offRoadEntryProbability: Double,
                offRoadExitProbability: Double, maximumLag: Int) {
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
        self.maximumLag = maximumLag
    }

    /// Driving: σ ≥ 4.07 m (Newson & Krumm), 10 m assumed without accuracy (consumer GPS in
    /// the open), β 3 m, candidates within 4σ (50–200 m), 8 segments, 250 km/h, 10 m steps,
    /// breaks after 120 s or 2 km, U-turns off the graph at 50 m; off-road beyond 60 m.
    public static let car = MatchingParameters(
        sigmaFloor: 4.07, defaultAccuracy: 10, sigmaCeiling: 50, beta: 3, radiusSigmas: 4,
        minimumRadius: 50, maximumRadius: 200, maximumCandidates: 8, maximumSpeed: 70,
        minimumStep: 10, maximumGap: 120, maximumJump: 2000, backwardTolerance: 20,
        uTurnPenalty: 50, offRoadDistance: 60, offRoadEntryProbability: 1e-3,
        offRoadExitProbability: 0.1, maximumLag: 500)

    /// Walking: σ ≥ 8 m (phones among buildings), U-turns anywhere at 20 m, 4 m steps, 5 m/s at most,
    /// off-road (squares, parks, car parks) likely: it wins beyond 25 m from a path.
    public static let pedestrian = MatchingParameters(
        sigmaFloor: 8, defaultAccuracy: 10, sigmaCeiling: 50, beta: 3, radiusSigmas: 4,
        minimumRadius: 40, maximumRadius: 200, maximumCandidates: 8, maximumSpeed: 5,
        minimumStep: 4, maximumGap: 300, maximumJump: 1000, backwardTolerance: 8,
        uTurnPenalty: 20, offRoadDistance: 25, offRoadEntryProbability: 0.05,
        offRoadExitProbability: 0.2, maximumLag: 500)

    /// σ for a fix of this 68 % accuracy (nil, negative or NaN: not reported), metres.
    @inline(__always)
    func sigma(accuracy: Double?) -> Double {
        guard let a = accuracy, a.isFinite, a >= 0 else { return max(sigmaFloor, defaultAccuracy) }
        return min(sigmaCeiling, max(sigmaFloor, a))
    }

    /// The candidate radius for σ, metres.
    @inline(__always)
    func radius(sigma: Double) -> Double { min(maximumRadius, max(minimumRadius, radiusSigmas * sigma)) }

    /// log N(distance; 0, σ): the Gaussian emission probability density (Newson & Krumm eq. 1).
    @inline(__always)
    func logEmission(distance: Double, sigma: Double) -> Double {
        let z = distance / sigma
        return -0.5 * z * z - log(sigma * 2.5066282746310002)
    }

    /// log of (1/β) exp(−|route − great-circle| / β) (Newson & Krumm eq. 2).
    @inline(__always)
    func logTransition(route: Double, greatCircle: Double) -> Double {
        -abs(route - greatCircle) / beta - log(beta)
    }

    /// Checks ranges; the presets pass.
    /// - Throws: `MatchError.invalidParameters` naming the first value out of range.
    public func validate() throws(MatchError) {
        func need(_ ok: Bool, _ what: String) throws(MatchError) {
            if !ok { throw MatchError(.invalidParameters, what) }
        }
        try need(sigmaFloor > 0 && sigmaFloor.isFinite, "sigmaFloor must be positive, got \(sigmaFloor)")
        try need(sigmaCeiling >= sigmaFloor && sigmaCeiling.isFinite, "sigmaCeiling must be ≥ sigmaFloor, got \(sigmaCeiling)")
        try need(defaultAccuracy > 0 && defaultAccuracy.isFinite, "defaultAccuracy must be positive, got \(defaultAccuracy)")
        try need(beta > 0 && beta.isFinite, "beta must be positive, got \(beta)")
        try need(minimumRadius > 0 && maximumRadius >= minimumRadius && maximumRadius <= 5000,
                 "radii must satisfy 0 < minimumRadius ≤ maximumRadius ≤ 5000 m")
        try need((1...64).contains(maximumCandidates), "maximumCandidates must be in 1…64, got \(maximumCandidates)")
        try need(maximumSpeed > 0 && maximumSpeed <= 300, "maximumSpeed must be in (0, 300] m/s, got \(maximumSpeed)")
        try need(maximumJump > 0 && maximumJump <= 100_000, "maximumJump must be in (0, 100 km], got \(maximumJump)")
        try need(maximumGap > 0 && maximumGap.isFinite, "maximumGap must be positive, got \(maximumGap)")
        try need(minimumStep >= 0 && backwardTolerance >= 0 && offRoadDistance > 0 && uTurnPenalty >= 0, "distances must not be negative")
        try need((0..<1).contains(offRoadEntryProbability) && offRoadEntryProbability > 0
                 && (0..<1).contains(offRoadExitProbability) && offRoadExitProbability > 0,
                 "off-road probabilities must be in (0, 1)")
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
