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
/// final. Its labels are stamped per search (no clearing), its heap and result buffers are
/// reused, so a search allocates nothing once the buffers have grown.
struct TransitionSearch {
    /// Metres from the source position to the end of each edge, valid where `stamp == generation`.
    private var cost: [Double] = []
    private var parent: [Int32] = []
    private var stamp: [UInt32] = []
    /// Which target lies on an edge, valid where `targetStamp == generation`.
    private var targetOnEdge: [Int32] = []
    private var targetStamp: [UInt32] = []
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

    private mutating func prepare(edgeCount: Int, targetCount: Int) {
        if stamp.count != edgeCount {
            cost = [Double](repeating: .infinity, count: edgeCount)
            parent = [Int32](repeating: -1, count: edgeCount)
            stamp = [UInt32](repeating: 0, count: edgeCount)
            targetOnEdge = [Int32](repeating: -1, count: edgeCount)
            targetStamp = [UInt32](repeating: 0, count: edgeCount)
            generation = 0
        }
        generation &+= 1
        if generation == 0 {
            for i in stamp.indices { stamp[i] = 0; targetStamp[i] = 0 }
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
    ///   - uTurnPenalty: metres added for a U-turn the turn rules do not allow (mid-edge, or at
    ///     a junction); infinite: none.
    ///   - backwardTolerance: metres a target may lie behind the source on the same edge and
    ///     still count as reached, at minus that distance: GPS jitter, not a reversing car.
    /// - Complexity: O(k log k) for the k edges within `limit` of the source.
    mutating func run(graph g: RoadGraph, rules: TurnRules, from source: EdgePosition, to targets: UnsafeBufferPointer<EdgePosition>,
                      limit: Double, uTurnPenalty: Double, backwardTolerance: Double) {
        prepare(edgeCount: g.edgeCount, targetCount: targets.count)
        guard !targets.isEmpty else { return }
        for (k, t) in targets.enumerated() {
            targetOnEdge[Int(t.edge)] = Int32(k)
            targetStamp[Int(t.edge)] = generation
        }
        seeds.append(source)
        let allowsUTurns = uTurnPenalty.isFinite
        if allowsUTurns, let twin = g.twin(of: RoadGraph.EdgeID(source.edge)) {
            seeds.append(EdgePosition(edge: twin.rawValue, fraction: 1 - source.fraction))
        }
        var remaining = targets.count
        for (i, seed) in seeds.enumerated() {
            let e = Int(seed.edge)
            let length = g.length(of: RoadGraph.EdgeID(seed.edge)).meters
            let penalty = i == 0 ? 0 : uTurnPenalty
            let toEnd = (1 - seed.fraction) * length + penalty
            if toEnd < label(e) {
                set(e, cost: toEnd, parent: i == 0 ? -1 : -2)
                heap.push(toEnd, UInt32(e))
            }
            if targetStamp[e] == generation {
                let k = Int(targetOnEdge[e])
                // Behind the start within the tolerance: a negative distance, so the transition
                // pays for the backward step as well as for the distance the fix moved.
                let ahead = (targets[k].fraction - seed.fraction) * length
                let d = ahead >= 0 || -ahead <= backwardTolerance ? ahead + penalty : .infinity
                if d <= limit, d < distances[k] {
                    if distances[k] == .infinity { remaining -= 1 }
                    distances[k] = d
                    predecessor[k] = Int32(-1 - i)
                }
            }
        }
        var farthestFound = 0.0
        for d in distances where d.isFinite { farthestFound = max(farthestFound, d) }
        while let (c, e32) = heap.pop() {
            if c > limit { break }
            if remaining == 0, c >= farthestFound { break }
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
                if targetStamp[f] == generation {
                    let k = Int(targetOnEdge[f])
                    let d = c + penalty + targets[k].fraction * length
                    if d <= limit, d < distances[k] {
                        if distances[k] == .infinity { remaining -= 1 }
                        distances[k] = d
                        predecessor[k] = Int32(e)
                        farthestFound = max(farthestFound, d)
                    }
                }
                let nc = c + penalty + length
                if nc < label(f) {
                    set(f, cost: nc, parent: Int32(e))
                    heap.push(nc, UInt32(f))
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
        var guardSteps = stamp.count
        while guardSteps > 0 {
            chain.append(UInt32(e))
            let q = parent[e]
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

    @inline(__always) private func label(_ e: Int) -> Double { stamp[e] == generation ? cost[e] : .infinity }
    @inline(__always) private mutating func set(_ e: Int, cost c: Double, parent p: Int32) {
        stamp[e] = generation
        cost[e] = c
        parent[e] = p
    }
}

/// A binary min-heap of (metres, edge) whose storage is kept between searches.
struct EdgeHeap {
    private var keys: [Double] = []
    private var values: [UInt32] = []

    mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    mutating func push(_ key: Double, _ value: UInt32) {
        keys.append(key)
        values.append(value)
        var i = keys.count - 1
        while i > 0 {
            let p = (i - 1) >> 1
            guard keys[p] > keys[i] else { break }
            keys.swapAt(p, i)
            values.swapAt(p, i)
            i = p
        }
    }

    mutating func pop() -> (Double, UInt32)? {
        guard let top = keys.first else { return nil }
        let value = values[0]
        let lastKey = keys.removeLast(), lastValue = values.removeLast()
        if !keys.isEmpty {
            keys[0] = lastKey
            values[0] = lastValue
            var i = 0
            let n = keys.count
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < n, keys[l] < keys[m] { m = l }
                if r < n, keys[r] < keys[m] { m = r }
                if m == i { break }
                keys.swapAt(m, i)
                values.swapAt(m, i)
                i = m
            }
        }
        return (top, value)
    }
}
