public import GeoCore
public import MapData
import MapRenderer
public import MapStyle

/// One map (MapLibre's `Map` without its view): a style, the map sources that serve its tiled
/// sources (by source id: PMTiles, MBTiles, XYZ folders, features in memory through
/// `FeatureMapSource`) and the loader of every other URL it names, drawn for any camera by
/// ``snapshot(camera:layers:)``. What is costly to prepare is done once and kept across
/// snapshots: the decoded style, decoded vector and raster tiles of each source (the 512 most
/// recently used of each kind), TileJSON, GeoJSON cut per tile zoom, the sprite's images and
/// the glyph ranges. ``MapSnapshotter``, `geo snapshot --style` and `MapView` draw through it.
///
/// The runtime style API (maplibre-gl-js `Map.setPaintProperty` …) changes the style in place;
/// each change drops only what it makes stale: a layer's paint, layout or filter keeps the
/// decoded tiles (they hold features, not their look; what layers made of them is dropped)
/// and bumps ``groundRevision`` or
/// ``symbolRevision`` (the layer is a symbol layer or not), so a view redraws its ground tiles
/// or its labels, not both; a source added, removed or changed drops that source's tiles.
///
/// Not thread-safe: own it from one task or actor.
public final class Map {
    /// Which of a style's layers a snapshot draws.
    public enum Layers: Sendable {
        /// Every layer: the whole image.
        case all
        /// Every layer but symbol layers: what lies on the map (a view's ground tiles).
        case ground
        /// Symbol layers only: labels and icons placed for the camera.
        case symbols

        func contains(_ layer: StyleLayer) -> Bool {
            switch self {
            case .all: true
            case .ground: layer.type != "symbol"
            case .symbols: layer.type == "symbol"
            }
        }
    }

    public private(set) var style: StyleDocument
    /// Tiled sources by the style's source id.
    public private(set) var sources: [String: any MapSource]
    /// The bytes at any other URL the style names; throws when it cannot.
    public let load: (String) throws -> [UInt8]
    let resources: StyleResources
    /// Changes so far to what the style's non-symbol layers draw (their paint, layout, filters,
    /// the layers themselves, the style or a source they use).
    public private(set) var groundRevision = 0
    /// Changes so far to what its symbol layers draw.
    public private(set) var symbolRevision = 0

    /// A map of `style` whose vector and raster sources are served by `sources` (by source
    /// id), every other URL through `load`.
    /// - Throws: ``MapSnapshotError`` at `sources.ID` for a map source given for an id the
    ///   style has no vector or raster source of, or whose tiles are not the kind that source
    ///   draws (MVT for `vector`, PNG for `raster`).
    public init(style: StyleDocument, sources: [String: any MapSource] = [:],
                load: @escaping (String) throws -> [UInt8] = { url in throw StyleRenderError("\(url): nothing loads URLs") }) throws(MapSnapshotError) {
        try Self.check(sources, of: style)
        self.style = style
        self.sources = sources
        self.load = load
        resources = StyleResources()
    }

    /// The built-in style (`DefaultStyle`, day unless `scheme` says) over `data` (the tiles
    /// `geo tiles build` writes, or `FeatureMapSource` over features), labels in the glyph
    /// ranges `glyphRange` makes (nil: no labels, a warning for each range).
    /// - Throws: ``MapSnapshotError`` at `style` only if the built-in style would not decode;
    ///   at `sources.openmaptiles` for `data` that is not MVT.
    public convenience init(scheme: DefaultStyle.Scheme = .day, options: DefaultStyle.Options = DefaultStyle.Options(), data: any MapSource,
                            glyphRange: ((_ fontStack: String, _ start: UInt32) throws -> [UInt8])? = nil) throws(MapSnapshotError) {
        let style: StyleDocument
        do { style = try DefaultStyle.document(scheme, options: options) } catch {
            throw MapSnapshotError(path: "style", message: error.description)
        }
        try self.init(style: style, sources: [DefaultStyle.sourceID: data], load: DefaultStyleResources(glyphRange: glyphRange).load)
    }

