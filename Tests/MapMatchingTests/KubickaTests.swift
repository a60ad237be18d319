import Foundation
import GeoCore
import GeoTestSupport
import MapMatching
import OSMImport
import RoadNetwork
import Testing

/// One drive of Kubička et al. (2015)'s map-matching benchmark (`traces/kubicka/ID`): its network
/// converted to OSM XML by the rules of `../shared/checks/kubicka.py` (node line i → OSM node
/// i + 1, a pair of opposite arcs → one two-way way, a lone arc → a `oneway=yes` way, all
/// `highway=unclassified`) and read through the real import path, the GPS track, and the
/// hand-corrected true route.
struct KubickaDrive {
    var nodes: [Coordinate]
    var arcs: [(Int, Int)]
    var track: [TracePoint]
    var route: [Int]
    var graph: RoadGraph

    /// nil outside CI when the shared data is missing. `keepArc` filters the arcs the graph is
    /// built from (by index; `nodes`, `arcs` and `route` stay whole, for scoring).
    static func load(_ id: String, keepArc: (Int) -> Bool = { _ in true }) throws -> KubickaDrive? {
        guard let dir = try Fixtures.url("traces/kubicka/\(id)") else { return nil }
        func rows(_ ext: String) throws -> [[Substring]] {
            try String(contentsOf: dir.appendingPathComponent("\(id).\(ext)"), encoding: .utf8)
                .split(separator: "\n").map { $0.split(whereSeparator: { $0 == "\t" || $0 == " " }) }.filter { !$0.isEmpty }
        }
        let nodes = try rows("nodes").map { Coordinate(uncheckedLatitude: Double($0[1])!, longitude: Double($0[0])!) }
        let arcs = try rows("arcs").map { (Int($0[0])!, Int($0[1])!) }
        let track = try rows("track").map {
            TracePoint(coordinate: Coordinate(uncheckedLatitude: Double($0[1])!, longitude: Double($0[0])!),
                       time: Date(timeIntervalSince1970: 1_433_116_800 + Double($0[2])!))
        }
        let route = try rows("route").map { Int($0[0])! }
        let graph = try withTemporaryDirectory { tmp in
            let url = tmp.appendingPathComponent("net.osm")
            let kept = arcs.indices.filter(keepArc).map { arcs[$0] }
            try osmXML(nodes: nodes, arcs: kept).write(to: url, atomically: true, encoding: .utf8)
            return try RoadGraphExtractor.extract(from: url, profile: .car).graph
        }
        return KubickaDrive(nodes: nodes, arcs: arcs, track: track, route: route, graph: graph)
    }

    static func osmXML(nodes: [Coordinate], arcs: [(Int, Int)]) -> String {
        struct Arc: Hashable { var a: Int, b: Int }
        let have = Set(arcs.map { Arc(a: $0.0, b: $0.1) })
        var done = Set<Arc>()
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\">\n"
        for (i, c) in nodes.enumerated() {
            s += String(format: "<node id=\"%d\" version=\"1\" lat=\"%.7f\" lon=\"%.7f\"/>\n", i + 1, c.latitude, c.longitude)
        }
        var way = 0
        for (a, b) in arcs where a != b && !done.contains(Arc(a: a, b: b)) {
            way += 1
            let twoWay = have.contains(Arc(a: b, b: a))
            done.insert(Arc(a: a, b: b))
            if twoWay { done.insert(Arc(a: b, b: a)) }
            s += "<way id=\"\(way)\" version=\"1\"><nd ref=\"\(a + 1)\"/><nd ref=\"\(b + 1)\"/><tag k=\"highway\" v=\"unclassified\"/>"
                + (twoWay ? "" : "<tag k=\"oneway\" v=\"yes\"/>") + "</way>\n"
        }
        return s + "</osm>\n"
    }

