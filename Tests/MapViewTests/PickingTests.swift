import GeoCore
import GeoTestSupport
import MapCamera
import MapData
import MapRenderer
@testable import MapView
import OSMImport
import Testing

/// The coordinate under a screen point of the view's camera.
private func ground(_ view: TestView, _ x: Double, _ y: Double) throws -> Coordinate {
    try #require(view.camera.state.coordinate(at: ScreenPoint(x: x, y: y)))
}

private func ids(_ result: MapPickResult) -> [MapObjectID] { result.objects.map(\.id) }

/// A 20 × 20 px opaque square.
private func square() throws -> Pixmap {
    try Pixmap(width: 20, height: 20, straightRGBA: [UInt8]((0..<400).flatMap { _ in [200, 30, 30, 255] }))
}

@Test(.onOwnThread) func pick_markerAndPolyline_withinTheRadiusOnly() throws {
    let view = try TestView(camera: camera(zoom: 16), features: sampleCityIndex())
    // A 4 px line (white casing: 1 px more each side) along y = 120, from x 60 to 260.
    let line = view.add(.polyline(MapPolyline([try ground(view, 60, 120), try ground(view, 260, 120)], width: 4)))
    // A 20 px image whose bottom middle (the default anchor) stands on (100, 60): x 90…110, y 40…60.
    let marker = view.add(.marker(MapMarker(try ground(view, 100, 60), image: try square())))
    let radius = 5.0
    // The line's edge is 3 px from its centre line: hits up to 3 + 5 px away.
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 160, y: 120 + 3 + radius - 0.5), radius: radius)) == [line])
    #expect(!ids(try view.pickMapItems(at: ScreenPoint(x: 160, y: 120 + 3 + radius + 0.5), radius: radius)).contains(line))
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 160, y: 121), radius: 0)) == [line])
    // Beyond the line's round cap at x = 260.
    #expect(!ids(try view.pickMapItems(at: ScreenPoint(x: 260 + 3 + radius + 0.5, y: 120), radius: radius)).contains(line))
    // The marker's image: inside, then within 5 px below its bottom edge, then just beyond.
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 100, y: 50), radius: 0)) == [marker])
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 100, y: 60 + radius - 0.5), radius: radius)) == [marker])
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 100, y: 60 + radius + 0.5), radius: radius)).isEmpty)
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 110 + radius + 0.5, y: 50), radius: radius)).isEmpty)
    // A pin (no image) on (220, 200): its head is 22 px above the tip, 9 px in radius.
    let pin = view.add(.marker(MapMarker(try ground(view, 220, 200))))
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 220, y: 178), radius: 0)) == [pin])
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 220 + 9 + radius + 0.5, y: 178), radius: radius)).isEmpty)
}

@Test(.onOwnThread) func pick_overlappingObjects_topMostFirst() throws {
    let view = try TestView(camera: camera(zoom: 16), features: MapFeatureIndex([]))
    let centre = view.camera.state.geoCenter
    // Added first, drawn last: an image marker is over every line and area.
    let marker = view.add(.marker(MapMarker(centre, image: try square(), anchor: Point(x: 10, y: 10))))
    let polygon = view.add(.polygon(MapPolygonOverlay([try ground(view, 110, 70), try ground(view, 210, 70), try ground(view, 210, 170), try ground(view, 110, 170)])))
    let circle = view.add(.circle(MapCircle(center: centre, radius: .meters(40))))
    let line = view.add(.polyline(MapPolyline([try ground(view, 0, 120), try ground(view, 320, 120)])))
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 160, y: 120), radius: 2)) == [marker, line, circle, polygon])
    // Away from the marker and line, inside the circle and the square.
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 160, y: 140), radius: 2)) == [circle, polygon])
    // The pick follows the drawing: the newest line is drawn over the circle at (160, 120).
    view.remove(marker)
    #expect(view.snapshot().color(x: 160, y: 120) == MapPolyline([]).color)
}