    /// Draws the layers `layers` selects for `camera`.
    /// - Throws: ``MapSnapshotError`` for a camera outside its ranges (``check(_:)``).
    public func snapshot(camera: StyleCamera, layers: Layers = .all) throws(MapSnapshotError) -> StyleSnapshot {
        try Self.check(camera)
        do { return try StyleSnapshot(style: style, camera: camera, sources: sources, load: load, resources: resources, layers: layers) } catch {
            throw MapSnapshotError(path: "camera", message: error.description)
        }
    }

    /// Vector and raster tiles decoded so far (a tile drawn again from what is kept is not counted).
    public var tilesDecoded: Int { resources.tilesDecoded }
    /// Decoded tiles kept now.
    public var tilesKept: Int { resources.tileCount }

    // MARK: The runtime style API

    /// Sets (or with nil resets) a paint property of layer `id`; nothing kept is dropped.
    /// - Throws: as `StyleDocument.setPaintProperty`; the style is then unchanged.
    public func setPaintProperty(_ name: String, _ value: JSONValue?, layer id: String) throws(StyleDocumentError) {
        try style.setPaintProperty(name, value, layer: id)
        changed(layer: id)
    }

    /// Sets (or with nil resets) a layout property of layer `id`; nothing kept is dropped.
    /// - Throws: as `StyleDocument.setLayoutProperty`; the style is then unchanged.
    public func setLayoutProperty(_ name: String, _ value: JSONValue?, layer id: String) throws(StyleDocumentError) {
        try style.setLayoutProperty(name, value, layer: id)
        changed(layer: id)
    }

    /// Sets (or with nil removes) the filter of layer `id`; nothing kept is dropped.
    /// - Throws: as `StyleDocument.setFilter`; the style is then unchanged.
    public func setFilter(_ filter: JSONValue?, layer id: String) throws(StyleDocumentError) {
        try style.setFilter(filter, layer: id)
        changed(layer: id)
    }

    /// Adds a layer (its JSON) before layer `before`, or on top.
    /// - Throws: as `StyleDocument.addLayer`; the style is then unchanged.
    public func addLayer(_ json: JSONValue, before: String? = nil) throws(StyleDocumentError) {
        try style.addLayer(json, before: before)
        let added = before.flatMap { id in style.layers.firstIndex { $0.id == id }.map { style.layers[$0 - 1] } } ?? style.layers.last
        bump(symbol: added?.type == "symbol")
    }

    /// Removes layer `id`.
    /// - Throws: as `StyleDocument.removeLayer`.
    public func removeLayer(_ id: String) throws(StyleDocumentError) {
        let symbol = style.layers.first { $0.id == id }?.type == "symbol"
        try style.removeLayer(id)
        bump(symbol: symbol)
    }

    /// Adds source `id` (its JSON, as in a style's `sources`), its tiles served by `mapSource`
    /// when given (as `sources` at init).
    /// - Throws: as `StyleDocument.addSource`, or ``MapSnapshotError`` as init checks
    ///   `mapSource`, wrapped as a `StyleDocumentError` at `sources.ID`; the map is then unchanged.
    public func addSource(_ id: String, _ json: JSONValue, mapSource: (any MapSource)? = nil) throws(StyleDocumentError) {
        var changed = style
        try changed.addSource(id, json)
        if let mapSource {
            do { try Self.check([id: mapSource], of: changed) } catch { throw StyleDocumentError(path: error.path, message: error.message) }
        }
        style = changed
        sources[id] = mapSource
        resources.removeSource(id)
    }

    /// Removes source `id` and what was kept of it.
    /// - Throws: as `StyleDocument.removeSource` (no such source, or a layer uses it).
    public func removeSource(_ id: String) throws(StyleDocumentError) {
        try style.removeSource(id)
        sources[id] = nil
        resources.removeSource(id)
    }

