public import RoadNetwork

/// Which turns a route may take from one directed edge onto the next at their shared node:
/// at a barrier only the U-turn, elsewhere a U-turn only at a dead end, and never a turn a
/// restriction forbids. The one rule behind the router's search and the components below.
/// The rules are built for one graph and take it as an argument (a copy held inside would
/// cost reference counting of every column per settled edge in debug builds).
/// Public with inlinable turns: Swift 6.3 does not inline a `package` function into another
/// module, even `@inlinable`, and map matching's transition search called `next()` per edge
/// it relaxed (5 % of `geo match`).
public struct TurnRules: Sendable {
    /// Whether node `n` has no way out other than back (a dead end: U-turns allowed).
    @usableFromInline let deadEnds: [Bool]

    /// - Complexity: O(N + E).
    public init(graph: RoadGraph) {
        var deadEnds = [Bool](repeating: false, count: graph.nodeCount)
        for n in graph.nodes {
            // At most one segment among the edges out (compared in place: a set per node was
            // 7 % of `geo match` on a 115,000-node graph).
            let out = graph.outgoingEdges(of: n)
            deadEnds[n.index] = out.allSatisfy { graph.segment(of: $0) == graph.segment(of: out.lowerBound) }
        }
        self.deadEnds = deadEnds
    }

    /// The edges a route may continue on after `edge` of `graph` (the graph the rules were
    /// built for), in edge order. Inlinable, as the accessors it reads, so that the searches
    /// of other modules (map matching's transitions) expand an edge without a call.
    @inlinable @inline(__always)
    public func turns(from edge: RoadGraph.EdgeID, in graph: RoadGraph) -> AllowedTurns {
        let node = graph.target(of: edge)
        let isBarrier = graph.flags(of: node).contains(.barrier)
        return AllowedTurns(twin: graph.twin(of: edge), candidates: graph.outgoingEdges(of: node),
                            allowsUTurn: isBarrier || deadEnds[node.index], allowsOthers: !isBarrier,
                            restrictions: graph.restrictions(from: edge))
    }

    /// The allowed continuations of one edge (see `turns(from:in:)`).
    public struct AllowedTurns: Sequence, IteratorProtocol {
        @usableFromInline let twin: RoadGraph.EdgeID?
        @usableFromInline var candidates: Range<RoadGraph.EdgeID>
        @usableFromInline let allowsUTurn: Bool
        @usableFromInline let allowsOthers: Bool
        @usableFromInline let restrictions: RoadGraph.TurnRestrictions

        @inlinable
        init(twin: RoadGraph.EdgeID?, candidates: Range<RoadGraph.EdgeID>, allowsUTurn: Bool, allowsOthers: Bool,
             restrictions: RoadGraph.TurnRestrictions) {
            self.twin = twin
            self.candidates = candidates
            self.allowsUTurn = allowsUTurn
            self.allowsOthers = allowsOthers
            self.restrictions = restrictions
        }

        @inlinable @inline(__always)
        public mutating func next() -> RoadGraph.EdgeID? {
            while let next = candidates.popFirst() {
                guard next == twin ? allowsUTurn : allowsOthers else { continue }
                if !restrictions.isEmpty, !restrictions.allow(next) { continue }
                return next
            }
            return nil
        }
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
    init(graph g: RoadGraph, rules: TurnRules, smallComponentSize: Int) {
        let n = g.edgeCount
        var index = [Int32](repeating: -1, count: n)
        var low = [Int32](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [Int32] = []
        var component = [UInt32](repeating: UInt32.max, count: n)
        var sizes: [UInt32] = []
        var counter: Int32 = 0
        // The arcs of edge e: its allowed turns, then its twin (OSRM joins both directions).
        var frames: [(edge: Int, turns: TurnRules.AllowedTurns, twinDone: Bool)] = []

        func turns(_ e: Int) -> TurnRules.AllowedTurns { rules.turns(from: RoadGraph.EdgeID(UInt32(e)), in: g) }
        /// The next arc of the top frame, or nil when its arcs are exhausted.
        func nextArc() -> Int? {
            let top = frames.count - 1
            if let next = frames[top].turns.next() { return next.index }
            if frames[top].twinDone { return nil }
            frames[top].twinDone = true
            return g.twin(of: RoadGraph.EdgeID(UInt32(frames[top].edge)))?.index
        }

        for root in 0..<n where index[root] < 0 {
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(Int32(root)); onStack[root] = true
            frames.append((root, turns(root), false))
            while let frame = frames.last {
                let u = frame.edge
                var descended = false
                while let v = nextArc() {
                    if index[v] < 0 {
                        index[v] = counter; low[v] = counter; counter += 1
                        stack.append(Int32(v)); onStack[v] = true
                        frames.append((v, turns(v), false))
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
