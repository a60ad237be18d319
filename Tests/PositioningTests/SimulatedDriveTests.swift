import Foundation
import Testing
import GeoCore
import GeoTestSupport
import Positioning
import RoadNetwork
import TrackFiltering

// SimulatedDrive on a real graph: a noisy drive along one road of an ASCII map, through the
// automotiveNavigation preset and live car matching, on a manual clock (no lost-position
// timeout fires while the source runs as fast as possible).

/// Two parallel east–west roads 60 m apart, joined at both ends; the drive goes along the
/// north one, a to b.
private func scene() -> (graph: RoadGraph, route: [Coordinate], south: Coordinate) {
    var map = AsciiRoadMap("""
        a                   b


        c                   d
        """, gridSize: 20)
    map.way("ab", ["highway": "primary"])
    map.way("cd", ["highway": "primary"])
    map.way("ac", ["highway": "residential"])
    map.way("bd", ["highway": "residential"])
    return (map.graph(profile: .car).graph, [map.coordinate("a")!, map.coordinate("b")!], map.coordinate("c")!)
}

@Test func simulatedDrive_alongARoad_deliversMatchedUpdatesOnTheRoute() async throws {
    let (graph, route, south) = scene()
    let source = try RouteSimulationSource(polyline: route, movementSpeed: .metersPerSecond(10), updateInterval: .seconds(1),
                                           noise: .init(sigma: .meters(3), seed: 7), pacing: .asFastAsPossible,
                                           startDate: Date(timeIntervalSince1970: 1_790_000_000))
    let drive = try await SimulatedDrive.run(source, matchingOn: graph, clock: ManualClock())
    #expect(drive.route == route)
    // 400 m at 10 m/s, a fix a second: one at each whole second from the start to the end (41),
    // give or take the end point.
    let length = polylineLength(route).meters
    #expect(abs(drive.filterReport.received - (Int(length / 10) + 1)) <= 1)
    let updates = drive.updates
    // The preset's warm-up and distance filter drop some fixes, never most of them; every
    // update delivered was accepted by the filter.
    #expect(updates.count >= drive.filterReport.received / 2)
    #expect(updates.count <= drive.filterReport.accepted)
    // The fixes are noisy (3 m per axis), their matches lie on the driven road: at least 90 %
    // of the updates within 1 m of it, none on the parallel road 60 m south.
    #expect(updates.contains { drive.distanceFromRoute($0.rawPosition.coordinate).meters > 1 })
    #expect(drive.updatesMatchedOntoRoute(within: .meters(1)) * 10 >= updates.count * 9)
    #expect(updates.allSatisfy { u in u.mapMatchedPosition.map { drive.distanceFromRoute($0.coordinate).meters < 30 } ?? true })
    // Updates come in time order; the average speed is the simulated 10 m/s within 1.5 m/s.
    #expect(zip(updates, updates.dropFirst()).allSatisfy { $0.rawPosition.timestamp < $1.rawPosition.timestamp })
    #expect(abs((drive.averageSpeed?.metersPerSecond ?? 0) - 10) < 1.5)
    // A point on the parallel road is its 60 m away from the route (within 0.5 m).
    #expect(abs(drive.distanceFromRoute(south).meters - 60) < 0.5)
}
