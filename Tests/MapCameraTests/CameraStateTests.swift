import Testing
import GeoCore
import MapCamera
import GeoBase

/// A 1280 × 720 view, the size the issue measures.
let hd = try! ViewSize(width: 1280, height: 720)

func camera(_ lat: Double, _ lon: Double, zoom: Double, orientation: Double = 0, tilt: Double = 0,
            view: ViewSize = hd, projection: MapProjection = .mercator, limits: CameraLimits = .default) throws -> CameraState {
    try CameraState(geoCenter: Coordinate(latitude: lat, longitude: lon), zoomLevel: zoom, orientation: orientation,
                    tilt: tilt, viewSize: view, limits: limits, projection: projection)
}

@Test func viewSize_zeroOrNonFinite_isRejected() {
    for (w, h) in [(0.0, 0.0), (0, 100), (100, -1), (.nan, 100), (100, .infinity), (1e9, 100)] {
        #expect(throws: MapCameraError.self, "\(w)×\(h)") { try ViewSize(width: w, height: h) }
        do { _ = try ViewSize(width: w, height: h) } catch { #expect(error.code == .invalidViewSize) }
    }
}

@Test func cameraState_nonFiniteValues_areRejectedAndLeaveTheStateUnchanged() throws {
    var s = try camera(52.5, 13.4, zoom: 12, orientation: 10, tilt: 20)
    let before = s
    for options in [CameraOptions(zoomLevel: .nan), CameraOptions(orientation: .infinity), CameraOptions(tilt: -.infinity),
                    CameraOptions(geoCenter: Coordinate(uncheckedLatitude: .nan, longitude: 0), zoomLevel: 3)] {
        do {
            try s.set(options)
            Issue.record("accepted \(options)")
        } catch {
            #expect(error.code == .notFinite, "\(error)")
        }
        #expect(s == before)
    }
}

@Test func cameraState_outOfRangeValues_areClamped() throws {
    let s = try camera(89, 190, zoom: 30, orientation: -30, tilt: 120)
    #expect(s.zoomLevel == 22)
    #expect(s.geoCenter.latitude == WebMercator.maxLatitude)
    #expect(abs(s.geoCenter.longitude - -170) < 1e-12) // degrees
    #expect(s.orientation == 330)
    #expect(s.tilt == 85)
    #expect(s.clippedTilt == 60) // the default profile's maximum at zoom ≥ 10
    #expect(try camera(0, 0, zoom: -4).zoomLevel == 0)
    #expect(try camera(0, 0, zoom: 1, orientation: 720).orientation == 0)
    #expect(try camera(0, 0, zoom: 1, orientation: -1e-17).orientation == 0)
}

@Test func combinedSetter_nilKeepsEachValue() throws {
    var s = try camera(10, 20, zoom: 5, orientation: 45, tilt: 10)
    try s.set(CameraOptions(zoomLevel: 7))
    let first = try Coordinate(latitude: 10, longitude: 20), second = try Coordinate(latitude: -1, longitude: -2)
    #expect(s.geoCenter == first && s.zoomLevel == 7 && s.orientation == 45 && s.tilt == 10)
    try s.set(CameraOptions(geoCenter: Coordinate(latitude: -1, longitude: -2), tilt: 0))
    #expect(s.geoCenter == second && s.zoomLevel == 7 && s.orientation == 45 && s.tilt == 0)
}

@Test func tiltProfile_clipsTiltByZoomAndKeepsTheRequestedTilt() throws {
    let profile = try TiltProfile([(zoom: 4, tilt: 0), (zoom: 14, tilt: 60), (zoom: 18, tilt: 75)])
    let limits = try CameraLimits(minimumZoomLevel: 2, maximumZoomLevel: 20, maximumTiltProfile: profile,
                                  minimumTiltProfile: try TiltProfile([(zoom: 16, tilt: 0), (zoom: 18, tilt: 20)]))
    var s = try camera(0, 0, zoom: 16, tilt: 70, limits: limits)
    #expect(abs(s.maximumTilt(atZoom: 9) - 30) < 1e-12) // degrees, halfway between 0 at 4 and 60 at 14
    #expect(s.maximumTilt(atZoom: 2) == 0 && s.maximumTilt(atZoom: 20) == 75)
    #expect(s.minimumTilt(atZoom: 17) == 10 && s.minimumTilt(atZoom: 3) == 0)
    #expect(abs(s.clippedTilt - 67.5) < 1e-12) // 60 + (75 − 60) · 2 / 4
    try s.set(CameraOptions(zoomLevel: 9))
    #expect(s.tilt == 70 && abs(s.clippedTilt - 30) < 1e-12)
    try s.set(CameraOptions(zoomLevel: 19))
    #expect(s.clippedTilt == 70) // the tilt asked for comes back when the profile allows it
    try s.set(CameraOptions(zoomLevel: 18, tilt: 5))
    #expect(s.clippedTilt == 20) // raised to the minimum
}

@Test func limits_contradictions_areRejected() {
    #expect(throws: MapCameraError.self) { try CameraLimits(minimumZoomLevel: 10, maximumZoomLevel: 5) }
    #expect(throws: MapCameraError.self) { try CameraLimits(minimumZoomLevel: -1) }
    #expect(throws: MapCameraError.self) { try CameraLimits(maximumZoomLevel: 25) }
    #expect(throws: MapCameraError.self) { try TiltProfile([]) }
    #expect(throws: MapCameraError.self) { try TiltProfile([(zoom: 3, tilt: 10), (zoom: 3, tilt: 20)]) }
    #expect(throws: MapCameraError.self) { try TiltProfile([(zoom: .nan, tilt: 10)]) }
    #expect(throws: MapCameraError.self) { try TiltProfile([(zoom: 0, tilt: 90)]) }
    #expect(throws: MapCameraError.self) {
        try CameraLimits(maximumTiltProfile: .constant(20), minimumTiltProfile: .constant(30))
    }
}

/// `WIDTHxHEIGHT` in pixels, the x in either case; other text and sides outside (0, 65 536]
/// are `.invalidViewSize`, the text quoted.
@Test func viewSize_parsesWidthByHeight_andRejectsTheRest() throws {
    #expect(try ViewSize(parsing: "1280x720") == ViewSize(width: 1280, height: 720))
    #expect(try ViewSize(parsing: "640X480.5") == ViewSize(width: 640, height: 480.5))
    for text in ["abc", "1x", "x2", "1x2x3", "0x5", "70000x1", "nanx1"] {
        #expect { try ViewSize(parsing: text) } throws: { error in
            (error as? MapCameraError)?.code == .invalidViewSize
        }
    }
    #expect { try ViewSize(parsing: "1x") } throws: { error in "\(error)".contains("got '1x'") }
}
