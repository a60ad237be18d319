import GeoBase
import GeoCore

extension CameraState {
    /// The combined setter's arguments that lead to this camera.
    public var options: CameraOptions { CameraOptions(geoCenter: geoCenter, zoomLevel: zoomLevel, orientation: orientation, tilt: tilt) }

    /// One animation frame at `t` seconds as a JSON object (`geo map animate`, CONTRACT.md):
    /// `t` (6 decimals), `latitude`, `longitude` (9), `zoomLevel` (9), `bearing` and `tilt`
    /// (degrees, 4; the tilt in use, ``clippedTilt``).
    public func frameJSON(t: Double) -> String {
        var o = JSONObjectText()
        o.add("t", t, JSONNumber.Quantity(decimals: 6))
        o.add("latitude", geoCenter.latitude, .coordinate)
        o.add("longitude", geoCenter.longitude, .coordinate)
        o.add("zoomLevel", zoomLevel, JSONNumber.Quantity(decimals: 9))
        o.add("bearing", orientation, .course)
        o.add("tilt", clippedTilt, .course)
        return o.text
    }
}
