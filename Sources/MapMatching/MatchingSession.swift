import Platform
import GeoCore
import RoadNetwork

/// One trace being matched, fix by fix, in bounded memory: the Viterbi recursion runs as fixes
/// arrive and a fix's answer is *committed* as soon as it can no longer change.
///
/// **Commit rule (convergence of back-pointers).** After each routed fix, the back-pointers of
/// every state still possible at the newest fix are followed back; at the newest fix where they
/// all meet, the path up to there is the same whichever state wins later, so it is final
/// (Šrámek et al. 2007's "fixed point"; Barefoot's online matcher). When they have not met for
/// `maximumLag` routed fixes, the oldest undecided fix is committed to the currently best path
/// and states that disagree with it are dropped, so memory stays bounded on any input.
/// ``MapMatcher/match(_:)`` is this session fed every fix and finished, so a streamed answer
/// equals the whole-trace one.
///
/// **Fixes that are not routed.** A fix within `minimumStep` of the last routed fix is projected
/// onto that fix's road; one with no road within its candidate radius, or with a coordinate that
/// is not finite, is unmatched and skipped (the path continues over it). A time gap over
/// `maximumGap`, a jump over `maximumJump` or a time going backwards ends the sub-matching and
/// starts a new one at that fix. Fixes without times are bounded by distance only.
public struct MatchingSession: Sendable {
    let matcher: MapMatcher
    var search = TransitionSearch()
    var targets: [EdgePosition] = []
    /// `candidates(near:radius:sigma:)`'s lists of segments and nodes, kept between fixes so
    /// that a fix grows none (their growth was 3 % of `geo match`'s instructions).
    var chosenSegments: [UInt32] = [], skippedSegments: [UInt32] = [], seenNodes: [UInt32] = [], frontierNodes: [UInt32] = []
    /// Whether the live recursion runs (the online matcher's answers); the committed path
    /// does not need it.
    var tracksLive = false
    /// The newest fix not routed: its position and distance, metres, on each candidate's edge
    /// of the newest step (`observeLive(_:sigma:)`).
    var liveProjections: [(fraction: Double, distance: Double)] = []

    /// Routed fixes not yet dropped; `steps[0]` is the decided anchor when `anchorState` is set.
    var steps: [Step] = []
    var anchorState: Int?
    /// Time of the last fix seen, seconds since 1970, for gaps and times going backwards.
    var lastFixTime: Double?
    var nextIndex = 0

    // Output not yet taken.
    var committedPoints: [MatchedPoint] = []
    var finishedPieces: [SubMatching] = []
    /// The open sub-matching's piece since the last `takeCommitted()`.
    var openPiece: SubMatching?
    var openHasNodes = false
    var lastPathEdge: UInt32?
    /// The open path's last edge, whose OSM nodes are held back until the next edge: a U-turn
    /// mid-edge may still take them back.
    var pendingEdge: UInt32?
    /// Whether `pendingEdge` is the sub-matching's first edge.
    var pendingIsFirst = false
    /// The last OSM node id put into the open sub-matching.
    var lastNode: Int64?
    var subMatchingCount = 0

    init(matcher: MapMatcher) { self.matcher = matcher }

    struct Candidate {
        var position: EdgePosition
        var coordinate: Coordinate
        var distance: Double
        var logEmission: Double
    }

    struct Follower {
        var index: Int
        /// nil: unmatched (invalid coordinate, no road near).
        var coordinate: Coordinate?
    }

    struct Step {
        var index: Int
        var coordinate: Coordinate
        var time: Double?
        var radius: Double
        /// The fix's GPS error standard deviation, metres.
        var sigma: Double
        var candidates: [Candidate]
        /// log Viterbi probability per state, the off-road state last; the maximum is 0.
        var scores: [Double]
        /// Per state: the state at the previous step it came from, or -1 where a chain starts.
        var parents: [Int32]
        /// The live recursion's log probability per state (maximum 0) and parents (`restarted`:
        /// re-seeded at this step); see `score(_:after:sigma:)`. Only the live answer reads them.
        var liveScores: [Double] = []
        var liveParents: [Int32] = []
        var followers: [Follower] = []
        /// Where the off-road state's chain left the road (nil: it started off-road).
        var offRoadOrigin: Origin?
        /// The candidates whose best parent is the off-road state by an unrouted re-entry
        /// (`offRoadRejoinProbability`): their path starts afresh (usually empty).
        var rejoined: [Int32] = []
        var offRoad: Int { candidates.count }
    }

