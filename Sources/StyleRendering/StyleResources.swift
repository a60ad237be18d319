import GeoBase
import MapData
import MapRenderer

/// What drawing a style loads and decodes that does not depend on the camera's view or on the
/// style's layers, kept by a ``Map`` across its snapshots: decoded vector tiles and raster
/// tiles per source (least recently used dropped beyond `tileCapacity` each kind), TileJSON
/// setups, GeoJSON sources cut for a tile zoom, sprite images per sheet resolution and glyph
/// ranges. A load that failed is kept with its warning, given again each time it is used, as a
/// snapshot of its own would give it. Also kept, per vector tile and zoom, what the layers
/// make of it independently of the view: each fill, line and circle layer's filtered features
/// and their reach (``LayerTileFeatures``), each symbol layer's features, shaped texts and the
/// tile's placed labels; any change of a layer, the style or a source drops these (a change of
/// a layer leaves the decoded resources valid: ``Map`` drops only what a source's or the
/// style's `sprite` / `glyphs` change makes stale).
final class StyleResources {
    /// A tile of a source, its column unwrapped (a copy of the world east or west keeps its own).
    struct TileKey: Hashable {
        var source: String
        var z: Int, x: Int, y: Int
    }

    /// A loaded thing, or the warning its loading gave.
    enum Loaded<Value> {
        case value(Value)
        case failed(String)
    }

    /// A tiled source's setup: tile URL templates, zoom range and tile size (CSS pixels).
    typealias TileSetup = (templates: [String], minZoom: Double, maxZoom: Double, tileSize: Double)

    /// The most decoded tiles kept of each kind (vector, raster), over all sources.
    let tileCapacity: Int
    var vectorTiles: LeastRecentlyUsedCache<TileKey, Loaded<[String: [RenderFeature]]>>
    /// A raster tile's image; nil for a tile the supplied source lacks (drawn as nothing).
    var rasterTiles: LeastRecentlyUsedCache<TileKey, Loaded<Pixmap?>>
    /// By source id: nil when the source has no setup (no tiles, no URL), with the warning if any.
    var tileSetups: [String: (setup: TileSetup?, warning: String?)] = [:]
    /// GeoJSON sources' features cut for a tile zoom, by source id and zoom.
    var geoJSON: [String: [Int: Loaded<[RenderFeature]>]] = [:]
    /// The sprite's images and the warnings loading them gave, by sheet resolution (`@2x` or not).
    var sprites: [Bool: (images: [String: SpriteImage], warnings: [String])] = [:]
    /// Glyph ranges by font stack and range start.
    var glyphRanges: [StylePainter.GlyphRangeKey: Loaded<[UInt32: SDFGlyph]>] = [:]
    /// Vector and raster tiles decoded so far (a tile found here is not counted again).
    private(set) var tilesDecoded = 0
    /// What a fill, line or circle layer draws of a vector tile at a zoom (``LayerTileFeatures``);
    /// emptied when it would hold more than `layerTileCapacity` entries, and by ``Map`` when a
    /// layer, the style or a source changes.
    private(set) var layerTiles: [LayerTileFeatures.Key: LayerTileFeatures] = [:]
    /// What a symbol layer places of a vector tile at a zoom: the features its filter keeps,
    /// lines of one text joined (`mergedLines`), in the source's order; emptied as `layerTiles`.
    private(set) var symbolTiles: [LayerTileFeatures.Key: [RenderFeature]] = [:]
    /// The text of a symbol layer's feature of a tile (by its index in `symbolTiles`) shaped
    /// at a zoom and pixel ratio (nil: no text); emptied as `layerTiles`, and when it would hold
    /// more than 64 times `layerTileCapacity` labels.
    private(set) var shapedTexts: [ShapedTextKey: ShapedLabelText?] = [:]
    struct ShapedTextKey: Hashable {
        var features: LayerTileFeatures.Key
        var index: Int
        var pixelRatio: Double
    }
    /// The labels placed in a vector tile at a zoom and pixel ratio, all symbol layers
    /// (`StylePainter.placedByTile`); emptied as `layerTiles`.
    private(set) var placements: [PlacementKey: TilePlacement] = [:]
    /// A layer's filter values at a zoom kept by the feature properties the filter reads
    /// (``PropertyMemo``; nil: the filter reads more of a feature), so that a tile new to a view
    /// finds those of features like the ones of tiles filtered before; emptied as `layerTiles`.
    private(set) var filterMemos: [FilterMemoKey: PropertyMemo?] = [:]
    struct FilterMemoKey: Hashable {
        var layer: String
        var zoom: Double
    }
    /// A layer's feature-dependent paint and layout properties at a zoom, each with its values
    /// kept by the feature properties it reads (``PropertyValues/FeatureProperty``), so that a
    /// snapshot finds the values of features like those drawn before instead of evaluating
    /// the property again for each; emptied as `layerTiles`.
    private(set) var featureProperties: [FeaturePropertyKey: PropertyValues.FeatureProperty] = [:]
    struct FeaturePropertyKey: Hashable {
        var layer: String
        var name: String
        var paint: Bool
        var zoom: Double
    }
    struct PlacementKey: Hashable {
        var z: Int, x: Int, y: Int
        var zoom: Double
        var pixelRatio: Double
        /// Degrees: the boxes labels collide in are upright on screen.
        var bearing: Double
    }
    /// A tile's labels by symbol layer id, in drawing order, placed with `centerX`, `centerY`
    /// (world units: the tile's centre) at device pixel (0, 0): moved to draw them in a view.
    struct TilePlacement {
        var centerX: Double, centerY: Double
        var labels: [String: [PlacedLabel]]
    }
    /// The most layer tiles kept of each kind: a style's layers over the tiles of a few views.
    let layerTileCapacity = 8192

