import Foundation
import GeoBase
import GeoCore
import MapCamera
import Testing

/// `geo map animate`'s frame: every member with its decimals, the tilt in use (clipped to the
/// zoom's limit), and a bow flight's last frame exactly at the destination.
@Test func frameJSON_membersWithTheirDecimals_lastFrameAtTheDestination() throws {
    let view = try ViewSize(width: 800, height: 600)
    let tokyo = try CameraState(geoCenter: Coordinate(latitude: 35.6812, longitude: 139.7671), zoomLevel: 15, orientation: 10,
                                tilt: 45, viewSize: view, projection: .mercator)
    // At zoom 2 the tilt is limited below 45°; the frame prints the limited value.
    let far = try tokyo.setting(CameraOptions(zoomLevel: 2))
    #expect(far.clippedTilt < 45)
    let json = far.frameJSON(t: 0.5)
    func degrees(_ x: Double, _ decimals: Int) -> String { FixedDecimal.string(x, decimals: decimals) }
    #expect(json == #"{"t":0.500000,"latitude":\#(degrees(far.geoCenter.latitude, 9)),"longitude":\#(degrees(far.geoCenter.longitude, 9)),"#
        + #""zoomLevel":2.000000000,"bearing":10.0000,"tilt":\#(degrees(far.clippedTilt, 4))}"#)
    let osaka = try Coordinate(latitude: 34.7025, longitude: 135.4959)
    let flight = try CameraTransition(from: tokyo, to: tokyo.setting(CameraOptions(geoCenter: osaka)), animation: .bow)
    let last = try #require(Array(flight.frames(perSecond: 10)).last)
    let o = try #require(try JSONSerialization.jsonObject(with: Data(last.state.frameJSON(t: last.t).utf8)) as? [String: Double])
    #expect(o["latitude"] == 34.7025 && o["longitude"] == 135.4959 && o["zoomLevel"] == 15)
    #expect(try tokyo.setting(tokyo.options) == tokyo, "options lead back to the same camera")
}
