import Testing
import GeoCore
import MapCamera
import GeoBase

/// `LAT,LON,ZOOM[,BEARING[,TILT]]` (`geo map animate --from / --to`): the fields in order, the
/// defaults, and every refusal's message naming the text's name (the CLI prints it as is).
@Test func cameraText_fields_landInOrderWithMercatorAndDefaults() throws {
    let full = try CameraState(parsing: " -33.9, 18.4 ,12,10,20", named: "--to", viewSize: hd)
    #expect(full.geoCenter.latitude == -33.9)
    #expect(full.geoCenter.longitude == 18.4)
    #expect(full.zoomLevel == 12)
    #expect(full.orientation == 10)
    #expect(full.tilt == 20)
    #expect(full.projection == .mercator)
    #expect(full.viewSize == hd)
    let short = try CameraState(parsing: "48,11,3", named: "--from", viewSize: hd)
    #expect(short.geoCenter.latitude == 48 && short.geoCenter.longitude == 11 && short.zoomLevel == 3)
    #expect(short.orientation == 0 && short.tilt == 0)
}

@Test func cameraText_badText_isRefusedWithItsName() {
    let cases: [(String, String)] = [
        ("48,11", "--from: expected LAT,LON,ZOOM[,BEARING[,TILT]] in degrees, got '48,11'"),
        ("48,11,12,1,2,3", "--from: expected LAT,LON,ZOOM[,BEARING[,TILT]] in degrees, got '48,11,12,1,2,3'"),
        ("48,11,x", "--from: expected LAT,LON,ZOOM[,BEARING[,TILT]] in degrees, got '48,11,x'"),
        ("48,11,30", "--from zoom must be 0…22, got 30.0"),
        ("48,11,-0.5", "--from zoom must be 0…22, got -0.5"),
        ("48,11,12,inf", "--from bearing must be finite, got inf"),
        ("48,11,12,0,90", "--from tilt must be 0…85 degrees, got 90.0"),
        ("95,11,12", "--from: latitude 95.0 is outside [-90, 90]"),
    ]
    expectRefusals(cases, code: .invalidArgument) { text throws(MapCameraError) in try CameraState(parsing: text, named: "--from", viewSize: hd) }
}

/// `WIDTHxHEIGHT` in whole pixels (`geo snapshot --size`): either case of `x`, and each
/// refusal's message naming the text's name, the example and the range.
@Test func viewSizeText_wholePixelsWithinTheSides() throws {
    let sides = ValidRange(1...8_192, unit: "px")
    func pixels(_ text: String) throws(MapCameraError) -> (width: Int, height: Int) {
        try ViewSize.pixels(parsing: text, named: "--size", sides: sides, example: "800x600")
    }
    let image = try pixels("800x600"), tall = try pixels("1X8192")
    #expect(image.width == 800 && image.height == 600)
    #expect(tall.width == 1 && tall.height == 8_192)
    let cases: [(String, String)] = [
        ("10by10", "--size must be WIDTHxHEIGHT in pixels, e.g. 800x600, got '10by10'"),
        ("640x480.5", "--size must be WIDTHxHEIGHT in pixels, e.g. 800x600, got '640x480.5'"),
        ("1x2x3", "--size must be WIDTHxHEIGHT in pixels, e.g. 800x600, got '1x2x3'"),
        ("0x0", "--size width must be 1…8192 px, got 0"),
        ("10x8193", "--size height must be 1…8192 px, got 8193"),
    ]
    expectRefusals(cases, code: .invalidViewSize, pixels)
}

/// Expects `parse` to refuse each case's text with `code` and exactly the case's message.
private func expectRefusals<Value>(_ cases: [(text: String, message: String)], code: MapCameraError.Code,
                                   _ parse: (String) throws(MapCameraError) -> Value) {
    for (text, message) in cases {
        do {
            let value = try parse(text)
            Issue.record("accepted '\(text)' as \(value)")
        } catch {
            #expect(error.code == code, "\(text)")
            #expect(error.message == message, "\(text)")
        }
    }
}
