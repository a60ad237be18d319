import Foundation
import GeoCore
import GeoTestSupport
import MapMatching
import RoadNetwork
import Testing

// The candidate radius and the off-road state describe one boundary (issue 34): a road the
// off-road state does not beat must be a candidate. With candidates within max(4 σ, 50 m) and
// the off-road state winning only beyond 60 m, a fix 50–60 m from its road had no candidate and
// was published as off-road (dev Kubička drive 66: 188 such fixes).

/// A 1 Hz drive beside a lone 1.5 km road, with 2 m noise and no accuracy (σ 10 m, the
/// default): for 600 m its fixes lie 55 m north of the road (a road drawn 55 m from where it
/// runs, or multipath along a wall), nearer than the off-road crossover (60 m), so at least
/// 95 % of them are live on the road and the whole-track match keeps them on it; then 80 m
/// north (a service road the map lacks), beyond the road's reach (√(60² + 2·10²·ln 1000) =
/// 70.6 m), where at most 5 % are live on the road: the wider radius does not pull far fixes
/// onto it.
@Test
func candidateRadius_fixesBetweenFourSigmaAndTheOffRoadCrossover_areMatched() throws {
    var map = AsciiRoadMap("a              b", gridSize: 100)
    map.way("ab", ["highway": "primary"])
    let matcher = try MapMatcher(graph: map.graph(profile: .car).graph)
    let frame = LocalFrame(origin: map.coordinate("a")!)
    let path = [(100.0, 55.0), (700, 55), (720, 80), (1400, 80)].map { frame.coordinate(east: $0.0, north: $0.1) }
    let fixes = drive(path, speed: 14, noise: 2)
    let near = fixes.indices.filter { frame.point(for: fixes[$0].coordinate).east < 690 }
    let far = fixes.indices.filter { frame.point(for: fixes[$0].coordinate).east > 760 }
    #expect(near.count > 35 && far.count > 35)
    let ab = (map.nodeID("a"), map.nodeID("b"))
    func onAB(_ p: RoadPosition?) -> Bool { p.map { $0.nodes == ab || $0.nodes == (ab.1, ab.0) } ?? false }
    var live = OnlineMatcher(matcher: matcher)
    var published: [LiveMatch] = []
    for fix in fixes {
        published.append(live.match(fix))
        _ = live.takeCommitted()
    }
    let nearOn = near.filter { onAB(published[$0].position) }.count
    let farOn = far.filter { published[$0].position != nil }.count
    #expect(Double(nearOn) >= 0.95 * Double(near.count), "\(nearOn) of \(near.count) fixes 55 m away live on the road")
    #expect(Double(farOn) <= 0.05 * Double(far.count), "\(farOn) of \(far.count) fixes 80 m away live on the road")
    let offline = matcher.match(fixes)
    #expect(near.filter { onAB(offline.points[$0].match) }.count == near.count)
}