    /// Length-weighted fraction of the true route the matched node sequences cover (by
    /// directed arcs, counted with multiplicity), over the longer of truth and match: the
    /// score `kubicka.py` computes.
    func correctFraction(_ sequences: [[Int64]]) -> Double {
        struct Arc: Hashable { var a: Int, b: Int }
        func length(_ arc: Arc) -> Double { LocalFrame.distance(nodes[arc.a], nodes[arc.b]) }
        var truth: [Arc: Int] = [:]
        for r in route { truth[Arc(a: arcs[r].0, b: arcs[r].1), default: 0] += 1 }
        var ours: [Arc: Int] = [:]
        for seq in sequences {
            for (u, v) in zip(seq, seq.dropFirst()) where u != v {
                ours[Arc(a: Int(u) - 1, b: Int(v) - 1), default: 0] += 1
            }
        }
        let lt = truth.reduce(0.0) { $0 + length($1.key) * Double($1.value) }
        let lo = ours.reduce(0.0) { $0 + length($1.key) * Double($1.value) }
        let common = truth.reduce(0.0) { $0 + length($1.key) * Double(min($1.value, ours[$1.key] ?? 0)) }
        return common / max(lt, lo, 1e-9)
    }

    /// Whether the segment between two OSM node ids is an arc of the true route (either way).
    func isOnRoute(_ nodes: (Int64, Int64)) -> Bool {
        route.contains { r in
            let (a, b) = arcs[r]
            return (a + 1 == nodes.0 && b + 1 == nodes.1) || (a + 1 == nodes.1 && b + 1 == nodes.0)
        }
    }
}

/// Three real drives (1305–1450 fixes at about 1 Hz) through the real import path: the matched
/// path covers at least 98 % of the hand-corrected route by length (map-matching-2 scores
/// 98.3–99.5 % on them, OSRM 66.7–95.8 %).
@Test(.onOwnThread, arguments: ["00000006", "00000016", "00000046"])
func kubicka_correctFractionFloor(_ id: String) throws {
    guard let drive = try KubickaDrive.load(id) else { return }
    let result = try MapMatcher(graph: drive.graph).match(drive.track)
    let fraction = drive.correctFraction(result.subMatchings.map(\.nodeIDs))
    #expect(fraction >= 0.98, "drive \(id): correct fraction \(fraction)")
}

/// The online matcher on real drives: at least 95 % of fixes are matched live onto the true
/// route, and its committed answers equal the whole-track match exactly. Drive 66 (98.7 %) has
/// 187 fixes 52–59 m from its road, between 4 σ and the off-road crossover: with candidates
/// only within 50 m they were published off-road (94.4 %).
@Test(.onOwnThread, arguments: ["00000006", "00000046", "00000066"])
func kubicka_onlineCommitsEqualOffline(_ id: String) throws {
    guard let drive = try KubickaDrive.load(id) else { return }
    let matcher = try MapMatcher(graph: drive.graph)
    var live = OnlineMatcher(matcher: matcher)
    var onRoute = 0
    var points: [MatchedPoint] = []
    var subMatchings: [SubMatching] = []
    func take() {
        let (p, pieces) = live.takeCommitted()
        points += p
        for piece in pieces {
            if piece.index < subMatchings.count { subMatchings[piece.index].append(piece) } else { subMatchings.append(piece) }
        }
    }
    for fix in drive.track {
        if let p = live.match(fix).position, drive.isOnRoute(p.nodes) { onRoute += 1 }
        take()
    }
    live.finish()
    take()
    let fraction = Double(onRoute) / Double(drive.track.count)
    #expect(fraction >= 0.95, "drive \(id): \(fraction) of fixes live on the true route")
    let offline = matcher.match(drive.track)
    #expect(points == offline.points)
    #expect(subMatchings.map(\.nodeIDs) == offline.subMatchings.map(\.nodeIDs))
    #expect(subMatchings.map(\.edges) == offline.subMatchings.map(\.edges))
}