    /// A road position a chain was at, with its fix's time and candidate radius: the start
    /// of a route search.
    struct Origin {
        var position: EdgePosition
        var coordinate: Coordinate
        var time: Double?
        var radius: Double
    }

    // MARK: Feeding

    /// Matches one more fix (fixes in trace order).
    /// - Complexity: O(c · k log k) for c candidates and k edges within the transition bound;
    ///   O(maximumLag · c) for the commit check.
    public mutating func append(_ fix: TracePoint) {
        feed(fix)
    }

    /// What became of a fix fed to the session.
    enum Disposition { case routed, projected, unmatched }

    /// `append(_:)`, telling what became of the fix (for the online matcher).
    @discardableResult
    mutating func feed(_ fix: TracePoint) -> Disposition {
        let i = nextIndex
        nextIndex += 1
        let p = matcher.parameters
        let c = fix.coordinate
        guard c.latitude.isFinite, c.longitude.isFinite, abs(c.latitude) <= 90, abs(c.longitude) <= 360 else {
            attachFollower(Follower(index: i, coordinate: nil))
            return .unmatched
        }
        let t = fix.time.map { $0.timeIntervalSince1970 }
        if let t, let last = lastFixTime, t < last || t - last > p.maximumGap / .seconds(1) { flush() }
        if t != nil { lastFixTime = t }
        if let last = steps.last, LocalFrame.distance(last.coordinate, c) < p.minimumStep.meters {
            attachFollower(Follower(index: i, coordinate: c))
            if tracksLive { observeLive(c, sigma: p.sigma(accuracy: fix.horizontalAccuracy?.meters)) }
            return .projected
        }
        let sigma = p.sigma(accuracy: fix.horizontalAccuracy?.meters)
        let radius = p.radius(sigma: sigma)
        let candidates = self.candidates(near: c, radius: radius, sigma: sigma)
        guard !candidates.isEmpty else {
            attachFollower(Follower(index: i, coordinate: nil))
            return .unmatched
        }
        if let last = steps.last, LocalFrame.distance(last.coordinate, c) > p.maximumJump.meters { flush() }

        var step = Step(index: i, coordinate: c, time: t, radius: radius, sigma: sigma, candidates: candidates, scores: [], parents: [])
        if let prev = steps.last, score(&step, after: prev, sigma: sigma) {
        } else {
            // No road path explains this fix after the previous one (Newson & Krumm's break):
            // the chain so far is committed and a new one starts here.
            if !steps.isEmpty { flush() }
            startChain(&step, sigma: sigma)
        }
        let best = step.scores.max() ?? 0
        for k in step.scores.indices { step.scores[k] -= best }
        let liveBest = step.liveScores.max() ?? 0
        for k in step.liveScores.indices { step.liveScores[k] -= liveBest }
        steps.append(step)
        commitDecided()
        return .routed
    }

    /// A fix that is not routed is still an observation for the live recursion: its emission
    /// on each state of the newest step (its projection onto the candidate's edge; the car is
    /// taken not to have left it) is added to `liveScores`, and the projections are kept in
    /// `liveProjections` for the live answer's position. So a car standing for twenty seconds
    /// with its fixes on one road moves the live answer there, whatever the routed fix before
    /// the stop favoured (Kubička drive 16 stood 17 s with its fixes 0.2 m from its road and
    /// the live answer on a road 19 m away, when each fix only replaced the routed fix's
    /// emission). The committed path does not read these scores: committed answers unchanged.
    mutating func observeLive(_ c: Coordinate, sigma: Double) {
        let p = matcher.parameters
        var step = steps.removeLast()
        liveProjections.removeAll(keepingCapacity: true)
        for k in step.candidates.indices {
            let projection = matcher.project(c, onto: step.candidates[k].position.edge)
            liveProjections.append(projection)
            step.liveScores[k] += p.logEmission(distance: projection.distance, sigma: sigma)
        }
        step.liveScores[step.offRoad] += p.logOffRoadEmission(sigma: sigma)
        let best = step.liveScores.max() ?? 0
        for k in step.liveScores.indices { step.liveScores[k] -= best }
        steps.append(step)
    }