    /// Replaces the style (MapLibre's `setStyle`) and, when given, the map sources. What is kept
    /// stays for the sources whose JSON is unchanged when no map sources are given; the sprite and the glyph
    /// ranges stay when the style's `sprite` and `glyphs` are the same.
    /// - Throws: ``MapSnapshotError`` as init checks sources; the map is then unchanged.
    public func setStyle(_ newStyle: StyleDocument, sources newSources: [String: any MapSource]? = nil) throws(MapSnapshotError) {
        let supplied = newSources ?? sources
        try Self.check(supplied, of: newStyle)
        for id in Set(style.sources.keys).union(newStyle.sources.keys) where newSources != nil || style.sources[id]?.json != newStyle.sources[id]?.json {
            resources.removeSource(id)
        }
        if style.sprite != newStyle.sprite { resources.sprites = [:] }
        if style.glyphs != newStyle.glyphs { resources.glyphRanges = [:] }
        style = newStyle
        sources = supplied
        bump(symbol: false)
        bump(symbol: true)
    }

    private func changed(layer id: String) {
        bump(symbol: style.layers.first { $0.id == id }?.type == "symbol")
    }

    private func bump(symbol: Bool) {
        if symbol { symbolRevision &+= 1 } else { groundRevision &+= 1 }
        resources.removeLayerTiles()
    }

    // MARK: Checks

    /// The zooms a camera may have: MapLibre's 0 (the world in one 512-pixel tile) through
    /// its largest `maxZoom`, 24.
    public static let zoomRange = 0.0...24.0
    /// Device pixels per CSS pixel: 0.25…8 (`geo snapshot --pixel-ratio`'s range).
    public static let pixelRatioRange = 0.25...8.0

    /// Refuses a camera outside its ranges: a side under 1 or over `Pixmap.maxSide` device
    /// pixels, a pixel ratio outside ``pixelRatioRange``, a zoom outside ``zoomRange``, a
    /// latitude beyond ±90° or a non-finite centre, bearing or pitch, a pitch below 0.
    /// - Throws: ``MapSnapshotError`` at `camera.FIELD`.
    public static func check(_ c: StyleCamera) throws(MapSnapshotError) {
        guard c.pixelRatio.isFinite, pixelRatioRange.contains(c.pixelRatio) else {
            throw MapSnapshotError(path: "camera.pixelRatio", message: "\(c.pixelRatio) is outside \(pixelRatioRange)")
        }
        for (name, side, pixels) in [("width", c.width, Double(c.width) * c.pixelRatio), ("height", c.height, Double(c.height) * c.pixelRatio)] {
            guard side >= 1, pixels.rounded() >= 1, pixels.rounded() <= Double(Pixmap.maxSide) else {
                throw MapSnapshotError(path: "camera.\(name)", message: "\(side) points at pixel ratio \(c.pixelRatio) is outside 1…\(Pixmap.maxSide) device pixels")
            }
        }
        guard c.zoom.isFinite, zoomRange.contains(c.zoom) else {
            throw MapSnapshotError(path: "camera.zoom", message: "\(c.zoom) is outside MapLibre's \(zoomRange)")
        }
        guard c.latitude.isFinite, (-90...90).contains(c.latitude) else {
            throw MapSnapshotError(path: "camera.latitude", message: "\(c.latitude) is not a latitude in −90…90°")
        }
        guard c.longitude.isFinite else { throw MapSnapshotError(path: "camera.longitude", message: "\(c.longitude) is not finite") }
        guard c.bearing.isFinite else { throw MapSnapshotError(path: "camera.bearing", message: "\(c.bearing) is not finite") }
        guard c.pitch.isFinite, c.pitch >= 0 else { throw MapSnapshotError(path: "camera.pitch", message: "\(c.pitch) is not a pitch of 0° or more") }
    }

    /// Refuses a map source for an id `style` has no vector or raster source of, or whose tiles
    /// are not the kind that source draws.
    static func check(_ sources: [String: any MapSource], of style: StyleDocument) throws(MapSnapshotError) {
        for (id, source) in sources.sorted(by: { $0.key < $1.key }) {
            guard let styled = style.sources[id], ["vector", "raster"].contains(styled.type) else {
                throw MapSnapshotError(path: "sources.\(id)", message: "the style has no vector or raster source \"\(id)\"")
            }
            let format = source.metadata.format
            guard (styled.type == "vector") == (format == .mvt), format != .webp, format != .jpeg else {
                throw MapSnapshotError(path: "sources.\(id)", message: "\(format.rawValue) tiles cannot serve a \(styled.type) source")
            }
        }
    }
}
