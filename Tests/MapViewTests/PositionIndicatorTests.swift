import Foundation
import GeoCore
import GeoTestSupport
import MapCamera
import MapData
import MapRenderer
@testable import MapView
import OSMImport
import Compass
import Positioning
import TrackFiltering
import Testing

func fix(_ c: Coordinate, accuracy: Double = 20, speed: Double? = nil, course: Double? = nil) -> Location {
    Location(coordinate: c, timestamp: Date(timeIntervalSince1970: 1_767_225_600), horizontalAccuracy: .meters(accuracy),
             speed: speed.map { .metersPerSecond($0) }, course: course.map { Bearing(degrees: $0) })
}

/// The accuracy circle is the 68 % radius on the ground: its edge lies `accuracy / metres per
/// pixel` from the position, within a pixel (the 72-gon and anti-aliasing).
@Test(.onOwnThread) func accuracyCircle_isDrawnToScale() throws {
    let centre = SampleCity.center
    let state = try camera(centre, zoom: 17, size: (300, 300))
    let view = try TestView(camera: state, features: MapFeatureIndex([]))
    view.positionIndicator.isVisible = true
    view.positionIndicator.accuracyIndicatorColor = Color(red: 200, green: 0, blue: 0, alpha: 255)
    view.showPosition(raw: nil, mapMatched: nil, current: fix(centre, accuracy: 50), at: ManualClock().now)
    let shot = view.snapshot()
    // Metres per pixel at the centre for MapLibre's 512-pixel world.
    let metersPerPixel = 2 * Double.pi * WebMercator.radius * cos(centre.latitude * .pi / 180) / state.worldSize
    let expected = 50 / metersPerPixel
    var x = 150
    // Past the dot (8 px and its white ring), the red fill (no green) runs to the edge.
    x = 150 + 12
    while x < 299, shot.color(x: x + 1, y: 150).green < 120 { x += 1 }
    #expect(abs(Double(x) + 0.5 - 150 - expected) < 1.5, "edge at \(x - 150) px, expected \(expected)")
    view.positionIndicator.accuracyIndicatorVisible = false
    #expect(view.snapshot().color(x: 150 + Int(expected) - 3, y: 150) == MapStyle.day.land)
}

@Test(.onOwnThread) func tracksCourse_onlyWhileMoving_withOffset() throws {
    let view = try TestView(camera: camera(), features: MapFeatureIndex([]))
    let indicator = view.positionIndicator
    indicator.orientationOffset = 10
    indicator.update(raw: nil, mapMatched: nil, current: fix(SampleCity.center, speed: 0.1, course: 45))
    #expect(indicator.heading == nil, "not moving: no heading from the course")
    indicator.update(raw: nil, mapMatched: nil, current: fix(SampleCity.center, speed: 10, course: 355))
    #expect(indicator.heading == 5)
    indicator.update(raw: nil, mapMatched: nil, current: fix(SampleCity.center, speed: 0, course: 180))
    #expect(indicator.heading == 5, "idle: unchanged")
    indicator.tracksCourse = false
    indicator.update(raw: nil, mapMatched: nil, current: fix(SampleCity.center, speed: 10, course: 90))
    #expect(indicator.heading == 5)
}

@Test(.onOwnThread) func positionKind_picksRawMatchedOrCurrent() throws {
    let view = try TestView(camera: camera(), features: MapFeatureIndex([]))
    let raw = fix(SampleCity.center.coordinate(at: .meters(10), facing: .degrees(0)))
    let matched = fix(SampleCity.center.coordinate(at: .meters(10), facing: .degrees(90)))
    let indicator = view.positionIndicator
    indicator.positionKind = .raw
    indicator.update(raw: raw, mapMatched: matched, current: matched)
    #expect(indicator.location == raw)
    indicator.positionKind = .mapMatched
    indicator.update(raw: raw, mapMatched: matched, current: raw)
    #expect(indicator.location == matched)
    indicator.positionKind = .current
    indicator.update(raw: raw, mapMatched: nil, current: raw)
    #expect(indicator.location == raw)
}