    init(tileCapacity: Int = 512) {
        self.tileCapacity = max(tileCapacity, 0)
        vectorTiles = LeastRecentlyUsedCache(capacity: self.tileCapacity)
        rasterTiles = LeastRecentlyUsedCache(capacity: self.tileCapacity)
    }

    /// A vector tile's features by source layer, decoded by `decode` when not held.
    func vectorTile(_ key: TileKey, decode: () -> Loaded<[String: [RenderFeature]]>) -> Loaded<[String: [RenderFeature]]> {
        if let held = vectorTiles.value(forKey: key) { return held }
        let loaded = decode()
        tilesDecoded += 1
        _ = vectorTiles.insert(loaded, forKey: key)
        return loaded
    }

    /// A raster tile's image, decoded by `decode` when not held.
    func rasterTile(_ key: TileKey, decode: () -> Loaded<Pixmap?>) -> Loaded<Pixmap?> {
        if let held = rasterTiles.value(forKey: key) { return held }
        let loaded = decode()
        tilesDecoded += 1
        _ = rasterTiles.insert(loaded, forKey: key)
        return loaded
    }

    /// A layer's features of a tile at a zoom, made by `make` when not held.
    func layerTileFeatures(_ key: LayerTileFeatures.Key, make: () -> LayerTileFeatures) -> LayerTileFeatures {
        if let held = layerTiles[key] { return held }
        if layerTiles.count >= layerTileCapacity { layerTiles.removeAll(keepingCapacity: true) }
        let made = make()
        layerTiles[key] = made
        return made
    }

    /// A symbol layer's features of a tile at a zoom, made by `make` when not held.
    func symbolTileFeatures(_ key: LayerTileFeatures.Key, make: () -> [RenderFeature]) -> [RenderFeature] {
        if let held = symbolTiles[key] { return held }
        if symbolTiles.count >= layerTileCapacity { symbolTiles.removeAll(keepingCapacity: true) }
        let made = make()
        symbolTiles[key] = made
        return made
    }

    /// A layer's filter memo at a zoom, made by `make` when not held.
    func filterMemo(_ key: FilterMemoKey, make: () -> PropertyMemo?) -> PropertyMemo? {
        if let held = filterMemos[key] { return held }
        if filterMemos.count >= layerTileCapacity { filterMemos.removeAll(keepingCapacity: true) }
        let made = make()
        filterMemos[key] = .some(made)
        return made
    }

    /// A layer's feature-dependent property at a zoom, made by `make` when not held.
    func featureProperty(_ key: FeaturePropertyKey, make: () -> PropertyValues.FeatureProperty) -> PropertyValues.FeatureProperty {
        if let held = featureProperties[key] { return held }
        if featureProperties.count >= layerTileCapacity { featureProperties.removeAll(keepingCapacity: true) }
        let made = make()
        featureProperties[key] = made
        return made
    }

    /// A label's shaped text, when held (`.some(nil)`: it has none).
    func shapedText(_ key: ShapedTextKey) -> ShapedLabelText?? { shapedTexts[key] }

    /// Keeps a label's shaped text.
    func keep(_ text: ShapedLabelText?, for key: ShapedTextKey) {
        if shapedTexts.count >= 64 * layerTileCapacity { shapedTexts.removeAll(keepingCapacity: true) }
        shapedTexts[key] = .some(text)
    }

    /// A tile's placed labels, when held.
    func placement(_ key: PlacementKey) -> TilePlacement? { placements[key] }

    /// Keeps a tile's placed labels.
    func keep(_ placement: TilePlacement, for key: PlacementKey) {
        if placements.count >= layerTileCapacity { placements.removeAll(keepingCapacity: true) }
        placements[key] = placement
    }

    /// Drops what layers draw of tiles: a layer, the style or a source changed.
    func removeLayerTiles() {
        layerTiles.removeAll()
        symbolTiles.removeAll()
        shapedTexts.removeAll()
        placements.removeAll()
        filterMemos.removeAll()
        featureProperties.removeAll()
    }

    /// Drops everything of source `id` (it was replaced, removed or changed).
    func removeSource(_ id: String) {
        removeLayerTiles()
        for key in vectorTiles.keysByRecency where key.source == id { _ = vectorTiles.removeValue(forKey: key) }
        for key in rasterTiles.keysByRecency where key.source == id { _ = rasterTiles.removeValue(forKey: key) }
        tileSetups[id] = nil
        geoJSON[id] = nil
    }

    /// Decoded tiles held now, vector and raster.
    var tileCount: Int { vectorTiles.count + rasterTiles.count }
}
