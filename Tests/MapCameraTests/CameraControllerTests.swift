import Foundation
import Testing
import GeoCore
import GeoTestSupport
import MapCamera
import GeoBase

private typealias Controller = CameraController<ManualClock.Instant>

/// A controller at rest over Berlin and a log of every event it reports, by name.
private func recorded() throws -> (Controller, ManualClock, () -> [String]) {
    let controller = Controller(state: try camera(52.52, 13.40, zoom: 12))
    var log: [String] = []
    controller.respond(to: .all) { event, _ in
        log.append(event.description.dropFirst().dropLast().description)
        return true
    }
    return (controller, ManualClock(), { log })
}

private let berlinToPotsdam = CameraOptions(geoCenter: try! Coordinate(latitude: 52.39, longitude: 13.06), zoomLevel: 13)

@Test func animationFromRest_beganEndedOrder() throws {
    let (c, clock, log) = try recorded()
    try c.set(berlinToPotsdam, animation: .bow, duration: .seconds(2), at: clock.now)
    #expect(log() == ["transformationBegan", "animationBegan"])
    clock.advance(by: .seconds(1))
    c.advance(to: clock.now)
    #expect(log().suffix(2) == ["geoCenterChanged", "zoomLevelChanged"])
    clock.advance(by: .seconds(1))
    c.advance(to: clock.now)
    #expect(log().suffix(4) == ["geoCenterChanged", "zoomLevelChanged", "animationEnded", "transformationEnded"])
    #expect(c.state.zoomLevel == 13 && !c.isAnimating && !c.isTransforming)
    c.advance(to: clock.now.advanced(by: .seconds(5)))
    #expect(log().count == 8) // nothing moves, nothing reported
}

@Test func gestureInterruptingAnimation_animationEndsBeforeGestureBegins_transformationEndsAtGestureEnd() throws {
    let (c, clock, log) = try recorded()
    try c.set(berlinToPotsdam, animation: .linear, duration: .seconds(2), at: clock.now)
    clock.advance(by: .milliseconds(500))
    c.advance(to: clock.now)
    c.apply(.pan(from: ScreenPoint(x: 640, y: 360), to: ScreenPoint(x: 600, y: 360)), at: clock.now)
    c.endGesture(at: clock.now)
    #expect(log() == ["transformationBegan", "animationBegan", "geoCenterChanged", "zoomLevelChanged",
                      "animationEnded", "gestureBegan", "geoCenterChanged", "gestureEnded", "transformationEnded"])
    // The interrupted animation does not come back.
    let stopped = c.state
    c.advance(to: clock.now.advanced(by: .seconds(3)))
    #expect(c.state == stopped)
}

@Test func gestureWithInertia_transformationEndsOnlyWhenTheGlideStops() throws {
    let (c, clock, log) = try recorded()
    c.beginGesture()
    c.apply(.pan(from: ScreenPoint(x: 640, y: 360), to: ScreenPoint(x: 700, y: 360)), at: clock.now)
    c.endGesture(velocityX: 1000, velocityY: 0, at: clock.now) // glides 0.4 s (1000 / 2500)
    #expect(log() == ["transformationBegan", "gestureBegan", "geoCenterChanged", "gestureEnded"])
    let released = c.state
    clock.advance(by: .milliseconds(200))
    c.advance(to: clock.now)
    #expect(log().last == "geoCenterChanged" && c.isTransforming)
    clock.advance(by: .milliseconds(300))
    c.advance(to: clock.now)
    #expect(log().suffix(2) == ["geoCenterChanged", "transformationEnded"])
    // v²/2a = 200 px to the right: the ground under the view's centre moved to x = 840.
    let glided = try #require(c.state.point(for: released.geoCenter))
    #expect(abs(glided.x - 840) < 1e-6 && abs(glided.y - 360) < 1e-6) // px
}

