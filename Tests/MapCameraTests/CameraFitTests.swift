import Testing
import GeoCore
import GeoTestSupport
import MapCamera
import GeoBase

/// Fiji's box crosses the antimeridian (east < west): the fit centres on 179.5° E, not on 0°,
/// and its corners land inside the padded frame within 1 px.
@Test func fitting_boxAcrossTheAntimeridian() throws {
    let box = try BoundingBox(south: -19, west: 177, north: -16, east: -178)
    let start = try CameraState(geoCenter: Coordinate(latitude: 0, longitude: 0), zoomLevel: 2, viewSize: ViewSize(width: 400, height: 300), projection: .mercator)
    let padding = EdgePadding(all: 25)
    let fit = try start.fitting(box, padding: padding)
    #expect(abs(fit.geoCenter.longitude - 179.5) < 0.01 || abs(fit.geoCenter.longitude + 180.5) < 0.01, "centre \(fit.geoCenter)")
    for (lat, lon) in [(-16.0, 177.0), (-16, -178), (-19, -178), (-19, 177)] {
        let p = try #require(fit.point(for: Coordinate(latitude: lat, longitude: lon)))
        #expect(p.x >= 24 && p.x <= 376 && p.y >= 24 && p.y <= 276, "(\(lat), \(lon)) at \(p)")
    }
    #expect(throws: MapCameraError.self) { try start.fitting(box, padding: EdgePadding(top: .nan)) }
    #expect(throws: MapCameraError.self) { try start.fitting(box, padding: EdgePadding(top: 150, bottom: 150)) }
}

/// A resize keeps the camera and ends an animation under way (its frames were for the old size).
@Test func resize_keepsTheCamera_endsAnAnimation() throws {
    let state = try CameraState(geoCenter: Coordinate(latitude: 52.52, longitude: 13.40), zoomLevel: 12, orientation: 10, tilt: 20, viewSize: ViewSize(width: 400, height: 300))
    let controller = CameraController<ManualClock.Instant>(state: state)
    var log: [MapEvents] = []
    controller.respond(to: [.animationEnded, .transformationEnded]) { event, _ in log.append(event); return true }
    let clock = ManualClock()
    try controller.set(CameraOptions(zoomLevel: 14), animation: .linear, duration: .seconds(1), at: clock.now)
    controller.resize(to: try ViewSize(width: 800, height: 500))
    #expect(!controller.isAnimating && log == [.animationEnded, .transformationEnded])
    #expect(controller.state.viewSize == (try ViewSize(width: 800, height: 500)))
    #expect(controller.state.geoCenter == state.geoCenter && controller.state.zoomLevel == 12)
    #expect(controller.state.orientation == 10 && controller.state.tilt == 20)
}
