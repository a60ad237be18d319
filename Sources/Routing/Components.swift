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
        self.component = component
        self.size = sizes
        self.isLarge = sizes.map { Int($0) >= threshold || $0 == largest }
    }

    func isLarge(_ edge: EdgeID) -> Bool { isLarge[Int(component[edge.index])] }
}