@Test func releaseVelocity_comesFromTheLast160msOfPanSteps() throws {
    let (c, clock, log) = try recorded()
    let start = c.state
    // A slow drag, then 10 px every 10 ms for 100 ms: 1 000 px/s at release.
    c.apply(.pan(from: ScreenPoint(x: 640, y: 360), to: ScreenPoint(x: 600, y: 360)), at: clock.now)
    clock.advance(by: .seconds(1))
    for _ in 0..<10 {
        clock.advance(by: .milliseconds(10))
        let centre = c.state.viewSize.center
        c.apply(.pan(from: centre, to: ScreenPoint(x: centre.x + 10, y: centre.y)), at: clock.now)
    }
    c.endGesture(at: clock.now)
    let released = c.state
    c.advance(to: clock.now.advanced(by: .seconds(1)))
    #expect(log().last == "transformationEnded")
    // 1 000 px/s decelerating at 2 500 px/s² glides v² / 2a = 200 px.
    let glided = try #require(c.state.point(for: released.geoCenter))
    #expect(abs(glided.x - 840) < 1e-6 && abs(glided.y - 360) < 1e-6) // px
    #expect(c.state.geoCenter != start.geoCenter)
}

@Test func releaseAfterAPause_noGlide() throws {
    let (c, clock, log) = try recorded()
    c.apply(.pan(from: ScreenPoint(x: 640, y: 360), to: ScreenPoint(x: 700, y: 360)), at: clock.now)
    clock.advance(by: .milliseconds(500)) // the finger rested before lifting
    c.endGesture(at: clock.now)
    #expect(log().suffix(2) == ["gestureEnded", "transformationEnded"])
}

@Test func jump_reportsChangesBetweenTransformationBeganAndEnded() throws {
    let (c, clock, log) = try recorded()
    try c.set(CameraOptions(orientation: 90, tilt: 30), animation: .none, at: clock.now)
    #expect(log() == ["transformationBegan", "orientationChanged", "tiltChanged", "transformationEnded"])
    #expect(c.state.orientation == 90 && c.state.clippedTilt == 30)
}

@Test func newAnimationDuringAnimation_oneTransformation() throws {
    let (c, clock, log) = try recorded()
    try c.set(berlinToPotsdam, animation: .bow, duration: .seconds(2), at: clock.now)
    try c.set(CameraOptions(zoomLevel: 5), animation: .linear, duration: .seconds(1), at: clock.now)
    #expect(log() == ["transformationBegan", "animationBegan", "animationEnded", "animationBegan"])
    c.advance(to: clock.now.advanced(by: .seconds(1)))
    #expect(log().suffix(2) == ["animationEnded", "transformationEnded"])
    #expect(c.state.zoomLevel == 5)
}

@Test func animationDuringGesture_endsTheGesture() throws {
    let (c, clock, log) = try recorded()
    c.beginGesture()
    try c.set(CameraOptions(zoomLevel: 14), animation: .linear, duration: .seconds(1), at: clock.now)
    #expect(log() == ["transformationBegan", "gestureBegan", "gestureEnded", "animationBegan"])
    c.endGesture(at: clock.now) // no gesture any more: nothing
    #expect(log().count == 4 && c.isAnimating)
}

@Test func badSetter_changesNothingAndReportsNothing() throws {
    let (c, clock, log) = try recorded()
    let before = c.state
    #expect(throws: MapCameraError.self) { try c.set(CameraOptions(zoomLevel: .nan), animation: .bow, at: clock.now) }
    #expect(c.state == before && log().isEmpty && !c.isTransforming)
}

@Test func blockReturningFalse_isRemovedForThatEventOnly() throws {
    let (c, clock, _) = try recorded()
    var heard: [String] = []
    c.respond(to: [.animationBegan, .animationEnded]) { event, _ in
        heard.append(event.description)
        return event != .animationBegan // once for began, always for ended
    }
    for _ in 0..<2 {
        try c.set(CameraOptions(zoomLevel: 10), animation: .linear, duration: .seconds(1), at: clock.now)
        clock.advance(by: .seconds(1))
        c.advance(to: clock.now)
    }
    #expect(heard == ["[animationBegan]", "[animationEnded]", "[animationEnded]"])
}

