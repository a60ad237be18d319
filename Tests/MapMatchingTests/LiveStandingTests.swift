import Foundation
import GeoCore
import GeoTestSupport
import MapMatching
import RoadNetwork
import Testing

// A car standing still counts as evidence for the live answer (issue 34; Kubička drive 16
// stood 17 s 0.2 m from its road while the live answer stayed on a road 19 m away). Road fe
// runs east; a second road leaves f north-east and runs parallel 20 m north of it (g–h). For
// 130 m the fixes sit 11 m north of fe (9 m from gh: the filter prefers gh by 0.2 nats a fix
// at σ 10 m), then the car stands for 30 s with its fixes 3 m from fe and 17 m from gh (each
// 1.4 nats likelier on fe), within the 10 m `minimumStep` of the last routed fix, so none is
// routed; then it drives on along fe.

private struct StandingScene {
    var map: AsciiRoadMap
    var matcher: MapMatcher
    var frame: LocalFrame

    init() throws {
        map = AsciiRoadMap("""
              g                                     h

            f                                       e
            """, gridSize: 10)
        map.way("fe", ["highway": "primary"])
        map.way("fgh", ["highway": "primary"])
        matcher = try MapMatcher(graph: map.graph(profile: .car).graph)
        frame = LocalFrame(origin: map.coordinate("f")!)
    }

    /// 1 Hz: 30…150 m east of f at 11 m north (13 fixes), standing at 152 m east, 3 m north
    /// (30 fixes), then 160…350 m east on fe.
    var fixes: [TracePoint] {
        var points: [(Double, Double)] = stride(from: 30.0, through: 150, by: 10).map { ($0, 11) }
        points += Array(repeating: (152, 3), count: 30)
        points += stride(from: 160.0, through: 350, by: 10).map { ($0, 0) }
        return points.enumerated().map { i, p in
            TracePoint(coordinate: frame.coordinate(east: p.0, north: p.1), time: Date(timeIntervalSince1970: 1_600_000_000 + Double(i)))
        }
    }

    /// The indices of the standing fixes.
    var standing: Range<Int> { 13..<43 }

    func onFE(_ p: RoadPosition?) -> Bool {
        guard let nodes = p?.nodes else { return false }
        let (f, e) = (map.nodeID("f"), map.nodeID("e"))
        return nodes == (f, e) || nodes == (e, f)
    }
}

/// While the car stands, the live answer moves onto fe within three fixes and stays there;
/// the move is reported as `revised`; committed answers equal the whole-trace match, which is
/// on fe at the stop. Before every fix counted, the live answer stayed on gh for the whole
/// stop (each standing fix only replaced the last routed fix's emission) and came back to fe
/// two fixes after the car drove on.
@Test
func liveStanding_fixesOfAStopCountForTheLiveAnswer() throws {
    let scene = try StandingScene()
    let fixes = scene.fixes
    let (published, committed) = liveAndCommitted(scene.matcher, fixes)
    #expect(!scene.onFE(published[scene.standing.lowerBound - 1].position), "the approach is live on gh (the scene's premise)")
    let misses = scene.standing.filter { !scene.onFE(published[$0].position) }
    #expect(misses.count <= 3 && misses.allSatisfy { $0 < scene.standing.lowerBound + 3 }, "standing fixes \(misses) not live on fe")
    let firstOn = scene.standing.first { scene.onFE(published[$0].position) }
    #expect(firstOn.map { published[$0].revised } == true, "the move onto fe is not reported as revised")
    let offline = scene.matcher.match(fixes)
    #expect(committed == offline.points)
    #expect(scene.standing.allSatisfy { scene.onFE(offline.points[$0].match) })
}
