import RoadNetwork

/// Which turns a route may take from one directed edge onto the next at their shared node:
/// at a barrier only the U-turn, elsewhere a U-turn only at a dead end, and never a turn a
/// restriction forbids. The one rule behind the router's search and the components below.
struct TurnRules: Sendable {
    let graph: RoadGraph
    /// Whether node `n` has no way out other than back (a dead end: U-turns allowed).
    let deadEnds: [Bool]

    /// - Complexity: O(N + E).
    init(graph: RoadGraph) {
        self.graph = graph
        var deadEnds = [Bool](repeating: false, count: graph.nodeCount)
        for n in graph.nodes {
            deadEnds[n.index] = Set(graph.outgoingEdges(of: n).map { graph.segment(of: $0) }).count <= 1
        }
        self.deadEnds = deadEnds
    }

    /// Whether a route may continue from `edge` onto `next`, which leaves `edge`'s target.
    @inline(__always)
    func allows(from edge: RoadGraph.EdgeID, to next: RoadGraph.EdgeID) -> Bool {
        let node = graph.target(of: edge)
        let isUTurn = graph.twin(of: edge) == next
        let isBarrier = graph.flags(of: node).contains(.barrier)
        guard isUTurn ? isBarrier || deadEnds[node.index] : !isBarrier else { return false }
        return !graph.flags(of: edge).contains(.hasRestrictions) || graph.isTurnAllowed(from: edge, to: next)
    }
}

/// Strongly connected components of the edge-based graph (states are directed edges, arcs
/// the turns `TurnRules` allows), so that start and end points are snapped into a large
/// component rather than onto a piece of road no route can leave or reach: a stub behind a
/// barrier, a carriageway cut off by a clipped extract, a one-way loop whose only exits are
/// forbidden turns. As OSRM's `Extractor::FindComponents`: both directions of a two-way
/// segment are joined into one component, and a component of fewer than
/// `smallComponentSize` directed edges is small (`osrm-extract --small-component-size`,
/// default 1000); in a graph with no large component every end point stays where it is
/// snapped, as in OSRM. Tarjan (1972), iterative so deep graphs cannot overflow the stack.
struct EdgeComponents: Sendable {
    /// Component number per directed edge.
    let edgeComponent: [UInt32]
    /// Whether a component counts as large: at least `smallComponentSize` directed edges.
    let isLargeComponent: [Bool]

    /// - Complexity: O(E + T) for E edges and T turns.
    init(rules: TurnRules, smallComponentSize: Int) {
        let g = rules.graph
        let n = g.edgeCount
        var index = [Int32](repeating: -1, count: n)
        var low = [Int32](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [Int32] = []
        var component = [UInt32](repeating: UInt32.max, count: n)
        var sizes: [UInt32] = []
        var counter: Int32 = 0
        // The arcs of edge e: the outgoing edges of its target in order, then its twin.
        var frames: [(edge: Int, next: Int)] = []

        /// The arc number `k` of edge `e`, or nil when that arc does not exist or is not allowed.
        func arc(_ e: Int, _ k: Int) -> Int? {
            let edge = RoadGraph.EdgeID(UInt32(e))
            let out = g.outgoingEdges(of: g.target(of: edge))
            if k < out.count {
                let next = out.lowerBound.advanced(by: k)
                return rules.allows(from: edge, to: next) ? next.index : nil
            }
            return g.twin(of: edge)?.index
        }
        func arcCount(_ e: Int) -> Int { g.outgoingEdges(of: g.target(of: RoadGraph.EdgeID(UInt32(e)))).count + 1 }

        for root in 0..<n where index[root] < 0 {
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(Int32(root)); onStack[root] = true
            frames.append((root, 0))
            while let frame = frames.last {
                let u = frame.edge
                let count = arcCount(u)
                var next = frame.next
                var descended = false
                while next < count {
                    let candidate = arc(u, next)
                    next += 1
                    guard let v = candidate else { continue }
                    if index[v] < 0 {
                        frames[frames.count - 1].next = next
                        index[v] = counter; low[v] = counter; counter += 1
                        stack.append(Int32(v)); onStack[v] = true
                        frames.append((v, 0))
                        descended = true
                        break
                    } else if onStack[v] {
                        low[u] = min(low[u], index[v])
                    }
                }
                if descended { continue }
                frames.removeLast()
                if low[u] == index[u] {
                    let c = UInt32(sizes.count)
                    var size: UInt32 = 0
                    while let top = stack.popLast() {
                        onStack[Int(top)] = false
                        component[Int(top)] = c
                        size += 1
                        if Int(top) == u { break }
                    }
                    sizes.append(size)
                }
                if let parent = frames.last {
                    low[parent.edge] = min(low[parent.edge], low[u])
                }
            }
        }
        edgeComponent = component
        isLargeComponent = sizes.map { Int($0) >= smallComponentSize }
    }

    /// The component of a directed edge.
    func component(of edge: RoadGraph.EdgeID) -> UInt32 { edgeComponent[edge.index] }

    /// Whether the edge lies in a large component.
    func isLarge(_ edge: RoadGraph.EdgeID) -> Bool { isLargeComponent[Int(edgeComponent[edge.index])] }
}
