import Foundation
import GeoCore
@testable import MapMatching
import RoadNetwork
import Testing

/// The transition search's straight-line bound (`TargetArea`) leaves out only edges no target
/// can be reached through within the limit: from every candidate of a fix to the candidates of
/// the fix 10 s later, on the densest dev Kubička network (drive 76's city centre, 5.6 MB), the
/// bounded search finds the same distance to the metre's last bit and the same edge path as a
/// search whose area covers everything (radius ∞: no edge left out).
@Test func transitionSearch_targetAreaKeepsEveryDistanceAndPath() throws {
    let drive = try #require(try KubickaDrive.load("00000076"))
    let matcher = try MapMatcher(graph: drive.graph)
    let session = matcher.session()
    let p = matcher.parameters
    var bounded = TransitionSearch(), full = TransitionSearch()
    var reached = 0, unreached = 0, differences: [String] = []
    for i in stride(from: 0, to: drive.track.count - 10, by: 9) {
        let from = drive.track[i], to = drive.track[i + 10]
        let sigma = p.sigma(accuracy: nil), radius = p.radius(sigma: sigma)
        let sources = session.candidates(near: from.coordinate, radius: radius, sigma: sigma)
        let targets = session.candidates(near: to.coordinate, radius: radius, sigma: sigma)
        guard !targets.isEmpty else { continue }
        let gc = LocalFrame.distance(from.coordinate, to.coordinate)
        let limit = session.transitionLimit(fromTime: from.time?.timeIntervalSince1970, radius: radius,
                                            toTime: to.time?.timeIntervalSince1970, radius: radius, greatCircle: gc)
        let area = TargetArea(center: to.coordinate, radius: targets.reduce(0) { max($0, $1.distance) })
        let everywhere = TargetArea(center: to.coordinate, radius: .infinity)
        for source in sources {
            targets.map(\.position).withUnsafeBufferPointer { t in
                bounded.run(graph: matcher.graph, rules: matcher.rules, from: source.position, to: t, within: area, limit: limit,
                            uTurnPenalty: p.uTurnPenalty.meters, backwardTolerance: p.backwardTolerance.meters,
                            isSettled: { _, _ in false }, settledBeyond: { _ in .infinity })
                full.run(graph: matcher.graph, rules: matcher.rules, from: source.position, to: t, within: everywhere, limit: limit,
                         uTurnPenalty: p.uTurnPenalty.meters, backwardTolerance: p.backwardTolerance.meters,
                         isSettled: { _, _ in false }, settledBeyond: { _ in .infinity })
            }
            for k in targets.indices {
                let edge = targets[k].position.edge
                if full.distances[k].isFinite { reached += 1 } else { unreached += 1 }
                if bounded.distances[k] != full.distances[k] || bounded.path(to: k, targetEdge: edge) != full.path(to: k, targetEdge: edge) {
                    differences.append("fix \(i) → \(i + 10), target \(k): \(bounded.distances[k]) m, unbounded \(full.distances[k]) m")
                }
            }
        }
    }
    #expect(differences.isEmpty, "\(differences.count) differ, e.g. \(differences.prefix(3))")
    // Not vacuous: many targets reached, and many out of reach within the limit (the searches
    // the bound shortens).
    #expect(reached > 1_000 && unreached > 100, "reached \(reached), out of reach \(unreached)")
}
