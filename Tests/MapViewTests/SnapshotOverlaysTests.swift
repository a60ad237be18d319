import GeoCore
import MapCamera
import MapRenderer
import MapView
import Testing

// The legacy snapshot's switches as a painter style, and its overlays added to a view.

@Test func legacySwitches_dayStyle_showsOnlyTheNamedClasses_orAllForAll() {
    let named = MapRenderer.MapStyle.day(hiding: [.water, .buildings], poiClasses: ["cafe"], pedestrianClasses: [], language: "ja")
    #expect(named.hidden == [.water, .buildings])
    #expect(!named.showsAllPOIs && named.shownPOIClasses == ["cafe"])
    #expect(!named.showsAllPedestrianFeatures && named.shownPedestrianClasses.isEmpty)
    #expect(named.language == "ja")
    let all = MapRenderer.MapStyle.day(hiding: [], poiClasses: ["all"], pedestrianClasses: ["all"], language: nil)
    #expect(all.showsAllPOIs && all.showsAllPedestrianFeatures && all.hidden.isEmpty && all.language == nil)
    // Nothing named: no POIs, unlike the plain day style, which shows them all.
    #expect(!MapRenderer.MapStyle.day(hiding: [], poiClasses: [], pedestrianClasses: [], language: nil).showsAllPOIs)
    #expect(MapRenderer.MapStyle.day.showsAllPOIs)
}

@Test func overlays_linesOfTwoOrMorePoints_thenThePins_inOrder() throws {
    let view = try TestView(camera: camera(), features: MapFeatureIndex([]))
    let a = try Coordinate(latitude: 48, longitude: 11), b = try Coordinate(latitude: 48.001, longitude: 11.001)
    view.addOverlays(lines: [[a, b], [a], [b, a, b]], markers: [b, a])
    let kinds = view.mapObjects.map { object -> String in
        switch object {
        case .polyline(let line): "line \(line.coordinates.count)"
        case .marker(let marker): "pin \(marker.coordinate == b ? "b" : "a")"
        default: "other"
        }
    }
    // The one-point line is no line: left out.
    #expect(kinds == ["line 2", "line 3", "pin b", "pin a"])
}
