import Foundation
import GeoCore
import GeoTestSupport
import MapMatching
import RoadNetwork
import Testing

// A car at a fork between close roads (issue 34: Kubička drive 16 showed the wrong branch for
// ten seconds at three forks). Road af runs east for 100 m; at f it parts into fg and fh, which
// run 4.8° apart to points 10 m north and 10 m south of the axis 120 m on. The car drives along
// af, then 10…30 m on along the axis, as close to one branch as to the other (jitter ±1 m),
// then along fg.
private struct ForkScene {
    var map: AsciiRoadMap
    var matcher: MapMatcher
    var frame: LocalFrame

    init() throws {
        map = AsciiRoadMap("""
                                  g
            a         f
                                  h
            """, gridSize: 10)
        map.way("af", ["highway": "primary"])
        map.way("fg", ["highway": "primary"])
        map.way("fh", ["highway": "primary"])
        matcher = try MapMatcher(graph: map.graph(profile: .car).graph)
        frame = LocalFrame(origin: map.coordinate("f")!)
    }

    /// 1 Hz, 10 m apart: 90 m before f to f on af, 10…30 m past f on the axis, then 40…120 m
    /// past f on fg (north of the axis by a twelfth of the distance).
    var fixes: [TracePoint] {
        var points: [(Double, Double)] = stride(from: -90.0, through: 0, by: 10).map { ($0, 0) }
        points += [(10, 0.8), (20, -0.9), (30, 0.7)]
        points += stride(from: 40.0, through: 120, by: 10).map { ($0, $0 / 12) }
        return points.enumerated().map { i, p in
            TracePoint(coordinate: frame.coordinate(east: p.0, north: p.1), time: Date(timeIntervalSince1970: 1_600_000_000 + Double(i)))
        }
    }

    /// The fixes on the axis past f, where the branches are equally likely.
    var undecided: Range<Int> { 10..<13 }

    func on(_ road: String, _ p: RoadPosition?) -> Bool {
        guard let nodes = p?.nodes else { return false }
        let (u, v) = (map.nodeID(road.first!), map.nodeID(road.last!))
        return nodes == (u, v) || nodes == (v, u)
    }
}

/// While the branches are equally likely the live answer stays at the fork on af (confidence
/// near 1: every hypothesis passed f), never on fh; once fg is certain (the last three fixes at
/// the latest: 90 m on, 7.5 m north of the axis) it moves onto fg without a revision; committed
/// answers equal the whole-trace match, which is on fg there.
/// Before, the undecided fixes were published on whichever branch led, at confidence ≈ 0.5.
@Test
func liveFork_undecidedBranchIsHeldAtTheFork() throws {
    let scene = try ForkScene()
    let fixes = scene.fixes
    let (published, committed) = liveAndCommitted(scene.matcher, fixes)
    let f = scene.map.coordinate("f")!
    for i in scene.undecided {
        let p = published[i].position
        let held = scene.on("af", p)
        #expect(held, "undecided fix \(i) published on \(String(describing: p?.nodes)), not held on af")
        #expect(p.map { LocalFrame.distance($0.coordinate, f) } ?? .infinity < 0.01, "undecided fix \(i) not held at f (metres)")
        #expect(published[i].confidence > 0.9, "held answer \(i) has confidence \(published[i].confidence)")
    }
    let onFH = published.indices.filter { scene.on("fh", published[$0].position) }
    #expect(onFH.isEmpty, "live answers \(onFH) were on fh")
    let lastOffFG = published.lastIndex { !scene.on("fg", $0.position) }
    #expect(lastOffFG.map { $0 < fixes.count - 3 } == true, "the live answer was not on fg at fix \(String(describing: lastOffFG))")
    #expect(published.allSatisfy { !$0.revised }, "a live answer was revised: \(published.indices.filter { published[$0].revised })")
    let offline = scene.matcher.match(fixes)
    #expect(committed == offline.points)
    #expect(scene.undecided.allSatisfy { scene.on("fg", offline.points[$0].match) })
}
