import Foundation
import GeoCore
import GeoTestSupport
import MapMatching
import RoadNetwork
import Testing

// The live answer's bounded regret (issue 34): the trap of Kubička drive 16 drawn small. A road
// ab…e runs east; a second road branches off it at j, runs 30 m north of it and parallel for
// 570 m (c–d), then turns away north (d–f) and never meets ab again. For about a minute the
// fixes sit 1 m from the parallel road (as a receiver's do when the map's geometry or a
// multipath bias puts them there), then they come back onto ab. The whole-trace match keeps ab
// throughout (the parallel chain cannot come back), so by the return the ab chain is about
// 55 fixes × 4.2 nats ≈ 230 nats behind in the filter: without a bound on that regret the live
// answer stays on the parallel road (and then off-road) for some fifteen fixes after the
// return. With the live recursion's restart at 18.4 nats it is back on ab within five: a fix
// on ab is ≥ 30 m from the parallel road, ≥ 4.5 nats less likely there at σ 10 m (no accuracy
// reported), so four fixes pay the restart.

private struct ParallelScene {
    var map: AsciiRoadMap
    var matcher: MapMatcher
    var frame: LocalFrame

    init() throws {
        map = AsciiRoadMap("""
                                          f








                       c                  d
            a         j                                       e
            """, gridSize: 30)
        map.way("aje", ["highway": "primary"])
        map.way("jcdf", ["highway": "primary"])
        matcher = try MapMatcher(graph: map.graph(profile: .car).graph)
        frame = LocalFrame(origin: map.coordinate("a")!)
    }

    /// Whether a live or committed position lies on ab…e (either of its segments, either way).
    func onMainRoad(_ p: RoadPosition?) -> Bool {
        guard let nodes = p?.nodes else { return false }
        let (a, j, e) = (map.nodeID("a"), map.nodeID("j"), map.nodeID("e"))
        return [(a, j), (j, a), (j, e), (e, j)].contains { $0 == nodes }
    }

    /// Fixes at 1 Hz, 10 m/s, 2 m noise: along ab to 330 m east of a, 29 m north of it (1 m
    /// from the parallel road) from 340 m to 900 m, back on ab from 910 m to 1500 m; `startOff`:
    /// the drive begins 200 m north of a in a car park and reaches ab 40 m east of a; `gap`:
    /// the fixes of these seconds are dropped.
    func fixes(startOff: Bool = false, gap: Range<Double>? = nil) -> [TracePoint] {
        var path: [(Double, Double)] = [(0, 0), (330, 0), (340, 29), (900, 29), (910, 0), (1500, 0)]
        if startOff { path[0] = (40, 0); path.insert((0, 200), at: 0) }
        let all = drive(path.map { frame.coordinate(east: $0.0, north: $0.1) }, speed: 10, noise: 2)
        guard let gap else { return all }
        let t0 = all[0].time!.timeIntervalSince1970
        return all.filter { !gap.contains($0.time!.timeIntervalSince1970 - t0) }
    }

    func east(_ fix: TracePoint) -> Double { frame.point(for: fix.coordinate).east }
    func north(_ fix: TracePoint) -> Double { frame.point(for: fix.coordinate).north }
}

/// After the return to ab (fixes more than 920 m east of a, south of the parallel road), at
/// most 5 fixes are not live on ab and at least 95 % are; the jump back is reported by
/// `revised`; the committed answers equal the whole-trace match, which is on ab there. With a
/// 30 s gap (1 Hz fixes dropped for 30 s) just after the return, the same holds. Before the
/// live recursion's restart, 11 fixes of the return were not live on ab (the gap variant and
/// the start off the graph below passed then too: floors, not reproductions).
@Test(arguments: [nil, 95.0 ..< 125.0] as [Range<Double>?])
func liveRestart_parallelRoadForAMinute_liveReturnsWithinFiveFixes(_ gap: Range<Double>?) throws {
    let scene = try ParallelScene()
    let fixes = scene.fixes(gap: gap)
    let (published, committed) = liveAndCommitted(scene.matcher, fixes)
    let back = fixes.indices.filter { scene.east(fixes[$0]) > 920 }
    #expect(back.count > 25)
    let misses = back.filter { !scene.onMainRoad(published[$0].position) }
    #expect(misses.count <= 5, "gap \(String(describing: gap)): fixes \(misses) after the return not live on ab")
    #expect(Double(back.count - misses.count) >= 0.95 * Double(back.count))
    let firstOn = back.first { scene.onMainRoad(published[$0].position) }
    #expect(firstOn.map { published[$0].revised } == true, "the jump back onto ab is not reported as revised")
    let offline = scene.matcher.match(fixes)
    #expect(committed == offline.points)
    #expect(back.allSatisfy { scene.onMainRoad(offline.points[$0].match) })
}

/// The minute by the parallel road: the live answer follows the road the fixes sit on (no
/// history can tell it is not driven), the committed answer keeps ab, which the whole drive
/// explains; so live and committed differ there, and agree again after the return.
@Test
func liveRestart_parallelRoadForAMinute_committedKeepsTheMainRoad() throws {
    let scene = try ParallelScene()
    let fixes = scene.fixes()
    let (published, committed) = liveAndCommitted(scene.matcher, fixes)
    let beside = fixes.indices.filter { (450...850).contains(scene.east(fixes[$0])) }
    #expect(beside.count > 30)
    #expect(beside.filter { scene.onMainRoad(committed[$0].match) }.count == beside.count)
    #expect(beside.filter { !scene.onMainRoad(published[$0].position) && published[$0].position != nil }.count >= beside.count * 9 / 10)
}

/// A drive that starts 200 m off the graph (a car park) and joins ab: once its fixes are
/// within 10 m of ab, at most 3 are not live on it before it turns off towards the parallel
/// road; committed answers equal the whole-trace match.
@Test
func liveRestart_driveStartingOffTheGraph_liveFindsTheRoad() throws {
    let scene = try ParallelScene()
    let fixes = scene.fixes(startOff: true)
    let (published, committed) = liveAndCommitted(scene.matcher, fixes)
    let near = fixes.indices.filter { abs(scene.north(fixes[$0])) < 10 && (60...300).contains(scene.east(fixes[$0])) }
    #expect(near.count > 15)
    let misses = near.filter { !scene.onMainRoad(published[$0].position) }
    #expect(misses.count <= 3, "fixes \(misses) near ab not live on it")
    #expect(committed == scene.matcher.match(fixes).points)
}
