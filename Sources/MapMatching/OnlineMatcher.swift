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
        var revised = false
        if let published {
            if published.index == newest.index {
                revised = best != published.state
            } else if disposition == .routed, session.steps.count >= 2, session.steps[session.steps.count - 2].index == published.index {
                revised = Int(newest.liveParents[best]) != published.state
            }
        }
        published = (newest.index, best)
        let offRoad = probabilities[newest.offRoad]
        guard best < newest.offRoad else {
            return LiveMatch(index: index, position: nil, confidence: probabilities[best], offRoadProbability: offRoad, revised: revised)
        }
        let cand = newest.candidates[best]
        let (fraction, distance) = disposition == .routed ? (cand.position.fraction, cand.distance) : session.liveProjections[best]
        let (coordinate, nodes) = m.position(on: cand.position.edge, fraction: fraction)
        let edge = RoadGraph.EdgeID(cand.position.edge)
        return LiveMatch(
            index: index,
            position: RoadPosition(coordinate: coordinate, distance: .meters(distance), edge: edge, fraction: fraction,
                                   nodes: nodes, subMatching: -1),
            confidence: probabilities[best], offRoadProbability: offRoad, revised: revised,
            roadName: m.graph.name(of: edge), wayID: m.graph.wayID(of: edge), roadSpeed: m.graph.speed(of: edge))
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