@Test func registeringAndRemovingInsideABlock_isSafe() throws {
    let (c, clock, _) = try recorded()
    var order: [String] = []
    var second: MapEventBlockID?
    let first = c.respond(to: .transformationBegan) { _, controller in
        order.append("first")
        // Added inside a block: hears the next event, not this one.
        controller.respond(to: .transformationEnded) { _, _ in order.append("added"); return true }
        if let second { controller.removeEventBlock(second) } // removed before its turn: silent
        return true
    }
    second = c.respond(to: .transformationBegan) { _, _ in order.append("second"); return true }
    try c.set(CameraOptions(zoomLevel: 11), animation: .none, at: clock.now)
    #expect(order == ["first", "added"])
    #expect(c.removeEventBlock(first) && !c.removeEventBlock(first))
}

@Test func movingTheCameraInsideABlock_eventsStayInOrder() throws {
    let (c, clock, log) = try recorded()
    var once = true
    c.respond(to: .transformationEnded) { _, controller in
        if once {
            once = false
            try? controller.set(CameraOptions(tilt: 20), animation: .none, at: clock.now)
        }
        return true
    }
    try c.set(CameraOptions(zoomLevel: 11), animation: .none, at: clock.now)
    #expect(log() == ["transformationBegan", "zoomLevelChanged", "transformationEnded",
                      "transformationBegan", "tiltChanged", "transformationEnded"])
}

/// Pinch and rotate glide on after release: 2 levels/s of zoom stops after 0.1 s having gained
/// v²/2a = 0.1 level; 90 °/s of turning stops after 0.09 s having turned 4.05°; the point the
/// fingers were about stays put; the transformation ends when both have stopped.
@Test func pinchAndRotateInertia_glideAboutTheirPoint_andStop() throws {
    let (c, clock, log) = try recorded()
    let about = ScreenPoint(x: 400, y: 300)
    for _ in 0..<5 {
        clock.advance(by: .milliseconds(20))
        c.apply(.pinch(scale: exp2(0.04), about: about), at: clock.now) // 0.04 level per 20 ms: 2 levels/s
        c.apply(.rotate(degrees: 1.8, about: about), at: clock.now) // 1.8° per 20 ms: 90 °/s
    }
    let released = c.state
    let ground = try #require(released.coordinate(at: about))
    c.endGesture(at: clock.now)
    #expect(c.isTransforming && log().last == "gestureEnded")
    clock.advance(by: .milliseconds(95))
    c.advance(to: clock.now)
    #expect(c.isTransforming, "the zoom glides 0.1 s")
    clock.advance(by: .milliseconds(10))
    c.advance(to: clock.now)
    #expect(log().last == "transformationEnded")
    #expect(abs(c.state.zoomLevel - released.zoomLevel - 0.1) < 1e-9, "zoom gained \(c.state.zoomLevel - released.zoomLevel)")
    let difference = (released.orientation - c.state.orientation).truncatingRemainder(dividingBy: 360)
    let turned = difference < 0 ? difference + 360 : difference
    #expect(abs(turned - 4.05) < 1e-9, "turned \(turned)°")
    let still = try #require(c.state.point(for: ground))
    #expect(still.distance(to: about) < 0.05, "the ground under the fingers stays there: \(still)") // px
}

@Test func zoomRotateInertia_slowOrNotFinite_isNone() {
    let p = ScreenPoint(x: 1, y: 1)
    #expect(ZoomRotateInertia(zoomSpeed: 0.01, rotationSpeed: 1, about: p) == nil)
    #expect(ZoomRotateInertia(zoomSpeed: .nan, rotationSpeed: .infinity, about: p) == nil)
    let fast = ZoomRotateInertia(zoomSpeed: -50, rotationSpeed: 1_000, about: p)
    #expect(fast?.duration == 0.36, "turning capped at 360 °/s, 0.36 s to stop at 1 000 °/s²; zoom at 4 levels/s, 0.2 s")
    #expect(fast?.change(after: 10).zoom == -0.4, "−4 levels/s: v²/2a = 0.4 level out")
}