@Test(.onOwnThread) func pick_polygonHole_isAMiss() throws {
    let view = try TestView(camera: camera(zoom: 16), features: MapFeatureIndex([]))
    func ring(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) throws -> [Coordinate] {
        [try ground(view, x0, y0), try ground(view, x1, y0), try ground(view, x1, y1), try ground(view, x0, y1)]
    }
    // A 120 px square with a 40 px square hole in its middle; a 2 px outline on both rings.
    let fill = Color(red: 0, green: 160, blue: 0)
    let area = view.add(.polygon(MapPolygonOverlay(try ring(100, 60, 220, 180), holes: [try ring(140, 100, 180, 140)], fill: fill, strokeWidth: 2)))
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 160, y: 120), radius: 5)).isEmpty, "the hole's middle, 20 px from its edge")
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 120, y: 120), radius: 0)) == [area], "between the rings")
    // The hole's edge is 20 px from its middle, its outline 1 px wide on each side.
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 160, y: 120), radius: 19.5)) == [area])
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 160, y: 120), radius: 18.5)).isEmpty)
    #expect(ids(try view.pickMapItems(at: ScreenPoint(x: 228.5, y: 120), radius: 8)) == [area], "7.5 px outside the outer edge")
    // Drawn as picked: the hole shows the map, the ring the fill.
    let frame = view.snapshot()
    #expect(frame.color(x: 160, y: 120) != frame.color(x: 120, y: 120))
    #expect(throws: MapViewError.self) { try view.pickMapItems(at: ScreenPoint(x: 160, y: 120), radius: -1) }
    #expect(throws: MapViewError.self) { try view.pickMapItems(at: ScreenPoint(x: .nan, y: 120), radius: 1) }
}

