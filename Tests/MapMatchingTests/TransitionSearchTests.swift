import Foundation
import GeoCore
@testable import MapMatching
import RoadNetwork
import Testing

/// The transition search's straight-line bound (`TargetArea`) leaves out only edges no target
/// can be reached through within the limit: from every candidate of a fix to the candidates of
/// the fix 10 s later, on the densest dev Kubička network (drive 76's city centre, 5.6 MB), the
/// bounded search finds the same distance to the metre's last bit and the same edge path as a
/// search whose area covers everything (radius ∞: no edge left out) — with the matcher's limit,
/// and with each target's own distance as the limit (the target just within it, where a bound
/// that ignored how far the candidates lie from the fix would cut its route).
@Test func transitionSearch_targetAreaKeepsEveryDistanceAndPath() throws {
    let drive = try #require(try KubickaDrive.load("00000076"))
    let matcher = try MapMatcher(graph: drive.graph)
    var session = matcher.session()
    let p = matcher.parameters
    var bounded = TransitionSearch(), full = TransitionSearch()
    var reached = 0, unreached = 0, differences: [String] = []
    for i in stride(from: 0, to: drive.track.count - 10, by: 23) {
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
        let positions = targets.map(\.position)
        func search(_ s: inout TransitionSearch, from source: EdgePosition, within a: TargetArea, limit: Double) {
            positions.withUnsafeBufferPointer { t in
                s.run(graph: matcher.graph, rules: matcher.rules, from: source, to: t, within: a, limit: limit,
                      uTurnPenalty: p.uTurnPenalty.meters, backwardTolerance: p.backwardTolerance.meters,
                      isSettled: { _, _ in false }, settledBeyond: { _ in .infinity })
            }
        }
        for source in sources {
            search(&full, from: source.position, within: everywhere, limit: limit)
            let answers = targets.indices.map { (full.distances[$0], full.path(to: $0, targetEdge: targets[$0].position.edge)) }
            search(&bounded, from: source.position, within: area, limit: limit)
            for k in targets.indices {
                if answers[k].0.isFinite { reached += 1 } else { unreached += 1 }
                if bounded.distances[k] != answers[k].0 || bounded.path(to: k, targetEdge: targets[k].position.edge) != answers[k].1 {
                    differences.append("fix \(i) → \(i + 10), target \(k): \(bounded.distances[k]) m, unbounded \(answers[k].0) m")
                }
            }
            for k in targets.indices where answers[k].0.isFinite && answers[k].0 > 0 {
                search(&bounded, from: source.position, within: area, limit: answers[k].0)
                if bounded.distances[k] != answers[k].0 || bounded.path(to: k, targetEdge: targets[k].position.edge) != answers[k].1 {
                    differences.append("fix \(i) → \(i + 10), target \(k) at the limit: \(bounded.distances[k]) m, unbounded \(answers[k].0) m")
                }
            }
        }
    }
    #expect(differences.isEmpty, "\(differences.count) differ, e.g. \(differences.prefix(3))")
    // Not vacuous: many targets reached, and many out of reach within the limit (the searches
    // the bound shortens).
    #expect(reached > 1_000 && unreached > 100, "reached \(reached), out of reach \(unreached)")
}