@Test(.onOwnThread) func follow_centresTheCamera_untilAGesture() throws {
    let clock = ManualClock()
    let view = try TestView(camera: camera(), features: MapFeatureIndex([]))
    view.followMode = .followWithCourse
    let there = SampleCity.center.coordinate(at: .meters(300), facing: .degrees(30))
    view.showPosition(raw: nil, mapMatched: nil, current: fix(there, speed: 12, course: 80), at: clock.now)
    #expect(abs(view.camera.state.geoCenter.latitude - there.latitude) < 1e-9 && abs(view.camera.state.geoCenter.longitude - there.longitude) < 1e-9)
    #expect(abs(view.camera.state.orientation - 80) < 1e-9, "follow with course: the heading points up")
    view.camera.beginGesture()
    #expect(view.followMode == .none, "a user gesture drops the follow mode")
    view.camera.endGesture(at: clock.now)
    view.showPosition(raw: nil, mapMatched: nil, current: fix(SampleCity.center, speed: 12, course: 80), at: clock.now)
    #expect(abs(view.camera.state.geoCenter.latitude - there.latitude) < 1e-9)
}

/// Making the indicator visible starts positioning (the seed's `visible`): here a manager's.
@Test(.onOwnThread, .timeLimit(.minutes(3))) func visible_startsPositioning() async throws {
    let route = [SampleCity.center, SampleCity.center.coordinate(at: .meters(500), facing: .degrees(90))]
    let source = try RouteSimulationSource(polyline: route, movementSpeed: .metersPerSecond(10), updateInterval: .seconds(1),
                                           pacing: .asFastAsPossible, startDate: Date(timeIntervalSince1970: 1_767_225_600))
    let manager = PositioningManager(source: source)
    let view = try TestView(camera: camera(), features: MapFeatureIndex([]))
    view.positionIndicator.startPositioning = { await manager.start() }
    let events = manager.events()
    #expect(await !manager.isRunning)
    view.positionIndicator.isVisible = true
    // Nothing else starts the manager: a fix arriving means the indicator started it.
    var updated = false
    for await event in events {
        if case .updated = event { updated = true; break }
        if case .stopped = event { break }
    }
    #expect(updated)
    await manager.stop()
}

@Test(.onOwnThread) func compassMode_pointsToTheCompassHeading_fallingBackToCourse() throws {
    let clock = ManualClock()
    let view = try TestView(camera: camera(), features: MapFeatureIndex([]))
    let indicator = view.positionIndicator
    let time = Date(timeIntervalSince1970: 1_767_225_600)
    indicator.orientationOffset = 10
    indicator.update(raw: nil, mapMatched: nil, current: fix(SampleCity.center, speed: 10, course: 90))
    view.showHeading(Heading(timestamp: time, trueHeading: .degrees(200)), at: clock.now)
    #expect(indicator.heading == 100, "course mode: the compass is not used")
    indicator.headingMode = .compass
    #expect(indicator.heading == 200, "compass mode: the true heading, no course offset")
    view.followMode = .followWithCourse
    view.showHeading(Heading(timestamp: time, trueHeading: .degrees(250)), at: clock.now)
    #expect(indicator.heading == 250)
    #expect(abs(view.camera.state.orientation - 250) < 1e-9, "following with course turns the camera to the compass")
    view.showHeading(Heading(timestamp: time, trueHeading: .degrees(10), isReliable: false), at: clock.now)
    #expect(indicator.heading == 100, "an unreliable compass: back to the course")
    view.showHeading(Heading(timestamp: time, magneticHeading: .degrees(30)), at: clock.now)
    #expect(indicator.heading == 100, "a magnetic heading never made true is not shown as true")
}

/// The wedge drawn points to the compass: a pixel 12 px from the position along the heading
/// is the symbol's colour, the one opposite is not.
@Test(.onOwnThread) func compassMode_wedgePointsToTheHeading() throws {
    let view = try TestView(camera: camera(size: (200, 200)), features: MapFeatureIndex([]))
    let indicator = view.positionIndicator
    indicator.isVisible = true
    indicator.accuracyIndicatorVisible = false
    indicator.headingMode = .compass
    view.showPosition(raw: nil, mapMatched: nil, current: fix(SampleCity.center), at: ManualClock().now)
    view.showHeading(Heading(timestamp: Date(timeIntervalSince1970: 1_767_225_600), trueHeading: .degrees(90)), at: ManualClock().now)
    let shot = view.snapshot()
    let blue = Color(hex: 0x1E64F0)
    #expect(shot.color(x: 100 + 12, y: 100) == blue, "east of the dot: the wedge")
    #expect(shot.color(x: 100 - 12, y: 100) != blue, "west of the dot: no wedge")
}