    /// The candidates of a fix: the nearest point of each road segment within `radius`, one per
    /// allowed direction, nearest first, at most `maximumCandidates` segments. On a road drawn
    /// as many short segments, the segments beyond the nearest piece's neighbours all have
    /// their nearest point at a node further along the road, and would fill every slot with
    /// positions the road's nearer candidates already stand for: a segment whose nearest point
    /// is an end node is skipped when that node is the end of a segment already looked at but
    /// no candidate stands there (the ends of a candidate's segment when it lies inside it, its
    /// node when it lies on one).
    mutating func candidates(near c: Coordinate, radius: Double, sigma: Double) -> [Candidate] {
        let p = matcher.parameters
        let g = matcher.graph
        var candidates: [Candidate] = []
        // Two directions of each chosen segment at most.
        candidates.reserveCapacity(2 * p.maximumCandidates)
        /// A kept list, emptied, its storage moved out of `self` (so that appending copies nothing).
        func take(_ list: inout [UInt32]) -> [UInt32] {
            var taken: [UInt32] = []
            swap(&taken, &list)
            taken.removeAll(keepingCapacity: true)
            return taken
        }
        var chosen = take(&chosenSegments), skipped = take(&skippedSegments), seen = take(&seenNodes), frontier = take(&frontierNodes)
        defer { (chosenSegments, skippedSegments, seenNodes, frontierNodes) = (chosen, skipped, seen, frontier) }
        for snap in matcher.index.edges(near: c, within: .meters(radius)) {
            let segment = g.segment(of: snap.edge).rawValue
            if skipped.contains(segment) { continue }
            if !chosen.contains(segment) {
                let ends = (g.source(of: snap.edge).rawValue, g.target(of: snap.edge).rawValue)
                let end: UInt32? = snap.fraction <= 1e-9 ? ends.0 : (snap.fraction >= 1 - 1e-9 ? ends.1 : nil)
                seen.append(ends.0)
                seen.append(ends.1)
                if let end {
                    if !frontier.contains(end), seen.dropLast(2).contains(end) {
                        skipped.append(segment)
                        continue
                    }
                    frontier.append(end)
                } else {
                    frontier.append(ends.0)
                    frontier.append(ends.1)
                }
                if chosen.count == p.maximumCandidates { break }
                chosen.append(segment)
            }
            let d = snap.distance.meters
            candidates.append(Candidate(position: EdgePosition(edge: snap.edge.rawValue, fraction: snap.fraction),
                                        coordinate: snap.coordinate, distance: d,
                                        logEmission: p.logEmission(distance: d, sigma: sigma)))
        }
        return candidates
    }

    /// Initial scores: emissions, the off-road state with its entry probability.
    func startChain(_ step: inout Step, sigma: Double) {
        let p = matcher.parameters
        let n = step.candidates.count
        step.scores = step.candidates.map(\.logEmission) + [log(p.offRoadEntryProbability) + p.logOffRoadEmission(sigma: sigma)]
        step.parents = [Int32](repeating: -1, count: n + 1)
        step.offRoadOrigin = nil
        if tracksLive {
            step.liveScores = step.scores
            step.liveParents = step.parents
        }
    }

    /// `liveParents`' mark of a state re-seeded by the live recursion's restart.
    static let restarted: Int32 = -2