@Test(.onOwnThread) func pick_features_roadAndPOIWithLayerAndProperties() throws {
    let index = try sampleCityIndex()
    let view = try TestView(camera: camera(zoom: 16), features: index)
    let state = view.camera.state
    // A road of the sample city: the middle of a segment of it on screen.
    let roads = index.features.filter { f in
        guard f.layer == .transportation, let cls = f.featureClass, cls != "rail", cls != "transit",
              view.style.transportationWidth(cls, zoom: 17) != nil, case .lines = f.geometry else { return false }
        return true
    }
    var tested = 0
    for road in roads {
        guard case .lines(let lines) = road.geometry, let line = lines.first, line.count >= 2,
              let a = state.point(for: line[0].coordinate), let b = state.point(for: line[1].coordinate),
              (20...300).contains((a.x + b.x) / 2), (20...220).contains((a.y + b.y) / 2) else { continue }
        let mid = ScreenPoint(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
        let picked = try view.pickMapItems(at: mid, radius: 0)
        let hit = try #require(picked.features.first { $0.id == road.id && $0.layer == .transportation })
        #expect(hit.featureClass == road.featureClass)
        tested += 1
        if tested == 3 { break }
    }
    #expect(tested == 3, "three roads of the sample city on screen")
    // Roads hidden: none picked.
    view.style.hidden = [.roads]
    #expect(try view.pickMapItems(at: state.viewSize.center, radius: 30).features.allSatisfy { $0.layer != .transportation || ["rail", "transit"].contains($0.featureClass ?? "") })
}

@Test(.onOwnThread) func poiCategoryHidden_notPickedAndNotDrawn() throws {
    let index = try sampleCityIndex()
    let fuel = try #require(index.features.first { $0.layer == .poi && $0.featureClass == "fuel" })
    guard case .points(let ps) = fuel.geometry, let at = ps.first else { Issue.record("a fuel POI is a point"); return }
    let view = try TestView(camera: camera(at.coordinate, zoom: 16, size: (160, 120)), features: index)
    view.composesFromTiles = false
    #expect(view.isPOICategoryVisible("fuel"), "POIs show by default (the seed)")
    #expect(TestView.poiCategories.contains("fuel") && TestView.poiCategories.contains("cafe"))
    let centre = view.camera.state.viewSize.center
    #expect(try view.pickMapItems(at: centre, radius: 2).features.contains { $0.id == fuel.id && $0.layer == .poi })
    #expect(try view.pickMapItems(at: ScreenPoint(x: centre.x + 9 + 2 + 0.5, y: centre.y), radius: 2).features.allSatisfy { $0.id != fuel.id })
    view.render(at: ManualClock().now)
    let shown = try #require(view.frame)
    view.setVisibility(false, forPOICategory: "fuel")
    #expect(!view.isPOICategoryVisible("fuel") && view.isPOICategoryVisible("cafe"))
    #expect(try view.pickMapItems(at: centre, radius: 2).features.allSatisfy { $0.id != fuel.id })
    #expect(view.render(at: ManualClock().now), "a category hidden: a new frame")
    let hidden = try #require(view.frame)
    // The icon (a disc of 9 px with its rim) is gone; nothing else changed.
    var inside = 0, outside = 0
    for y in 0..<shown.height {
        for x in 0..<shown.width where shown.color(x: x, y: y) != hidden.color(x: x, y: y) {
            if centre.distance(to: ScreenPoint(x: Double(x) + 0.5, y: Double(y) + 0.5)) <= 10 { inside += 1 } else { outside += 1 }
        }
    }
    #expect(inside > 150, "most of the icon's ≈ 250 px disc changed (\(inside))")
    #expect(outside == 0)
    view.setVisibility(true, forPOICategory: "fuel")
    #expect(view.isPOICategoryVisible("fuel"))
}

@Test(.onOwnThread) func lookAt_boxWithPadding_cornersInsideThePaddedFrame() throws {
    let padding = EdgePadding(top: 40, left: 20, bottom: 10, right: 60)
    let box = try BoundingBox(south: 43.7247, west: 7.4090, north: 43.7519, east: 7.4398) // Monaco
    let corners = [(box.north, box.west), (box.north, box.east), (box.south, box.east), (box.south, box.west)].map { Coordinate(uncheckedLatitude: $0.0, longitude: $0.1) }
    for (orientation, tilt, projection) in [(0.0, 0.0, MapProjection.mercator), (30, 0, .mercator), (300, 40, .mercator), (0, 0, .globe)] {
        let view = try TestView(camera: camera(zoom: 3, orientation: orientation, tilt: tilt, size: (320, 240), projection: projection), features: MapFeatureIndex([]))
        try view.lookAt(box, padding: padding, at: ManualClock().now)
        let state = view.camera.state
        #expect(state.orientation == orientation && state.tilt == tilt, "bearing and tilt kept")
        let points = try corners.map { try #require(state.point(for: $0)) }
        for p in points {
            #expect(p.x >= padding.left - 1 && p.x <= 320 - padding.right + 1, "x \(p.x) at \(orientation)°, tilt \(tilt)")
            #expect(p.y >= padding.top - 1 && p.y <= 240 - padding.bottom + 1, "y \(p.y) at \(orientation)°, tilt \(tilt)")
        }
        // Filled: the box touches the frame on its tighter side (within 1 px).
        let w = points.map(\.x).max()! - points.map(\.x).min()!, h = points.map(\.y).max()! - points.map(\.y).min()!
        #expect(abs(w - 240) < 1 || abs(h - 190) < 1, "box \(w) × \(h) px in a 240 × 190 frame")
    }
    let view = try TestView(camera: camera(), features: MapFeatureIndex([]))
    #expect(throws: MapViewError.self) { try view.lookAt(box, padding: EdgePadding(left: 200, right: 200), at: ManualClock().now) }
    #expect(throws: MapViewError.self) { try view.lookAt(box, padding: EdgePadding(top: -1), at: ManualClock().now) }
}

@Test(.onOwnThread) func resize_keepsTheCentreAndDrawsTheNewSize() throws {
    let view = try TestView(camera: camera(zoom: 15, orientation: 20, tilt: 30), features: sampleCityIndex())
    let clock = ManualClock()
    #expect(view.render(at: clock.now))
    let before = view.camera.state
    try view.resize(to: ViewSize(width: 500, height: 300))
    let after = view.camera.state
    #expect(after.geoCenter == before.geoCenter && after.zoomLevel == before.zoomLevel)
    #expect(after.orientation == before.orientation && after.tilt == before.tilt)
    let middle = try #require(after.coordinate(at: ScreenPoint(x: 250, y: 150)))
    #expect(middle.distance(to: before.geoCenter).meters < 0.01, "the new view's middle shows the old centre")
    #expect(view.render(at: clock.now))
    #expect(view.frame?.width == 500 && view.frame?.height == 300)
    #expect(throws: MapViewError.self) { try view.resize(to: ViewSize(width: 20_000, height: 300)) }
}

@Test(.onOwnThread) func tap_tellsTheDelegateWhatWasPicked() throws {
    final class Recorder: MapViewDelegate {
        var taps: [(ScreenPoint, [MapObjectID])] = []
        func mapView<Instant: InstantProtocol>(_ mapView: MapView<Instant>, didTapAt point: ScreenPoint, picked: MapPickResult) where Instant.Duration == Duration {
            taps.append((point, picked.objects.map(\.id)))
        }
    }
    let view = try TestView(camera: camera(zoom: 16), features: MapFeatureIndex([]))
    let recorder = Recorder()
    view.delegate = recorder
    let circle = view.add(.circle(MapCircle(center: view.camera.state.geoCenter, radius: .meters(30))))
    try view.tap(at: ScreenPoint(x: 160, y: 120))
    try view.tap(at: ScreenPoint(x: 5, y: 5))
    #expect(recorder.taps.count == 2)
    #expect(recorder.taps.first?.1 == [circle] && recorder.taps.last?.1 == [])
    #expect(recorder.taps.first?.0 == ScreenPoint(x: 160, y: 120))
}
