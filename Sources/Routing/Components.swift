import RoadNetwork

/// Strongly connected components of the node-based graph, so that start and end points are
/// snapped into a large component rather than onto a stub behind a barrier or a carriageway
/// cut off by a clipped extract — OSRM's "small components" rule (components of fewer than
/// 1000 nodes count as small, `osrm-extract --small-component-size`).
///
/// Arcs are the directed edges; a barrier node has no outgoing arcs, since travel cannot pass
/// it. An edge belongs to a component when both its ends do. Tarjan (1972), iterative so deep
/// graphs cannot overflow the stack.
struct EdgeComponents: Sendable {
    /// Component number per node.
    let nodeComponent: [UInt32]
    /// Whether a component counts as large: at least `threshold` nodes, or the (first) largest.
    let isLargeComponent: [Bool]
    let graph: RoadGraph

    /// - Complexity: O(N + E).
    init(graph g: RoadGraph, threshold: Int = 1000) {
        let n = g.nodeCount
        var index = [Int32](repeating: -1, count: n)
        var low = [Int32](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [Int32] = []
        var component = [UInt32](repeating: UInt32.max, count: n)
        var sizes: [UInt32] = []
        var counter: Int32 = 0
        var frames: [(node: Int, next: Int)] = []

        func arcs(_ u: Int) -> Range<Int> {
            let node = RoadGraph.NodeID(UInt32(u))
            if g.flags(of: node).contains(.barrier) { return 0..<0 }
            let edges = g.outgoingEdges(of: node)
            return edges.lowerBound.index..<edges.upperBound.index
        }

        for root in 0..<n where index[root] < 0 {
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(Int32(root)); onStack[root] = true
            frames.append((root, arcs(root).lowerBound))
            while let frame = frames.last {
                let u = frame.node
                let range = arcs(u)
                var next = max(frame.next, range.lowerBound)
                var descended = false
                while next < range.upperBound {
                    let v = g.target(of: RoadGraph.EdgeID(UInt32(next))).index
                    next += 1
                    if index[v] < 0 {
                        frames[frames.count - 1].next = next
                        index[v] = counter; low[v] = counter; counter += 1
                        stack.append(Int32(v)); onStack[v] = true
                        frames.append((v, arcs(v).lowerBound))
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
                    var count: UInt32 = 0
                    while let top = stack.popLast() {
                        onStack[Int(top)] = false
                        component[Int(top)] = c
                        count += 1
                        if Int(top) == u { break }
                    }
                    sizes.append(count)
                }
                if let parent = frames.last {
                    low[parent.node] = min(low[parent.node], low[u])
                }
            }
        }
        let largest = sizes.indices.max { sizes[$0] < sizes[$1] } ?? 0
        nodeComponent = component
        isLargeComponent = sizes.indices.map { Int(sizes[$0]) >= threshold || $0 == largest }
        graph = g
    }

    /// The component of an edge whose ends share one, else nil (it joins two components).
    func component(of edge: RoadGraph.EdgeID) -> UInt32? {
        let a = nodeComponent[graph.source(of: edge).index], b = nodeComponent[graph.target(of: edge).index]
        return a == b ? a : nil
    }

    /// Whether the edge lies inside a large component.
    func isLarge(_ edge: RoadGraph.EdgeID) -> Bool {
        component(of: edge).map { isLargeComponent[Int($0)] } ?? false
    }
}