    /// The Viterbi recursion from `prev` into `step`; false when no road state is reachable.
    /// Road to road: the exponential transition on |road distance − great-circle distance|;
    /// road to off-road: the entry probability; off-road to road: the exit probability times
    /// the road transition from where the chain left the road (so the off-road state is no
    /// short cut between roads the network does not connect); off-road to off-road: 1 − exit.
    ///
    /// **The live recursion (bounded regret).** Alongside, the same recursion runs with one
    /// more transition: from the previous step's best live state into any road candidate at
    /// the bounded re-entry cost, `offRoadRejoinProbability` times the transition density
    /// (18.4 nats for the car). So no road state is ever more than that cost (plus its
    /// emission) below the best, and a chain re-seeded at the nearest roads becomes the live
    /// answer as soon as the fixes since the re-seed are together e^18.4 times likelier on it
    /// than on the chain with the best history: a chain that fitted the fixes well for a
    /// minute (a parallel road the GPS sat on) cannot hold the live answer for long against a
    /// much closer road once it fits badly, however far the true chain fell behind. The
    /// committed path ignores it (in the whole-trace model such a restart would trade a
    /// minute of the true road for a break, which the offline score forbids), so only the
    /// live answer changes, and `revised` reports the jump. The restart re-seeds only roads
    /// some road path from the previous fix explains (a chain the filter holds, far behind);
    /// a road no route reaches only while the off-road state is the best live state, as the
    /// rejoin does: re-seeding onto unconnected roads too made the live answer follow a road
    /// the fixes were biased towards for 90 s of Kubička drive 16 while the connected true
    /// road was 20 m away (live on route 0.811 → 0.749; with the rule as stated, 0.824).
    mutating func score(_ step: inout Step, after prev: Step, sigma: Double) -> Bool {
        let p = matcher.parameters
        let n = step.candidates.count
        var scores = [Double](repeating: -.infinity, count: n + 1)
        var parents = [Int32](repeating: -1, count: n + 1)
        let tracking = tracksLive
        var live = scores, liveParents = parents
        // Into the off-road state, too, the transition is a density over the next position
        // (1/β, as a road transition's), so the road states' 1/β is no handicap against it.
        let gc = LocalFrame.distance(prev.coordinate, step.coordinate)
        let beta = p.beta(sigma: sigma, greatCircle: gc)
        let logDensity = -log(beta)
        // `p.logTransition(route:greatCircle: gc, sigma: sigma)` with this step's β and its
        // logarithm taken once, not per source and target (x + (−y) is x − y, bit for bit).
        @inline(__always) func logTransition(_ route: Double) -> Double { -abs(route - gc) / beta + logDensity }
        let logEnter = log(p.offRoadEntryProbability) + logDensity, logExit = log(p.offRoadExitProbability)
        let logStay = log(1 - p.offRoadExitProbability) + logDensity
        targets.removeAll(keepingCapacity: true)
        for cand in step.candidates { targets.append(cand.position) }
        let limit = transitionLimit(fromTime: prev.time, radius: prev.radius, toTime: step.time, radius: step.radius, greatCircle: gc)
        let area = TargetArea(center: step.coordinate, radius: step.candidates.reduce(0) { max($0, $1.distance) })
        // A live state with no Viterbi chain is routed on while it is within the beam.
        for j in 0..<prev.candidates.count where prev.scores[j] > -.infinity || (tracking && prev.liveScores[j] >= -p.beamWidth) {
            let base = prev.scores[j], liveBase = tracking ? prev.liveScores[j] : -.infinity
            // A target is settled for this source once even the likeliest transition over a
            // route that long (|route − great circle| smallest) cannot beat what an earlier
            // source gave it, in either recursion: the answer is the same, the search shorter.
            // (The estimate inverts the exponential: |route − gc| ≥ β (gap − ln β).)
            route(from: prev.candidates[j].position, to: area, limit: limit, isSettled: { k, metres in
                let t = logTransition(max(metres, gc))
                return base + t <= scores[k] && liveBase + t <= live[k]
            }, settledBeyond: { k in
                func gap(_ from: Double, _ to: Double) -> Double { from == -.infinity ? -.infinity : from - to }
                return gc + beta * (max(gap(base, scores[k]), gap(liveBase, live[k])) + logDensity)
            })
            for k in 0..<n {
                let d = search.distances[k]
                guard d.isFinite else { continue }
                let t = logTransition(d)
                if base + t > scores[k] { scores[k] = base + t; parents[k] = Int32(j) }
                if liveBase + t > live[k] { live[k] = liveBase + t; liveParents[k] = Int32(j) }
            }
            if base + logEnter > scores[n] { scores[n] = base + logEnter; parents[n] = Int32(j) }
            if liveBase + logEnter > live[n] { live[n] = liveBase + logEnter; liveParents[n] = Int32(j) }
        }
        let off = prev.scores[prev.offRoad], liveOff = tracking ? prev.liveScores[prev.offRoad] : -.infinity
        if off > -.infinity {
            // Beam: an off-road state far below the best road state is not routed back onto
            // the road (its re-entry searches span all the time since it left).
            let bestRoad = prev.scores[0..<prev.offRoad].max() ?? -.infinity
            if off >= bestRoad - p.beamWidth, let origin = prev.offRoadOrigin {
                let limit = transitionLimit(fromTime: origin.time, radius: origin.radius, toTime: step.time, radius: step.radius,
                                            greatCircle: LocalFrame.distance(origin.coordinate, step.coordinate))
                let gcOrigin = LocalFrame.distance(origin.coordinate, step.coordinate)
                let betaOrigin = p.beta(sigma: sigma, greatCircle: gcOrigin)
                // Settled as for a road source: a target the likeliest exit over a route that
                // long cannot give more than it already has, in either recursion, is left alone
                // (this search spans all the time since the chain left the road; searching on
                // for every target made the matching 6 % slower on the dev Kubička drives).
                route(from: origin.position, to: area, limit: limit, isSettled: { k, metres in
                    let t = logExit + p.logTransition(route: max(metres, gcOrigin), greatCircle: gcOrigin, sigma: sigma)
                    return off + t <= scores[k] && liveOff + t <= live[k]
                }, settledBeyond: { k in
                    func gap(_ from: Double, _ to: Double) -> Double { from == -.infinity ? -.infinity : from - to }
                    return gcOrigin + betaOrigin * (max(gap(off + logExit, scores[k]), gap(liveOff + logExit, live[k])) - log(betaOrigin))
                })
                for k in 0..<n where search.distances[k].isFinite {
                    let t = logExit + p.logTransition(route: search.distances[k], greatCircle: gcOrigin, sigma: sigma)
                    if off + t > scores[k] { scores[k] = off + t; parents[k] = Int32(prev.offRoad) }
                    if liveOff + t > live[k] { live[k] = liveOff + t; liveParents[k] = Int32(prev.offRoad) }
                }
            }
            if off + logStay > scores[n] { scores[n] = off + logStay; parents[n] = Int32(prev.offRoad) }
        }
        if tracking, liveOff + logStay > live[n] { live[n] = liveOff + logStay; liveParents[n] = Int32(prev.offRoad) }
        // The restart re-seeds a road some road path explains (a chain the filter holds, far
        // behind); a road no route reaches only from the off-road state, as the rejoin above.
        let liveBest = prev.liveScores.max() ?? 0
        let restart = liveBest + logDensity + log(p.offRoadRejoinProbability)
        let fromOffRoad = liveOff >= liveBest
        for k in 0..<n where tracking && restart > live[k] && (scores[k] > -.infinity || fromOffRoad) {
            live[k] = restart
            liveParents[k] = Self.restarted
        }
        guard scores[0..<n].contains(where: { $0 > -.infinity }) else { return false }
        if off > -.infinity, off >= (prev.scores[0..<prev.offRoad].max() ?? -.infinity) {
            // Bounded re-entry: while off-road is the best state (the live answer), back onto
            // a road no route reaches, at a fixed cost, so that a road out of reach of where
            // the chain left the road (a road missing from the map, a one-way out of a car
            // park, a chain that started off-road) cannot keep the off-road state for good.
            // (Only then: a road the GPS strays towards for a minute, not connected to the
            // one driven, would otherwise win by the same door, and a reachable road keeps its
            // routed path.)
            let rejoin = off + logExit + logDensity + log(p.offRoadRejoinProbability)
            for k in 0..<n where scores[k] == -.infinity {
                scores[k] = rejoin
                parents[k] = Int32(prev.offRoad)
                step.rejoined.append(Int32(k))
            }
        }
        for k in 0..<n { scores[k] += step.candidates[k].logEmission }
        scores[n] += p.logOffRoadEmission(sigma: sigma)
        if tracking {
            for k in 0..<n { live[k] += step.candidates[k].logEmission }
            live[n] += p.logOffRoadEmission(sigma: sigma)
            step.liveScores = live
            step.liveParents = liveParents
        }
        let parent = Int(parents[n])
        if parent == prev.offRoad {
            step.offRoadOrigin = prev.offRoadOrigin
        } else if parent >= 0 {
            step.offRoadOrigin = Origin(position: prev.candidates[parent].position, coordinate: prev.coordinate, time: prev.time, radius: prev.radius)
        }
        step.scores = scores
        step.parents = parents
        return true
    }

