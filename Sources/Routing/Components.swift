import RoadNetwork

/// Strongly connected components of the edge-based graph (states are directed edges,
/// moves are the turns a route may take, ignoring turn restrictions), so that start and end
/// points are snapped into the large component rather than onto a stub behind a barrier or
/// the unreachable start of a clipped motorway — OSRM's "small components" rule
/// (`osrm-extract --small-component-size 1000`).
///
/// Tarjan (1972), iterative so deep graphs cannot overflow the stack.
struct EdgeComponents: Sendable {
    /// Component number per edge.
    let component: [UInt32]
    /// Edge count per component.
    let size: [UInt32]
    /// Whether a component counts as large: at least `threshold` edges, or the largest.
    let isLarge: [Bool]
    /// Edges a route can reach from the large components (targets: a oneway stub leaving a
    /// clipped extract is reachable though it is a component of its own).
    let reachableFromLarge: [Bool]
    /// Edges from which a route can reach the large components (sources).
    let reachesLarge: [Bool]

    /// - Complexity: O(E + T) for E edges and T turns.
    init(graph g: RoadGraph, deadEnds: [Bool], threshold: Int = 1000) {
        let n = g.edgeCount
        var index = [Int32](repeating: -1, count: n)
        var low = [Int32](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [Int32] = []
        var component = [UInt32](repeating: UInt32.max, count: n)
        var sizes: [UInt32] = []
        var counter: Int32 = 0
        // Call frames: (edge, next successor offset).
        var frames: [(edge: Int, next: Int)] = []

        func successors(_ e: Int) -> Range<Int> {
            let v = Int(g.edgeTargets[e])
            return Int(g.firstEdge[v])..<Int(g.firstEdge[v + 1])
        }
        func allowed(_ e: Int, _ f: Int) -> Bool {
            let v = Int(g.edgeTargets[e])
            let isUTurn = g.edgeTwins[e] == UInt32(f)
            let barrier = g.nodeFlags[v] & RoadGraph.NodeFlags.barrier.rawValue != 0
            if barrier { return isUTurn }
            return !isUTurn || deadEnds[v]
        }

        for root in 0..<n where index[root] < 0 {
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(Int32(root)); onStack[root] = true
            frames.append((root, successors(root).lowerBound))
            while let frame = frames.last {
                let e = frame.edge
                let range = successors(e)
                var next = frame.next
                var descended = false
                while next < range.upperBound {
                    let f = next
                    next += 1
                    guard allowed(e, f) else { continue }
                    if index[f] < 0 {
                        frames[frames.count - 1].next = next
                        index[f] = counter; low[f] = counter; counter += 1
                        stack.append(Int32(f)); onStack[f] = true
                        frames.append((f, successors(f).lowerBound))
                        descended = true
                        break
                    } else if onStack[f] {
                        low[e] = min(low[e], index[f])
                    }
                }
                if descended { continue }
                frames.removeLast()
                if low[e] == index[e] {
                    let c = UInt32(sizes.count)
                    var count: UInt32 = 0
                    while let top = stack.popLast() {
                        onStack[Int(top)] = false
                        component[Int(top)] = c
                        count += 1
                        if Int(top) == e { break }
                    }
                    sizes.append(count)
                }
                if let parent = frames.last {
                    low[parent.edge] = min(low[parent.edge], low[e])
                }
            }
        }
        let largest = sizes.max() ?? 0
        let isLarge = sizes.map { Int($0) >= threshold || $0 == largest }
        self.component = component
        self.size = sizes
        self.isLarge = isLarge

        // Breadth-first closures of the large components, forwards and backwards.
        var forward = (0..<n).map { isLarge[Int(component[$0])] }
        var queue = (0..<n).filter { forward[$0] }
        while let e = queue.popLast() {
            for f in successors(e) where !forward[f] && allowed(e, f) {
                forward[f] = true
                queue.append(f)
            }
        }
        var backward = (0..<n).map { isLarge[Int(component[$0])] }
        queue = (0..<n).filter { backward[$0] }
        while let f = queue.popLast() {
            let u = Int(g.edgeSources[f])
            for k in Int(g.firstIncoming[u])..<Int(g.firstIncoming[u + 1]) {
                let e = Int(g.incomingEdges[k])
                if !backward[e], allowed(e, f) {
                    backward[e] = true
                    queue.append(e)
                }
            }
        }
        reachableFromLarge = forward
        reachesLarge = backward
    }

    func isLarge(_ edge: EdgeID) -> Bool { isLarge[Int(component[edge.index])] }
}
