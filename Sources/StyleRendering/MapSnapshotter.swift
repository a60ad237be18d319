public import GeoCore
public import MapData
public import MapStyle

/// Why ``MapSnapshotter`` drew nothing: the input at fault, named as the snapshotter's
/// property path, with its value.
public struct MapSnapshotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input: `camera.width`, `camera.zoom`, `camera.latitude`, `sources.ID`, …
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// A style drawn for a camera into one image without a map view: the seed's class-level
/// snapshot (`+snapshotWithGeoCoordinates:zoomLevel:orientation:size:block:`), MapLibre
/// Native's `MapSnapshotter`: a ``Map`` made for one snapshot. The style's vector and raster
/// sources are served by the map sources given by source id (PMTiles, MBTiles, XYZ folders,
/// features in memory through `FeatureMapSource`); every other URL (GeoJSON, images, sprites,
/// glyphs, TileJSON, tiles of sources not given) through `load`. To draw the same style for
/// many cameras, keep a ``Map``: it keeps the decoded tiles, sprite and glyphs.
///
/// A source the style names that nobody serves is drawn as MapLibre draws it: each of its
/// tiles fails to load (an `error` event in MapLibre, a warning here) and the rest of the
/// style is drawn.
public struct MapSnapshotter {
    public var style: StyleDocument
    /// Tiled sources by the style's source id.
    public var sources: [String: any MapSource]
    public var camera: StyleCamera
    /// The bytes at any other URL the style names; throws when it cannot.
    public var load: (String) throws -> [UInt8]

    public init(style: StyleDocument, sources: [String: any MapSource] = [:], camera: StyleCamera,
                load: @escaping (String) throws -> [UInt8] = { url in throw StyleRenderError("\(url): nothing loads URLs") }) {
        self.style = style
        self.sources = sources
        self.camera = camera
        self.load = load
    }

    /// The built-in style (`DefaultStyle`, day unless `scheme` says) over `data` (the tiles
    /// `geo tiles build` writes, or `FeatureMapSource` over features), labels in the glyph
    /// ranges `glyphRange` makes (nil: no labels, a warning for each range).
    /// - Throws: ``MapSnapshotError`` at `style` only if the built-in style would not decode.
    public init(scheme: DefaultStyle.Scheme = .day, options: DefaultStyle.Options = DefaultStyle.Options(), data: any MapSource,
                camera: StyleCamera, glyphRange: ((_ fontStack: String, _ start: UInt32) throws -> [UInt8])? = nil) throws(MapSnapshotError) {
        let style: StyleDocument
        do { style = try DefaultStyle.document(scheme, options: options) } catch {
            throw MapSnapshotError(path: "style", message: error.description)
        }
        self.init(style: style, sources: [DefaultStyle.sourceID: data], camera: camera,
                  load: DefaultStyleResources(glyphRange: glyphRange).load)
    }

    /// The seed's zoom level as MapLibre's: HERE's levels count the Web Mercator world in
    /// 256-pixel tiles (level 0 is the world in 256 pixels, as the legacy `geo snapshot --zoom`),
    /// MapLibre's in 512, so level z is zoom z − 1. The one place the two meet.
    public static func zoom(hereZoomLevel level: Double) -> Double { level - 1 }

    /// The camera of the seed's class-level snapshot: centred on `geoCoordinates`, the seed's
    /// zoom `level` (see ``zoom(hereZoomLevel:)``), `orientation` the compass direction at the
    /// top of the image in degrees clockwise from north, an image of `width × height` points at
    /// `pixelRatio` device pixels each, looking straight down.
    public static func camera(geoCoordinates: Coordinate, zoomLevel level: Double, orientation: Double,
                              width: Int, height: Int, pixelRatio: Double = 1) -> StyleCamera {
        StyleCamera(longitude: geoCoordinates.longitude, latitude: geoCoordinates.latitude, zoom: zoom(hereZoomLevel: level),
                    bearing: orientation, pitch: 0, width: width, height: height, pixelRatio: pixelRatio)
    }

    /// Draws the style for the camera.
    /// - Throws: ``MapSnapshotError`` for a camera outside its ranges (`Map.check(_:)`), or a
    ///   map source given for an id the style has no vector or raster source of, or whose
    ///   tiles are not the kind that source draws (MVT for `vector`, PNG for `raster`).
    public func snapshot() throws(MapSnapshotError) -> StyleSnapshot {
        try Map.check(camera)
        return try Map(style: style, sources: sources, load: load).snapshot(camera: camera)
    }
}
