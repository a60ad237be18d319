import Foundation
import GeoCore
import GeoTestSupport
import MapCamera
import MapData
import MapRenderer
@testable import MapView
import OSMImport
import Testing

#if canImport(Glibc)
import Glibc
#endif
import GeoBase

typealias TestView = MapView<ManualClock.Instant>

/// The sample city's map features, written as a real `.osm.pbf` and read back.
func sampleCityIndex() throws -> MapFeatureIndex {
    try withTemporaryDirectory { dir in
        let pbf = dir.appendingPathComponent("city.osm.pbf")
        try SampleCity.generate().write(to: pbf)
        return MapFeatureIndex(try MapDataExtraction.read(url: pbf).features)
    }
}

/// Natural Earth's countries and cities from LOCATIONKIT_DATA (nil outside CI when absent).
func worldBase() throws -> WorldBase? {
    guard let countries = try Fixtures.url("world/ne_110m_countries.geojson"),
          let cities = try Fixtures.url("world/ne_cities.geojson") else { return nil }
    return try WorldBase(countriesGeoJSON: Data(contentsOf: countries), citiesGeoJSON: Data(contentsOf: cities))
}

func camera(_ centre: Coordinate = SampleCity.center, zoom: Double = 15, orientation: Double = 0, tilt: Double = 0,
            size: (Double, Double) = (320, 240), projection: MapProjection = .mercator) throws -> CameraState {
    try CameraState(geoCenter: centre, zoomLevel: zoom, orientation: orientation, tilt: tilt,
                    viewSize: ViewSize(width: size.0, height: size.1), projection: projection)
}

@Test(.onOwnThread) func render_drawsOnlyWhenSomethingChanged() throws {
    let clock = ManualClock()
    let view = try TestView(camera: camera(), features: sampleCityIndex())
    #expect(view.render(at: clock.now))
    #expect(!view.render(at: clock.now), "nothing changed: no frame")
    clock.advance(by: .seconds(1))
    #expect(!view.render(at: clock.now), "time alone changes nothing")
    #expect(view.framesDrawn == 1)
    view.camera.beginGesture()
    view.camera.apply(.pan(from: ScreenPoint(x: 100, y: 100), to: ScreenPoint(x: 140, y: 100)), at: clock.now)
    #expect(view.render(at: clock.now), "a pan moves the camera: a new frame")
    let id = view.add(.circle(MapCircle(center: SampleCity.center, radius: .meters(50))))
    #expect(view.render(at: clock.now), "an object added: a new frame")
    #expect(view.remove(id) && !view.remove(id))
    #expect(view.render(at: clock.now))
    #expect(view.framesDrawn == 4)
    #expect(view.frame?.width == 320 && view.frame?.height == 240)
}

@Test(.onOwnThread) func renderAllowedAndInactive_pauseRendering_snapshotStillDraws() throws {
    let clock = ManualClock()
    let view = try TestView(camera: camera(), features: sampleCityIndex())
    view.composesFromTiles = false // frames drawn as the snapshot is (TileCompositionTests compare the two ways)
    view.renderAllowed = false
    #expect(!view.render(at: clock.now) && view.frame == nil)
    view.renderAllowed = true
    view.isActive = false
    #expect(!view.render(at: clock.now) && view.frame == nil)
    let shot = view.snapshot()
    view.isActive = true
    #expect(view.render(at: clock.now))
    #expect(view.frame == shot, "the snapshot is the frame the view draws")
}

@Test(.onOwnThread) func zeroOrHugeView_isRejected() throws {
    #expect(throws: MapViewError.self) { try TestView(camera: camera(size: (20_000, 10)), features: MapFeatureIndex([])) }
    #expect(throws: MapCameraError.self) { try ViewSize(width: 0, height: 0) }
}

/// The globe straight down is a disk: its on-screen radius is the focal length (the camera's
/// distance to the centre, d) times the tangent of the sphere's angular radius asin(r / (r + d)).
@Test(.onOwnThread) func globe_isADiskInSpace_ofThePerspectiveRadius() throws {
    let state = try camera(Coordinate(latitude: -15, longitude: 140), zoom: 0.5, size: (600, 600), projection: .globe)
    let view = try TestView(camera: state, features: MapFeatureIndex([]), worldBase: try worldBase() ?? .empty)
    let shot = view.snapshot()
    #expect(shot.color(x: 2, y: 2) == WorldBase.space)
    #expect(shot.color(x: 300, y: 300) != WorldBase.space)
    let r = state.globeRadius, d = state.cameraToCenterDistance
    let expected = d * tan(asin(r / (r + d)))
    // Walk right from the centre until space: the limb, within a pixel (anti-aliased edge).
    var x = 300
    while x < 599, shot.color(x: x + 1, y: 300) != WorldBase.space { x += 1 }
    #expect(abs(Double(x) + 0.5 - 300 - expected) < 1.0, "limb at \(x - 300) px, expected \(expected)")
}

