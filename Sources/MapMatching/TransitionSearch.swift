import Platform
import GeoCore
import RoadNetwork
import Routing

/// A position part-way along a directed edge: `fraction` 0 at its source, 1 at its target.
struct EdgePosition: Hashable, Sendable {
    var edge: UInt32
    var fraction: Double
}

/// The bounded one-to-many shortest-distance search behind the HMM's transitions: from one
/// candidate to every candidate of the next fix, in metres along the roads, over directed edges
/// (so one-ways and via-node turn restrictions hold: Routing's `TurnRules`), settling edges in
/// order of distance (Dijkstra 1959) and stopping at `limit` metres or when every target is
/// final or settled (the caller's test: no longer route to it can change its answer), and
/// never entering an edge from whose end no target can be reached within `limit` (the
/// straight-line bound of `TargetArea`: the same distances and paths, a third fewer edges
/// settled on the dev Kubička drives). Its labels are stamped per search (no clearing), its
/// heap and result buffers are reused, so a search allocates nothing once the buffers have
/// grown. An edge's label and its target mark share one 24-byte record, so relaxing an edge
/// touches one cache line; the records start as zero pages (every stamp 0: stale), so a search
/// on a large graph touches only the pages of the edges it reaches.
struct TransitionSearch {
    /// Per directed edge: its label and target mark, valid where their stamps equal `generation`.
    private var labels = EdgeLabels(count: 0)
    private var generation: UInt32 = 0
    private var heap = EdgeHeap()
    /// Per target of the last search: metres from the source, `.infinity` when out of reach.
    private(set) var distances: [Double] = []
    /// Per target of the last search: the edge settled before the target's edge, or
    /// `-1 - seed` when the target lies on a seed edge ahead of (or just behind) the start.
    /// (Edge labels' parents: an edge, -1 for the source seed, -2 for the U-turn seed.)
    private var predecessor: [Int32] = []
    /// The search's seeds: the source edge and, where U-turns are allowed anywhere, its twin.
    private var seeds: [EdgePosition] = []

    init() {}

    /// One directed edge's state in the current search.
    private struct EdgeLabel {
        /// Metres from the source position to the end of the edge, valid where `stamp == generation`.
        var cost = Double.infinity
        /// The edge settled before it (-1: the source seed, -2: the U-turn seed).
        var parent: Int32 = -1
        var stamp: UInt32 = 0
        /// Which target lies on the edge, valid where `targetStamp == generation`.
        var targetStamp: UInt32 = 0
        var target: Int32 = -1
    }

    /// One `EdgeLabel` per directed edge in memory from `calloc`: all-zero bytes are a valid
    /// stale label (stamps 0; `generation` starts at 1), and a large zeroed allocation is mapped
    /// lazily, so the pages of edges no search reaches are never touched. (An array
    /// initialised to `EdgeLabel()` wrote every page: on a 24 MB graph 2 % of `geo match`'s
    /// CPU went to faulting them in and 1.6 % to unmapping them.) Not shared between copies of
    /// a search: `prepare` replaces a store another copy also holds.
    private final class EdgeLabels: @unchecked Sendable {
        let count: Int
        let base: UnsafeMutablePointer<EdgeLabel>

        init(count: Int) {
            guard let memory = calloc(max(count, 1), MemoryLayout<EdgeLabel>.stride) else { fatalError("out of memory for \(count) edge labels") }
            self.count = count
            base = memory.bindMemory(to: EdgeLabel.self, capacity: max(count, 1))
        }

        deinit { free(base) }

        subscript(e: Int) -> EdgeLabel { base[e] }

        func withLabels<R>(_ body: (UnsafeMutableBufferPointer<EdgeLabel>) -> R) -> R {
            body(UnsafeMutableBufferPointer(start: base, count: count))
        }
    }

    private mutating func prepare(edgeCount: Int, targetCount: Int) {
        if labels.count != edgeCount || !isKnownUniquelyReferenced(&labels) {
            labels = EdgeLabels(count: edgeCount)
            generation = 0
        }
        generation &+= 1
        if generation == 0 {
            labels = EdgeLabels(count: edgeCount)
            generation = 1
        }
        distances.removeAll(keepingCapacity: true)
        distances.append(contentsOf: repeatElement(.infinity, count: targetCount))
        predecessor.removeAll(keepingCapacity: true)
        predecessor.append(contentsOf: repeatElement(Int32.min, count: targetCount))
        heap.removeAll()
        seeds.removeAll(keepingCapacity: true)
    }

