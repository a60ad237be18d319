import GeoTestSupport
import MapMatching
import RoadNetwork
import Testing

/// The mode a graph serves is read from its profile, one rule for `geo match --mode` and
/// `PositioningManager.setMapMatching(on:)`: car graphs cars, foot graphs pedestrians, a
/// bicycle graph neither.
@Test func matchMode_isTheGraphsProfile() {
    var map = AsciiRoadMap("a   b", gridSize: 25)
    map.way("ab", ["highway": "residential"])
    #expect(MapMatchMode(servedBy: map.graph(profile: .car).graph) == .car)
    #expect(MapMatchMode(servedBy: map.graph(profile: .foot).graph) == .pedestrian)
    #expect(MapMatchMode(servedBy: map.graph(profile: .bicycle).graph) == nil)
    #expect(MapMatchMode.car.profileName == Profile.car.name && MapMatchMode.pedestrian.profileName == Profile.foot.name)
}
