public import GeoBase
public import GeoCore
import Platform

extension CameraState {
    /// The zoom levels a camera written as text may have: 0…22, the default limits'
    /// (``CameraLimits/default``).
    public static let writtenZoomLevels = ValidRange(0...22, unit: "")
    /// The tilts a camera written as text may have, degrees from straight down: 0…85
    /// (``TiltProfile/ceiling``); the camera then clips the tilt to its zoom's profile.
    public static let writtenTilts = ValidRange(0...TiltProfile.ceiling, unit: "degrees")

    /// A camera written as `LAT,LON,ZOOM[,BEARING[,TILT]]`: latitude and longitude in degrees
    /// (WGS84), a MapLibre zoom level (512-pixel world at zoom 0, ``writtenZoomLevels``),
    /// bearing in degrees clockwise from north (0 without it) and tilt in degrees from straight
    /// down (``writtenTilts``, 0 without it); spaces are ignored. Flat Web Mercator, for a
    /// view of `viewSize` (`geo map animate --from / --to`).
    /// - Parameter name: what the messages call the text, e.g. `--from`.
    /// - Throws: `MapCameraError.invalidArgument`, its message starting with `name`: not three
    ///   to five numbers, a zoom or tilt out of range, a bearing not finite, a latitude or
    ///   longitude out of range; a `CameraState` error otherwise.
    public init(parsing text: String, named name: String, viewSize: ViewSize) throws(MapCameraError) {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0.filter { $0 != " " })) }
        guard (3...5).contains(fields.count), fields.allSatisfy({ $0 != nil }) else {
            throw MapCameraError(.invalidArgument, "\(name): expected LAT,LON,ZOOM[,BEARING[,TILT]] in degrees, got '\(text)'")
        }
        let n = fields.compactMap { $0 }
        func check(_ value: Double, _ range: ValidRange, _ field: String) throws(MapCameraError) {
            guard range.contains(value) else { throw MapCameraError(.invalidArgument, "\(name) \(field) must be \(range), got \(value)") }
        }
        try check(n[2], Self.writtenZoomLevels, "zoom")
        if n.count > 3, !n[3].isFinite { throw MapCameraError(.invalidArgument, "\(name) bearing must be finite, got \(n[3])") }
        if n.count > 4 { try check(n[4], Self.writtenTilts, "tilt") }
        let centre: Coordinate
        do throws(GeoCoreError) { centre = try Coordinate(latitude: n[0], longitude: n[1]) } catch {
            throw MapCameraError(.invalidArgument, "\(name): \(error.message)")
        }
        do {
            try self.init(geoCenter: centre, zoomLevel: n[2], orientation: n.count > 3 ? n[3] : 0, tilt: n.count > 4 ? n[4] : 0,
                          viewSize: viewSize, projection: .mercator)
        } catch {
            throw MapCameraError(error.code, "\(name): \(error.message)")
        }
    }
}

extension ViewSize {
    /// The whole pixels of a size written `WIDTHxHEIGHT` (`800x600`, the `x` in either case),
    /// each side within `sides`: an image's or a view's size (`geo snapshot --size`).
    /// - Parameters:
    ///   - name: what the messages call the text, e.g. `--size`.
    ///   - example: a size the message for other text shows, e.g. `800x600`.
    /// - Throws: `MapCameraError.invalidViewSize`, its message starting with `name`: text that
    ///   is not two whole numbers around an `x`, or a side outside `sides`.
    public static func pixels(parsing text: String, named name: String, sides: ValidRange, example: String) throws(MapCameraError) -> (width: Int, height: Int) {
        guard let (width, height) = Self.sides(of: text, as: Int.self) else {
            throw MapCameraError(.invalidViewSize, "\(name) must be WIDTHxHEIGHT in pixels, e.g. \(example), got '\(text)'")
        }
        for (side, pixels) in [("width", width), ("height", height)] where !sides.contains(pixels) {
            throw MapCameraError(.invalidViewSize, "\(name) \(side) must be \(sides), got \(pixels)")
        }
        return (width, height)
    }
}