/// With Natural Earth under it, land is land and sea is sea (Australia's middle, the Pacific).
@Test(.onOwnThread) func worldBase_landAndOcean() throws {
    guard let base = try worldBase() else { return }
    #expect(base.countries.count >= 177 && base.cities.count == 243)
    #expect(base.city(named: "tokyo") != nil)
    func centrePixel(_ c: Coordinate, _ projection: MapProjection) throws -> Color {
        let view = try TestView(camera: camera(c, zoom: 2, size: (64, 64), projection: projection), features: MapFeatureIndex([]), worldBase: base)
        return view.snapshot().color(x: 32, y: 32)
    }
    for p in MapProjection.allCases {
        #expect(try centrePixel(Coordinate(latitude: -25, longitude: 134), p) == MapStyle.day.land)
        #expect(try centrePixel(Coordinate(latitude: 0, longitude: -150), p) == WorldBase.ocean)
    }
}

/// A tilted Mercator view at low zoom shows sky above the horizon; at zoom 15 it does not.
@Test(.onOwnThread) func tiltedMercator_skyOnlyWhereTheHorizonIs() throws {
    let low = try TestView(camera: camera(Coordinate(latitude: 80, longitude: 0), zoom: 0, tilt: 30, size: (200, 200)), features: MapFeatureIndex([])).snapshot()
    #expect(low.color(x: 100, y: 1) == WorldBase.space, "beyond 85° N at zoom 0 there is no map")
    let high = try TestView(camera: camera(zoom: 15, tilt: 60, size: (200, 200)), features: MapFeatureIndex([])).snapshot()
    #expect(high.color(x: 100, y: 1) != WorldBase.space)
}

@Test(.onOwnThread) func mapObjects_polylinePolygonCircleAndImageMarker() throws {
    let centre = SampleCity.center
    let view = try TestView(camera: camera(centre, zoom: 16, size: (200, 200)), features: MapFeatureIndex([]))
    // The centre pixel of a 20-px red square marker whose middle is anchored on the centre.
    let red = Color(red: 255, green: 0, blue: 0)
    let image = try Pixmap(width: 20, height: 20, straightRGBA: [UInt8]((0..<400).flatMap { _ in [255, 0, 0, 255] }))
    let marker = view.add(.marker(MapMarker(centre, image: image, anchor: Point(x: 10, y: 10))))
    #expect(view.snapshot().color(x: 100, y: 100) == red)
    #expect(view.snapshot().color(x: 100, y: 80) != red, "20 px square: 20 px above is outside")
    view.remove(marker)
    // A polygon around the centre, 30 m each way.
    let ring = [0.0, 90, 180, 270].map { centre.coordinate(at: .meters(42.4), facing: .degrees($0 + 45)) }
    let green = Color(red: 0, green: 200, blue: 0)
    view.add(.polygon(MapPolygonOverlay(ring, fill: green, stroke: nil)))
    #expect(view.snapshot().color(x: 100, y: 100) == green)
    // A line across the view, west to east, 6 px wide through the centre.
    let blue = Color(red: 0, green: 0, blue: 255)
    view.add(.polyline(MapPolyline([centre.coordinate(at: .meters(200), facing: .degrees(270)), centre.coordinate(at: .meters(200), facing: .degrees(90))], width: 6, color: blue)))
    #expect(view.snapshot().color(x: 100, y: 100) == blue)
    #expect(view.snapshot().color(x: 100, y: 90) == green)
}

@Test(.onOwnThread) func layerVisibility_hidesBuildings() throws {
    let view = try TestView(camera: camera(zoom: 16, size: (256, 256)), features: sampleCityIndex())
    func buildingPixels() -> Int {
        let shot = view.snapshot()
        var n = 0
        for y in 0..<shot.height { for x in 0..<shot.width where shot.color(x: x, y: y) == MapStyle.day.building { n += 1 } }
        return n
    }
    #expect(buildingPixels() > 100)
    view.style.hidden.insert(.buildings)
    #expect(buildingPixels() == 0)
}