    /// Runs the transition search from `source` to the current `targets` (all within `area`),
    /// every target to its shortest route within `limit`.
    mutating func route(from source: EdgePosition, to area: TargetArea, limit: Double) {
        route(from: source, to: area, limit: limit, isSettled: { _, _ in false }, settledBeyond: { _ in .infinity })
    }

    /// Runs the transition search from `source` to the current `targets` (all within `area`),
    /// leaving alone the targets `isSettled` gives up (see `TransitionSearch.run`).
    mutating func route(from source: EdgePosition, to area: TargetArea, limit: Double,
                        isSettled: (_ k: Int, _ metres: Double) -> Bool, settledBeyond: (_ k: Int) -> Double) {
        let p = matcher.parameters
        // The graph and rules are passed in place, not through local copies (which retained
        // and released the graph's ~30 columns per search).
        targets.withUnsafeBufferPointer { buffer in
            search.run(graph: matcher.graph, rules: matcher.rules, from: source, to: buffer, within: area, limit: limit,
                       uTurnPenalty: p.uTurnPenalty.meters, backwardTolerance: p.backwardTolerance.meters,
                       isSettled: isSettled, settledBeyond: settledBeyond)
        }
    }


    /// Routed fixes fed but not yet committed (projected and skipped fixes ride with them): the
    /// session's working memory, at most `maximumLag` + 1.
    public var undecidedCount: Int { steps.count - firstUndecided }

