// Road graph build time and in-process route latency (driver: Benchmarks/routing.sh, peer: OSRM).
//
//   RoutingBench extract FILE.osm.pbf [car|foot|bike] [OUT.graph]  best-of-3 build time
//   RoutingBench pairs GRAPH N SEED                     N seeded random node-to-node pairs
//   RoutingBench route GRAPH PAIRS                      load + index time, per-query p50/p99
import Foundation
import GeoCore
import OSMImport
import RoadNetwork
import Routing

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count - 1)).rounded()))]
}

func load(_ path: String) throws -> RoadGraph {
    let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    return try data.withUnsafeBytes { buffer in try RoadGraph(serialized: buffer) }
}

/// A seeded linear congruential generator (Knuth MMIX constants).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state
    }
}

let args = CommandLine.arguments
let clock = ContinuousClock()
switch args.count > 1 ? args[1] : "" {
case "extract" where args.count >= 3:
    let profile = Profile.named(args.count > 3 ? args[3] : "car") ?? .car
    var best = Double.infinity
    var result: RoadGraphExtractor.Result?
    for _ in 0..<3 {
        let start = clock.now
        result = try RoadGraphExtractor.extract(from: URL(fileURLWithPath: args[2]), profile: profile)
        best = min(best, (clock.now - start).seconds)
    }
    if let g = result?.graph {
        print(String(format: "extract: %.3f s (best of 3), %d nodes, %d edges", best, g.nodeCount, g.edgeCount))
        if args.count > 4 { try Data(g.serialized()).write(to: URL(fileURLWithPath: args[4])) }
    }
case "pairs" where args.count >= 5:
    let graph = try load(args[2])
    var rng = SeededGenerator(state: UInt64(args[4]) ?? 1)
    for _ in 0..<(Int(args[3]) ?? 1000) {
        let a = Int.random(in: 0..<graph.nodeCount, using: &rng), b = Int.random(in: 0..<graph.nodeCount, using: &rng)
        let p = graph.coordinate(of: RoadGraph.NodeID(UInt32(a))), q = graph.coordinate(of: RoadGraph.NodeID(UInt32(b)))
        print(String(format: "%.7f %.7f %.7f %.7f", p.latitude, p.longitude, q.latitude, q.longitude))
    }
case "route" where args.count >= 4:
    var start = clock.now
    let graph = try load(args[2])
    let loadTime = (clock.now - start).seconds
    start = clock.now
    let router = Router(graph: graph)
    let indexTime = (clock.now - start).seconds
    let pairs: [(Coordinate, Coordinate)] = try String(contentsOfFile: args[3], encoding: .utf8)
        .split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ").compactMap { Double($0) }
            guard f.count == 4 else { return nil }
            return (Coordinate(uncheckedLatitude: f[0], longitude: f[1]), Coordinate(uncheckedLatitude: f[2], longitude: f[3]))
        }
    var scratch = RouteScratch()
    var latencies: [Double] = [], snapping: [Double] = []
    var routed = 0
    var settledCounts: [Int] = []
    for (a, b) in pairs {
        let t0 = clock.now
        _ = try? router.snaps(from: a, to: b, maxDistance: .kilometers(5))
        snapping.append((clock.now - t0).seconds * 1000)
        let t1 = clock.now
        if let r = try? router.route(from: a, to: b, options: RouteOptions(), scratch: &scratch) {
            routed += 1
            settledCounts.append(r.settledEdgeCount)
        } else {
            settledCounts.append(-1)
        }
        latencies.append((clock.now - t1).seconds * 1000)
    }
    if ProcessInfo.processInfo.environment["ROUTING_BENCH_SLOWEST"] != nil {
        for i in latencies.indices.sorted(by: { latencies[$0] > latencies[$1] }).prefix(5) {
            print(String(format: "slow: %.3f ms (snapping %.3f ms, %d edges settled of %d) %@ -> %@", latencies[i], snapping[i],
                         settledCounts[i], graph.edgeCount, "\(pairs[i].0)", "\(pairs[i].1)"))
        }
    }
    latencies.sort()
    snapping.sort()
    print(String(format: "graph load %.2f ms, router init (spatial index, components) %.2f ms", loadTime * 1000, indexTime * 1000))
    print(String(format: "in-process route latency over %d pairs (%d routed): p50 %.3f ms  p95 %.3f ms  p99 %.3f ms  mean %.3f ms",
                 pairs.count, routed, percentile(latencies, 50), percentile(latencies, 95), percentile(latencies, 99),
                 latencies.reduce(0, +) / Double(max(1, latencies.count))))
    print(String(format: "  of which snapping both ends: p50 %.3f ms  p99 %.3f ms", percentile(snapping, 50), percentile(snapping, 99)))
    // The map matcher's query: candidates within 50 m of points scattered around the roads.
    var rng = SeededGenerator(state: 42)
    let probes: [Coordinate] = (0..<100_000).map { _ in
        let n = graph.coordinate(of: RoadGraph.NodeID(UInt32(Int.random(in: 0..<graph.nodeCount, using: &rng))))
        return Coordinate(uncheckedLatitude: n.latitude + Double.random(in: -0.0005...0.0005, using: &rng),
                          longitude: n.longitude + Double.random(in: -0.0005...0.0005, using: &rng))
    }
    var found = 0
    let t2 = clock.now
    for p in probes { found += router.index.edges(near: p, within: .meters(50)).count }
    let perQuery = (clock.now - t2).seconds / Double(probes.count) * 1e6
    print(String(format: "spatial index: edges within 50 m, %d queries, %.2f µs/query, %.1f candidates on average",
                 probes.count, perQuery, Double(found) / Double(probes.count)))
default:
    print("usage: RoutingBench extract FILE [profile] [OUT] | pairs GRAPH N SEED | route GRAPH PAIRS")
    exit(2)
}
