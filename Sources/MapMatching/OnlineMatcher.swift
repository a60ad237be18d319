public import GeoCore
import RoadNetwork

/// What the online matcher publishes for one fix, at once.
public struct LiveMatch: Hashable, Sendable {
    /// The fix's position in the stream.
    public var index: Int
    /// The best matched position now (`subMatching` is not yet known: -1), or nil when the fix
    /// is off-road, far from every road or invalid.
    public var position: RoadPosition?
    /// The normalised filter probability of the published state, in [0, 1].
    public var confidence: Double
    /// The normalised filter probability of the off-road state, in [0, 1] (1 when no road is
    /// within the candidate radius).
    public var offRoadProbability: Double
    /// Whether the best path now disagrees with what was published for the previous routed fix.
    public var revised: Bool
    /// The road's name (empty when unnamed), OSM way id and the profile's speed on it.
    public var roadName: String?
    public var wayID: Int64?
    public var roadSpeed: Speed?
}

/// Matches a live stream of fixes: each fix gets an answer at once from the newest step of a
/// ``MatchingSession`` (the forward Viterbi filter, with the restart of its live recursion:
/// see `MatchingSession.score(_:after:sigma:)`), with cost and memory bounded per fix; the
/// session's committed answers (its convergence rule) are the final ones and equal
/// ``MapMatcher/match(_:)`` on the same fixes.
///
/// A fix within `minimumStep` of the last routed fix is not routed (the session projects it);
/// its emission on the routed fix's states is added to their live scores (the car is taken
/// not to have left them: `MatchingSession.observeLive(_:sigma:)`), so twenty fixes at a light
/// count as twenty observations of where the car stands. (Replacing the routed fix's emission
/// by the newest one's instead left the live answer on a road 19 m away for a whole stop on
/// Kubička drive 16; adding them raised the dev drives' live share 0.9787 → 0.9834.)
public struct OnlineMatcher: Sendable {
    private var session: MatchingSession
    /// The routed fix (its index) and the state published for it last.
    private var published: (index: Int, state: Int)?
    /// The last state published with a probability of at least `branchConfidence`.
    private var certain: Certain?
    private typealias Certain = (index: Int, state: Int, edge: UInt32, fraction: Double)
    private var count = 0

    public init(matcher: MapMatcher) {
        session = matcher.session()
        session.tracksLive = true
    }

    /// Feeds one fix and returns what is known about it now.
    /// - Complexity: that of `MatchingSession.append(_:)`.
    public mutating func match(_ fix: TracePoint) -> LiveMatch {
        let index = count
        count += 1
        let disposition = session.feed(fix)
        let m = session.matcher
        guard disposition != .unmatched, let newest = session.steps.last else {
            return LiveMatch(index: index, position: nil, confidence: 0, offRoadProbability: 1, revised: false)
        }
        // A fix not routed has been added to the newest step's live scores by the session.
        let scores = newest.liveScores
        var best = 0
        for k in scores.indices where scores[k] > scores[best] { best = k }
        if session.steps.count == 1, let anchor = session.anchorState { best = anchor }
        let probabilities = MatchingSession.probabilities(of: scores)
        let offRoad = probabilities[newest.offRoad]
        let hold = best < newest.offRoad && probabilities[best] < Self.branchConfidence ? heldAnswer(newest, probabilities, fix: fix) : nil
        // The state shown: the newest step's best, or the certain state the hold descends from.
        let shown = hold.map { (index: $0.index, state: $0.state) } ?? (newest.index, best)
        var revised = false
        if let published, let ancestor = ancestor(of: shown, at: published.index) { revised = ancestor != published.state }
        published = shown
        if let hold {
            let edge = RoadGraph.EdgeID(hold.edge)
            return LiveMatch(
                index: index,
                position: RoadPosition(coordinate: hold.coordinate, distance: .meters(hold.distance),
                                       edge: edge, fraction: hold.fraction, nodes: hold.nodes, subMatching: -1),
                confidence: hold.confidence, offRoadProbability: offRoad, revised: revised,
                roadName: m.graph.name(of: edge), wayID: m.graph.wayID(of: edge), roadSpeed: m.graph.speed(of: edge))
        }
        guard best < newest.offRoad else {
            certain = nil
            return LiveMatch(index: index, position: nil, confidence: probabilities[best], offRoadProbability: offRoad, revised: revised)
        }
        let cand = newest.candidates[best]
        let (fraction, distance) = disposition == .routed ? (cand.position.fraction, cand.distance) : session.liveProjections[best]
        if probabilities[best] >= Self.branchConfidence {
            certain = (newest.index, best, cand.position.edge, fraction)
        }
        let (coordinate, nodes) = m.position(on: cand.position.edge, fraction: fraction)
        let edge = RoadGraph.EdgeID(cand.position.edge)
        return LiveMatch(
            index: index,
            position: RoadPosition(coordinate: coordinate, distance: .meters(distance), edge: edge, fraction: fraction,
                                   nodes: nodes, subMatching: -1),
            confidence: probabilities[best], offRoadProbability: offRoad, revised: revised,
            roadName: m.graph.name(of: edge), wayID: m.graph.wayID(of: edge), roadSpeed: m.graph.speed(of: edge))
    }

    /// Below this probability the best state is not published when all plausible states
    /// descend from the last state published at or above it (see `heldAnswer`). The dev
    /// Kubička drives' live share moves by under 0.001 between 0.7 and 0.9.
    static let branchConfidence = 0.8
    /// A state at least this probable is a hypothesis the held answer must agree with.
    static let plausible = 0.05

