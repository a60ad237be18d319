import Testing
import GeoTestSupport
import MapMatching
import Positioning
import RoadNetwork

// PositioningManager.setMapMatching(on:): the mode comes from the graph's profile.

/// One residential street with a footway beside it, for every profile.
private func street() -> AsciiRoadMap {
    var map = AsciiRoadMap("""
        a     b
        c     d
        """, gridSize: 20)
    map.way("ab", ["highway": "residential"])
    map.way("cd", ["highway": "footway"])
    return map
}

@Test func setMapMatching_carGraphMatchesCars_footGraphPedestrians_otherProfilesNothing() async throws {
    let map = street()
    let car = PositioningManager(source: nil, clock: ManualClock())
    #expect(try await car.setMapMatching(on: map.graph(profile: .car).graph) == .car)
    #expect(await car.mapMatchingEnabled)
    #expect(await car.mapMatchMode == .car)

    let foot = PositioningManager(source: nil, clock: ManualClock())
    #expect(try await foot.setMapMatching(on: map.graph(profile: .foot).graph) == .pedestrian)
    #expect(await foot.mapMatchingEnabled)
    #expect(await foot.mapMatchMode == .pedestrian)

    let bicycle = PositioningManager(source: nil, clock: ManualClock())
    #expect(try await bicycle.setMapMatching(on: map.graph(profile: .bicycle).graph) == nil)
    #expect(await !bicycle.mapMatchingEnabled)
}