    /// Commits everything still undecided to the best path so far and closes the open
    /// sub-matching; call at the end of a trace. The session may be fed again afterwards
    /// (the next fix starts a new sub-matching).
    public mutating func finish() {
        flush()
    }

    /// The fixes and path pieces committed since the last call, in input order. A piece with
    /// an index already seen continues that sub-matching (`SubMatching.append(_:)`).
    public mutating func takeCommitted() -> (points: [MatchedPoint], pieces: [SubMatching]) {
        var pieces = finishedPieces
        finishedPieces.removeAll(keepingCapacity: true)
        if let open = openPiece, open.routedFixCount > 0 || !open.edges.isEmpty {
            pieces.append(open)
            openPiece = SubMatching(index: open.index)
        }
        let points = committedPoints
        committedPoints.removeAll(keepingCapacity: true)
        return (points, pieces)
    }

    // MARK: Model pieces

    /// The longest road path worth searching from a fix at `t0` to one at `time`, metres: the
    /// distance coverable at `maximumSpeed` in the time between them (twice the great-circle
    /// distance without times) plus both candidate radii.
    func transitionLimit(fromTime t0: Double?, radius r0: Double, toTime time: Double?, radius: Double, greatCircle: Double) -> Double {
        let p = matcher.parameters
        let travel: Double
        if let time, let t0 { travel = max(0, time - t0) * p.maximumSpeed.metersPerSecond } else { travel = 2 * greatCircle }
        return travel + r0 + radius
    }

    /// One state's share of `probabilities(of:)`, the same arithmetic without the array.
    static func probability(of state: Int, in scores: [Double]) -> Double {
        var total = 0.0
        for s in scores { total += exp(s) }
        let v = exp(scores[state])
        return total > 0 ? v / total : v
    }

    /// Log scores normalised to probabilities (softmax).
    static func probabilities(of scores: [Double]) -> [Double] {
        var total = 0.0
        var out = scores.map { s -> Double in
            let v = exp(s)
            total += v
            return v
        }
        if total > 0 { for k in out.indices { out[k] /= total } }
        return out
    }
}