    /// Fills `distances` with the road distance from `source` to each target, `.infinity`
    /// beyond `limit` metres or unreachable. Each directed edge holds at most one target.
    /// - Parameters:
    ///   - area: where every target lies.
    ///   - uTurnPenalty: metres added for a U-turn the turn rules do not allow (mid-edge, or at
    ///     a junction); infinite: none.
    ///   - backwardTolerance: metres a target may lie behind the source on the same edge and
    ///     still count as reached, at minus that distance: GPS jitter, not a reversing car.
    ///   - isSettled: whether no route of at least the given metres to target `k` can matter to
    ///     the caller any more (exact: the search then leaves that target as it is, possibly
    ///     unreached); the search stops as soon as every target is final or settled.
    ///   - settledBeyond: an estimate of the metres from which `isSettled` holds for target `k`
    ///     (`.infinity`: never), so that `isSettled` is only asked when it may say yes.
    /// - Complexity: O(k log k) for the k edges within `limit` of the source.
    mutating func run(graph g: RoadGraph, rules: TurnRules, from source: EdgePosition, to targets: UnsafeBufferPointer<EdgePosition>,
                      within area: TargetArea, limit: Double, uTurnPenalty: Double, backwardTolerance: Double,
                      isSettled: (_ k: Int, _ metres: Double) -> Bool, settledBeyond: (_ k: Int) -> Double) {
        prepare(edgeCount: g.edgeCount, targetCount: targets.count)
        guard !targets.isEmpty else { return }
        let generation = self.generation
        // The per-target answers leave `self` for the search, so the loop reaches them through
        // buffers (no uniqueness check per write) while it also pushes onto `heap`.
        var distances: [Double] = [], predecessor: [Int32] = []
        swap(&distances, &self.distances)
        swap(&predecessor, &self.predecessor)
        defer {
            swap(&distances, &self.distances)
            swap(&predecessor, &self.predecessor)
        }
        labels.withLabels { labels in
            distances.withUnsafeMutableBufferPointer { distances in
                predecessor.withUnsafeMutableBufferPointer { predecessor in
                    for (k, t) in targets.enumerated() {
                        labels[Int(t.edge)].target = Int32(k)
                        labels[Int(t.edge)].targetStamp = generation
                    }
                    @inline(__always) func label(_ e: Int) -> Double { labels[e].stamp == generation ? labels[e].cost : .infinity }
                    @inline(__always) func set(_ e: Int, cost c: Double, parent p: Int32) {
                        labels[e].stamp = generation
                        labels[e].cost = c
                        labels[e].parent = p
                    }
                    seeds.append(source)
                    let allowsUTurns = uTurnPenalty.isFinite
                    if allowsUTurns, let twin = g.twin(of: RoadGraph.EdgeID(source.edge)) {
                        seeds.append(EdgePosition(edge: twin.rawValue, fraction: 1 - source.fraction))
                    }
                    for (i, seed) in seeds.enumerated() {
                        let e = Int(seed.edge)
                        let length = g.length(of: RoadGraph.EdgeID(seed.edge)).meters
                        let penalty = i == 0 ? 0 : uTurnPenalty
                        let toEnd = (1 - seed.fraction) * length + penalty
                        if toEnd < label(e) {
                            set(e, cost: toEnd, parent: i == 0 ? -1 : -2)
                            heap.push(toEnd, UInt32(e))
                        }
                        if labels[e].targetStamp == generation {
                            let k = Int(labels[e].target)
                            // Behind the start within the tolerance: a negative distance, so the transition
                            // pays for the backward step as well as for the distance the fix moved.
                            let ahead = (targets[k].fraction - seed.fraction) * length
                            let d = ahead >= 0 || -ahead <= backwardTolerance ? ahead + penalty : .infinity
                            if d <= limit, d < distances[k] {
                                distances[k] = d
                                predecessor[k] = Int32(-1 - i)
                            }
                        }
                    }
                    // The pop cost at which to look again whether every target is final (reached no
                    // further than the cost popped: any later route is longer) or settled; 0 after a
                    // target's distance changes.
                    var nextCheck = 0.0
                    while let (c, e32) = heap.pop() {
                        if c > limit { break }
                        if c >= nextCheck {
                            var closed = true
                            nextCheck = 0
                            for k in 0..<targets.count where distances[k] > c && !isSettled(k, c) {
                                closed = false
                                nextCheck = max(nextCheck, min(distances[k], settledBeyond(k)))
                            }
                            if closed { break }
                        }
                        let e = Int(e32)
                        guard c <= label(e) else { continue }
                        let edge = RoadGraph.EdgeID(e32)
                        let twin = g.twin(of: edge)
                        var twinSeen = false
                        var turns = rules.turns(from: edge, in: g)
                        while true {
                            let next: RoadGraph.EdgeID
                            var penalty = 0.0
                            if let n = turns.next() {
                                next = n
                                if n == twin { twinSeen = true }
                            } else if allowsUTurns, !twinSeen, let t = twin {
                                next = t
                                penalty = uTurnPenalty
                                twinSeen = true
                            } else {
                                break
                            }
                            let f = next.index
                            let length = g.length(of: next).meters
                            if labels[f].targetStamp == generation {
                                let k = Int(labels[f].target)
                                let d = c + penalty + targets[k].fraction * length
                                if d <= limit, d < distances[k] {
                                    distances[k] = d
                                    predecessor[k] = Int32(e)
                                    nextCheck = 0
                                }
                            }
                            let nc = c + penalty + length
                            if nc < label(f), nc + area.metresToTargets(from: g.coordinate(of: g.target(of: next))) <= limit {
                                set(f, cost: nc, parent: Int32(e))
                                heap.push(nc, UInt32(f))
                            }
                        }
                    }
                }
            }
        }
    }

