import Platform
public import GeoCore
public import GeoBase

/// Where the camera of a map view stands and looks: the seed's `NMAMapView` attributes
/// (`geoCenter`, `zoomLevel`, `orientation`, `tilt`) for a view size, limits and a projection,
/// as one value (maplibre-native's `TransformState`). Screen ⇄ geo conversion, the visible
/// region and the tile cover live in the extensions beside it.
///
/// Zoom levels follow MapLibre: at zoom 0 the whole Web Mercator world is one 512-pixel tile,
/// so the world is `512 · 2^zoom` pixels wide (a 256-pixel raster tile scheme's zoom z is
/// this zoom z − 1).
///
/// Values are checked once, here: NaN or infinite input is rejected with
/// `MapCameraError.notFinite`; finite values out of range are clamped (zoom to the limits, the
/// centre's latitude to Web Mercator's ±85.0511°, tilt to 0…85°) and orientation is wrapped
/// into [0, 360).
public struct CameraState: Hashable, Sendable {
    /// The geographic point at the centre of the view.
    public private(set) var geoCenter: Coordinate
    /// Zoom level, within `limits`.
    public private(set) var zoomLevel: Double
    /// Which compass direction points up on the screen, degrees clockwise from true north, in [0, 360).
    public private(set) var orientation: Double
    /// The tilt asked for, degrees from looking straight down, in 0…85. The camera uses
    /// ``clippedTilt``, this value limited by the tilt profile at the current zoom, so a tilt
    /// set at a high zoom comes back when the view zooms in again after zooming out.
    public private(set) var tilt: Double
    /// The view the camera renders into.
    public let viewSize: ViewSize
    /// The zoom range and tilt profile.
    public let limits: CameraLimits
    /// How the Earth is drawn: a globe (the seed's default) or flat Web Mercator.
    public var projection: MapProjection

    /// Vertical field of view of the camera, degrees: MapLibre's default, 0.6435 rad ≈ 36.87°
    /// (the angle whose half has tangent 1/3).
    public static let fieldOfView = 36.869_897_645_844_02

    /// Creates a camera state.
    /// - Throws: `MapCameraError.notFinite` when a value is NaN or infinite.
    public init(geoCenter: Coordinate, zoomLevel: Double, orientation: Double = 0, tilt: Double = 0,
                viewSize: ViewSize, limits: CameraLimits = .default, projection: MapProjection = .globe) throws(MapCameraError) {
        self.viewSize = viewSize
        self.limits = limits
        self.projection = projection
        self.geoCenter = geoCenter
        self.zoomLevel = limits.minimumZoomLevel
        self.orientation = 0
        self.tilt = 0
        try set(CameraOptions(geoCenter: geoCenter, zoomLevel: zoomLevel, orientation: orientation, tilt: tilt))
    }

    /// The tilt the camera uses, degrees: ``tilt`` clamped into the profile's range at the
    /// current zoom (the seed's `clippedTilt`).
    public var clippedTilt: Double { limits.clampedTilt(tilt, atZoom: zoomLevel) }

    /// The largest tilt allowed at `zoom`, degrees (the seed's `maximumTiltAtZoomLevel:`).
    public func maximumTilt(atZoom zoom: Double) -> Double { limits.maximumTilt(atZoom: zoom) }

    /// The smallest tilt allowed at `zoom`, degrees (the seed's `minimumTiltAtZoomLevel:`).
    public func minimumTilt(atZoom zoom: Double) -> Double { limits.minimumTilt(atZoom: zoom) }

    /// The combined setter (the seed's `setGeoCenter:zoomLevel:orientation:tilt:`): each nil
    /// field keeps the current value, as `NMAMapViewPreserveValue` does.
    /// - Throws: `MapCameraError.notFinite` when a given value is NaN or infinite; then nothing changes.
    public mutating func set(_ options: CameraOptions) throws(MapCameraError) {
        if let z = options.zoomLevel { try requireFinite(z, "zoomLevel") }
        if let o = options.orientation { try requireFinite(o, "orientation") }
        if let t = options.tilt { try requireFinite(t, "tilt") }
        if let c = options.geoCenter {
            try requireFinite(c.latitude, "geoCenter latitude")
            try requireFinite(c.longitude, "geoCenter longitude")
        }
        if let c = options.geoCenter { geoCenter = Self.clampedCenter(c) }
        if let z = options.zoomLevel { zoomLevel = limits.clampedZoom(z) }
        if let o = options.orientation { orientation = Self.normalizedOrientation(o) }
        if let t = options.tilt { tilt = min(max(t, 0), TiltProfile.ceiling) }
    }

    /// This state with `options` applied (see ``set(_:)``).
    public func setting(_ options: CameraOptions) throws(MapCameraError) -> CameraState {
        var copy = self
        try copy.set(options)
        return copy
    }

    /// Sets values already known to be finite (animation frames, gestures).
    mutating func setFinite(center: Coordinate? = nil, zoom: Double? = nil, orientation o: Double? = nil, tilt t: Double? = nil) {
        if let center { geoCenter = Self.clampedCenter(center) }
        if let zoom { zoomLevel = limits.clampedZoom(zoom) }
        if let o { orientation = Self.normalizedOrientation(o) }
        if let t { tilt = min(max(t, 0), TiltProfile.ceiling) }
    }

    /// An orientation wrapped into [0, 360) degrees.
    static func normalizedOrientation(_ degrees: Double) -> Double { Bearing(degrees: degrees).degrees }

    /// A centre with its latitude limited to Web Mercator's square and its longitude in [-180, 180).
    static func clampedCenter(_ c: Coordinate) -> Coordinate {
        Coordinate(uncheckedLatitude: min(max(c.latitude, -WebMercator.maxLatitude), WebMercator.maxLatitude),
                   longitude: Coordinate.normalizedLongitude(c.longitude))
    }

    /// The width of the Web Mercator world at the current zoom, pixels: 512 · 2^zoom.
    public var worldSize: Double { 512 * exp2(zoomLevel) }

    /// Distance from the camera to the centre of the view, pixels: half the view's height over
    /// the tangent of half the field of view (MapLibre's `cameraToCenterDistance`).
    public var cameraToCenterDistance: Double { 0.5 * viewSize.height / tan(Self.fieldOfView * .pi / 360) }
}

/// The seed's combined setter's arguments: a new centre, zoom, orientation and tilt, each
/// optional; nil keeps the current value (`NMAMapViewPreserveValue`; MapLibre's `CameraOptions`).
public struct CameraOptions: Hashable, Sendable {
    public var geoCenter: Coordinate?
    public var zoomLevel: Double?
    /// Degrees clockwise from true north.
    public var orientation: Double?
    /// Degrees from looking straight down.
    public var tilt: Double?

    public init(geoCenter: Coordinate? = nil, zoomLevel: Double? = nil, orientation: Double? = nil, tilt: Double? = nil) {
        self.geoCenter = geoCenter
        self.zoomLevel = zoomLevel
        self.orientation = orientation
        self.tilt = tilt
    }
}
