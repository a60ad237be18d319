import Testing
import GeoCore
import MapCamera

@Test func pan_keepsTheGroundUnderTheFinger_mercatorAndGlobe_tiltedAndTurned() throws {
    for projection in MapProjection.allCases {
        for (zoom, tilt, orientation) in [(4.0, 0.0, 0.0), (11.0, 30.0, 45.0), (16.0, 55.0, 300.0)] {
            let s = try camera(48.2, 16.37, zoom: zoom, orientation: orientation, tilt: tilt, projection: projection)
            let from = ScreenPoint(x: 500, y: 400), to = ScreenPoint(x: 620, y: 330)
            let grabbed = try #require(s.coordinate(at: from))
            let moved = s.applying(.pan(from: from, to: to))
            let now = try #require(moved.point(for: grabbed))
            #expect(now.distance(to: to) < 0.01, "\(projection) z\(zoom): \(now)") // px
            #expect(moved.zoomLevel == s.zoomLevel && moved.orientation == s.orientation && moved.tilt == s.tilt)
        }
    }
}

@Test func pinchAndDoubleTap_zoomAboutTheirPoint() throws {
    let s = try camera(40.4, -3.7, zoom: 10, orientation: 20, tilt: 20)
    let about = ScreenPoint(x: 300, y: 500)
    let spot = try #require(s.coordinate(at: about))
    let pinched = s.applying(.pinch(scale: 4, about: about))
    #expect(abs(pinched.zoomLevel - 12) < 1e-12)
    #expect(try #require(pinched.point(for: spot)).distance(to: about) < 0.01) // px
    let tapped = s.applying(.doubleTap(at: about))
    #expect(abs(tapped.zoomLevel - 11) < 1e-12)
    #expect(try #require(tapped.point(for: spot)).distance(to: about) < 0.01)
    #expect(s.applying(.pinch(scale: 1e30, about: about)).zoomLevel == 22) // clamped
    #expect(s.applying(.pinch(scale: 0, about: about)) == s && s.applying(.pinch(scale: .nan, about: about)) == s)
}

@Test func rotate_turnsAboutThePointAndWrapsOrientation() throws {
    let s = try camera(40.4, -3.7, zoom: 14, orientation: 10)
    let about = ScreenPoint(x: 900, y: 200)
    let spot = try #require(s.coordinate(at: about))
    let turned = s.applying(.rotate(degrees: 30, about: about)) // fingers clockwise: map follows
    #expect(abs(turned.orientation - 340) < 1e-12)
    #expect(try #require(turned.point(for: spot)).distance(to: about) < 0.01)
    #expect(s.applying(.rotate(degrees: .infinity, about: about)) == s)
}

@Test func twoFingerTilt_staysWithinTheProfile() throws {
    let s = try camera(40.4, -3.7, zoom: 5) // default profile: 45° at zoom 5
    #expect(s.applying(.tilt(degrees: 20)).clippedTilt == 20)
    #expect(s.applying(.tilt(degrees: 80)).clippedTilt == 45)
    #expect(s.applying(.tilt(degrees: 80)).applying(.tilt(degrees: -10)).clippedTilt == 35) // from the tilt in use
    #expect(s.applying(.tilt(degrees: -10)).clippedTilt == 0)
}

@Test func gestureOnSky_leavesTheCamera() throws {
    let s = try camera(0, 0, zoom: 1, view: try ViewSize(width: 600, height: 600), projection: .globe)
    #expect(s.applying(.pan(from: ScreenPoint(x: 1, y: 1), to: ScreenPoint(x: 300, y: 300))) == s)
}

@Test func panInertia_decelerationAndCap() {
    #expect(PanInertia(velocityX: 5, velocityY: 0) == nil)
    #expect(PanInertia(velocityX: .nan, velocityY: 0) == nil)
    let fast = PanInertia(velocityX: 3000, velocityY: 4000)! // 5000 px/s, capped at 1400
    #expect(abs(fast.duration - 0.56) < 1e-12) // s
    #expect(abs(fast.distance(after: 10) - 1400 * 1400 / 5000) < 1e-9) // v² / 2a px
}