    /// The directed edges from the source's edge to target `k`'s edge, both included, after
    /// `run` reached it (empty when it did not), and whether the path turns back mid-edge from
    /// the source's edge onto its twin (a U-turn seed: the twin is entered part-way).
    func path(to k: Int, targetEdge: UInt32) -> (edges: [UInt32], turnsMidEdge: Bool) {
        let p = predecessor[k]
        guard p != Int32.min else { return ([], false) }
        if p < 0 {
            let seed = Int(-1 - p)
            return seed == 0 ? ([seeds[0].edge], false) : ([seeds[0].edge, seeds[seed].edge], true)
        }
        var chain = [targetEdge]
        var e = Int(p)
        var turnsMidEdge = false
        var guardSteps = labels.count
        while guardSteps > 0 {
            chain.append(UInt32(e))
            let q = labels[e].parent
            if q == -2 {
                chain.append(seeds[0].edge)
                turnsMidEdge = true
                break
            }
            if q < 0 { break }
            e = Int(q)
            guardSteps -= 1
        }
        return (chain.reversed(), turnsMidEdge)
    }
}

/// Where a search's targets lie: within `radius` metres of `center`. From a point `d` metres
/// from the centre in a straight line, any target is at least `d − radius` metres away along
/// the roads (the triangle inequality; a road is no shorter than the straight line), so a
/// search can leave alone the edges that end further than `limit` minus their cost from it —
/// the pruning half of A* (Hart, Nilsson & Raphael 1968), with Dijkstra's order kept, so the
/// distances, ties and paths found are those of the full search.
struct TargetArea {
    private let frame: LocalFrame
    private let radius: Double

    init(center: Coordinate, radius: Double) {
        frame = LocalFrame(origin: center)
        self.radius = radius
    }

    /// A lower bound on the metres along the roads from `c` to any target. The frame's
    /// constant scale errs by about tan φ·Δφ (under 0.2 % for 2 km at 80°) and road lengths are
    /// summed in other frames: 1 % and 1 m are given up for both.
    @inline(__always)
    func metresToTargets(from c: Coordinate) -> Double {
        0.99 * frame.planarDistance(frame.origin, c) - radius - 1
    }
}

/// A binary min-heap of (metres, edge) whose storage is kept between searches; entries move
/// into a hole instead of being swapped (the same comparisons, so the same order as swapping).
struct EdgeHeap {
    private struct Entry {
        var key: Double
        var value: UInt32
    }
    private var entries: ContiguousArray<Entry> = []

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }

    mutating func push(_ key: Double, _ value: UInt32) {
        entries.append(Entry(key: key, value: value))
        entries.withUnsafeMutableBufferPointer { h in
            var i = h.count - 1
            while i > 0 {
                let p = (i - 1) >> 1
                guard h[p].key > key else { break }
                h[i] = h[p]
                i = p
            }
            h[i] = Entry(key: key, value: value)
        }
    }

    mutating func pop() -> (Double, UInt32)? {
        guard let top = entries.first else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries.withUnsafeMutableBufferPointer { h in
                let n = h.count
                var i = 0
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var m = i
                    var smallest = last.key
                    if l < n, h[l].key < smallest { m = l; smallest = h[l].key }
                    if r < n, h[r].key < smallest { m = r }
                    if m == i { break }
                    h[i] = h[m]
                    i = m
                }
                h[i] = last
            }
        }
        return (top.key, top.value)
    }
}