    /// The state of the step of fix `fixIndex` that `state` (of a step) descends from in the live
    /// recursion (-1 where its chain starts or restarts after that step), or nil when that step is gone.
    private func ancestor(of shown: (index: Int, state: Int), at fixIndex: Int) -> Int? {
        guard let end = session.steps.lastIndex(where: { $0.index == shown.index }) else { return nil }
        var i = end, state = shown.state
        while session.steps[i].index > fixIndex {
            guard i > 0 else { return nil }
            let parent = Int(session.steps[i].liveParents.count > state ? session.steps[i].liveParents[state] : -1)
            guard parent >= 0 else { return -1 }
            state = parent
            i -= 1
        }
        return session.steps[i].index == fixIndex ? state : nil
    }

    /// Whether all of `states` (of the newest step) descend from the certain state `c` in the
    /// live recursion: from `c` itself while its step is kept, else from one state on `c`'s edge
    /// at or past it at the oldest kept step (the session drops steps it has committed).
    private func descend(_ states: [Int], of newest: MatchingSession.Step, from c: Certain) -> Bool {
        guard let oldest = session.steps.first else { return false }
        let at = max(c.index, oldest.index)
        var common: Int?
        for k in states {
            guard let a = ancestor(of: (newest.index, k), at: at), a >= 0, common == nil || common == a else { return false }
            common = a
        }
        guard let a = common else { return false }
        if at == c.index { return a == c.state }
        guard a < oldest.offRoad else { return false }
        let position = oldest.candidates[a].position
        return position.edge == c.edge && position.fraction >= c.fraction
    }

    /// The answer while the branch is undecided: when the best state is below
    /// `branchConfidence`, the off-road state is not plausible, every plausible state descends
    /// from the last certain state, and their paths all run on along its edge to its end or to the
    /// nearest of them on it, that point is published — the farthest point every hypothesis
    /// agrees the car passed, the convergence point of online Viterbi decoding (Bloit & Rodet
    /// 2008, "Short-time Viterbi for online HMM decoding"; Goh et al. 2012, "Online map-matching
    /// based on hidden Markov model for real-time traffic sensing applications") — as long as it
    /// lies within the candidate radius of the fix, so it is a place the fix could have come
    /// from. Its confidence is the plausible states' summed probability. On the dev Kubička
    /// drives it took the live share 0.9834 → 0.9880 and drive 16 0.8375 → 0.8598 (a car at a
    /// fork between close roads no longer shows the wrong branch for ten seconds).
    private func heldAnswer(_ newest: MatchingSession.Step, _ probabilities: [Double], fix: TracePoint)
        -> (index: Int, state: Int, edge: UInt32, fraction: Double, coordinate: Coordinate, nodes: (Int64, Int64),
            distance: Double, confidence: Double)? {
        guard let c = certain, probabilities[newest.offRoad] < Self.plausible else { return nil }
        let plausible = (0..<newest.offRoad).filter { probabilities[$0] >= Self.plausible }
        var held = 1.0
        for k in plausible where newest.candidates[k].position.edge == c.edge {
            let fraction = newest.candidates[k].position.fraction
            guard fraction >= c.fraction else { return nil }
            held = min(held, fraction)
        }
        held = max(held, c.fraction)
        let (coordinate, nodes) = session.matcher.position(on: c.edge, fraction: held)
        let distance = LocalFrame.distance(coordinate, fix.coordinate)
        guard distance <= newest.radius, descend(plausible, of: newest, from: c) else { return nil }
        let mass = plausible.reduce(0) { $0 + probabilities[$1] }
        return (c.index, c.state, c.edge, held, coordinate, nodes, distance, mass)
    }

    /// The committed answers so far (see `MatchingSession.takeCommitted()`).
    public mutating func takeCommitted() -> (points: [MatchedPoint], pieces: [SubMatching]) { session.takeCommitted() }

    /// Commits the rest (end of the stream).
    public mutating func finish() { session.finish() }

    /// The session's broken invariants (`MatchingSession.invariantViolations()`).
    package func invariantViolations() -> [String] { session.invariantViolations() }
}

/// The online matcher as Positioning's ``LivePositionMatcher``: one ``OnlineMatcher`` per mode
/// the app supplies a graph for, fed in arrival order; committed answers are dropped as they
/// come (the live position is the product), so memory stays bounded on an endless stream.
public actor LiveMapMatcher: LivePositionMatcher {
    private var car: OnlineMatcher?
    private var pedestrian: OnlineMatcher?
    /// What the matcher published for the newest fix, with its off-road probability, road name,
    /// way id and speed.
    public private(set) var latest: LiveMatch?

    /// - Parameters: matchers for the modes the app supports (a car graph, a foot graph); a
    ///   mode without one matches nothing.
    public init(car: MapMatcher?, pedestrian: MapMatcher? = nil) {
        self.car = car.map(OnlineMatcher.init(matcher:))
        self.pedestrian = pedestrian.map(OnlineMatcher.init(matcher:))
    }

    /// The matched position for the newest fix, with the filter probability as confidence, or
    /// nil when the fix is off-road, far from every road, or the mode has no graph.
    public func match(_ location: Location, mode: MapMatchMode) -> MatchedPosition? {
        let live: LiveMatch
        switch mode {
        case .car:
            guard var m = car else { return nil }
            live = m.match(TracePoint(location))
            _ = m.takeCommitted()
            car = m
        case .pedestrian:
            guard var m = pedestrian else { return nil }
            live = m.match(TracePoint(location))
            _ = m.takeCommitted()
            pedestrian = m
        }
        latest = live
        guard let p = live.position else { return nil }
        var matched = location
        matched.coordinate = p.coordinate
        return MatchedPosition(location: matched, confidence: live.confidence)
    }
}
