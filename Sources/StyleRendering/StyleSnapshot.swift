import GeoCore
public import MapRenderer
public import MapStyle
public import MapData
import Platform

/// A style drawn into one image by the CPU rasterizer (MapRenderer): the layers in order,
/// each paint property evaluated at the camera's zoom for each feature, as MapLibre GL draws
/// them; under pitch the layers that lie on the map are drawn from above and tilted
/// (``Perspective``), circles facing the viewer, labels and extrusions drawn on the image.
/// Layers of other types (heatmap, hillshade) are left out and named in ``warnings``.
public struct StyleSnapshot {
    public let image: Pixmap
    /// What was not drawn and why (a layer type not drawn yet, a tile that did not load, a
    /// bad property value replaced by its default).
    public let warnings: [String]
    /// The labels and icons drawn, one per placed symbol: top layer first, as placed.
    public let symbols: [Symbol]

    /// A symbol drawn: its anchor and the rectangle of device pixels its glyphs, halos and icon
    /// cover (`minX..<maxX`, `minY..<maxY`, within the image).
    public struct Symbol: Sendable {
        public var anchor: Point
        public var minX: Int, minY: Int, maxX: Int, maxY: Int
    }

    /// Draws `style` for `camera`; `load` returns the bytes at a URL the style names (tiles,
    /// TileJSON, GeoJSON, images), throwing when it cannot. The tiles of a vector or raster
    /// source named in `sources` come from that map source instead of its URLs, its zooms
    /// from the source's metadata as from a TileJSON (``MapSnapshotter`` checks they fit).
    /// - Throws: `RenderError` when the image size is out of range.
    public init(style: StyleDocument, camera: StyleCamera, sources: [String: any MapSource] = [:],
                load: @escaping (String) throws -> [UInt8]) throws(RenderError) {
        try self.init(style: style, camera: camera, sources: sources, load: load, resources: StyleResources(), layers: .all)
    }

    /// Draws the layers of `style` that `layers` selects, with what `resources` holds (a
    /// ``Map``'s, kept across its snapshots) and adding to it what it lacks.
    init(style: StyleDocument, camera: StyleCamera, sources: [String: any MapSource], load: @escaping (String) throws -> [UInt8],
         resources: StyleResources, layers: Map.Layers) throws(RenderError) {
        var painter = try StylePainter(style: style, camera: camera, sources: sources, load: load, resources: resources)
        for layer in style.layers where layers.contains(layer) { painter.draw(layer) }
        painter.drawOn(ground: false)
        image = painter.canvas.pixmap
        warnings = style.diagnostics.map(\.description) + painter.warnings
        symbols = painter.symbolBounds()
    }
}

/// The state of one snapshot: the canvas, the camera, what was loaded.
struct StylePainter {
    var canvas: Canvas
    let camera: StyleCamera
    var screen: ScreenTransform
    let style: StyleDocument
    let load: (String) throws -> [UInt8]
    /// Tiled sources the caller supplies by source id (``StyleSnapshot``).
    let mapSources: [String: any MapSource]
    /// Tiles, sources, sprites and glyphs decoded for this snapshot or kept from earlier ones.
    let resources: StyleResources
    var warnings: [String] = []
    /// Loaded sources: GeoJSON features, or vector tiles' features by source layer.
    private var geoJSON: [String: [RenderFeature]] = [:]
    private var vectorTiles: [String: [(CanonicalTile, [String: [RenderFeature]])]] = [:]
    private var rasterCache: [String: [(CanonicalTile, Pixmap)]] = [:]
    /// The sprite's images by name, once loaded (PatternPainting).
    var sprites: [String: SpriteImage]? = nil
    /// Glyph ranges and placed labels (SymbolPainting.swift).
    var symbols = SymbolState()
    /// The properties of the layer being drawn that are the same for every feature, evaluated.
    let propertyValues: PropertyValues
    /// Lines of a layer meshed but not shaded yet (``PendingLines``).
    var pendingLines: PendingLines? = nil
    /// The empty mesh the last shaded ``pendingLines`` left, its arrays' storage kept for the
    /// next batch (which would otherwise grow its own from nothing).
    var spareMesh = LineMesh()
    /// The storage of polygon outlines' coverage (``OutlineCoverage``), kept from ring to ring.
    var outlineStorage = OutlineCoverage()
    /// Under a tilted camera, the canvas and transform not in use: the image and its
    /// perspective while the ground is drawn, the ground and its view from above otherwise.
    private var tilt: (canvas: Canvas, screen: ScreenTransform, onGround: Bool)?
    /// Whether a layer was drawn on the ground since it was last composited: a ground nothing
    /// was drawn on is transparent, and is not warped onto the image (a view's labels alone).
    private var groundDrawn = false

    init(style: StyleDocument, camera: StyleCamera, sources: [String: any MapSource], load: @escaping (String) throws -> [UInt8],
         resources: StyleResources) throws(RenderError) {
        canvas = try Canvas(width: camera.pixelWidth, height: camera.pixelHeight, background: .transparent)
        self.camera = camera
        screen = ScreenTransform(camera)
        self.style = style
        self.load = load
        mapSources = sources
        self.resources = resources
        propertyValues = PropertyValues(resources: resources)
        if let perspective = screen.perspective {
            // The ground the image shows, drawn from above around the same centre.
            let (hw, hh) = perspective.groundHalfSize(width: camera.pixelWidth, height: camera.pixelHeight, margin: 4)
            var above = camera
            above.pitch = 0
            above.width = Int((2 * hw / camera.pixelRatio).rounded(.up))
            above.height = Int((2 * hh / camera.pixelRatio).rounded(.up))
            tilt = (canvas, screen, false)
            canvas = try Canvas(width: above.pixelWidth, height: above.pixelHeight, background: .transparent)
            screen = ScreenTransform(above)
            tilt?.onGround = true
        }
    }

    /// Under a tilted camera, makes the ground (layers on the map's plane) or the image (circles
    /// and labels facing the viewer) the canvas drawn on; leaving the ground composites what
    /// was drawn on it onto the image, tilted, and clears it.
    mutating func drawOn(ground: Bool) {
        guard var t = tilt, t.onGround != ground else { return }
        if t.onGround, groundDrawn, let perspective = t.screen.perspective {
            let drawn = canvas.pixmap
            t.canvas.withPixmap { perspective.warp(drawn, onto: &$0) }
            canvas.withPixmap { $0.clear(to: .transparent) }
            groundDrawn = false
        }
        swap(&canvas, &t.canvas)
        swap(&screen, &t.screen)
        t.onGround = ground
        tilt = t
    }

    /// The tilted camera's view of the ground while the ground is the canvas drawn on, else nil.
    var groundView: Perspective? {
        guard let t = tilt, t.onGround else { return nil }
        return t.screen.perspective
    }

    /// Whether a layer lies on the map's plane (drawn on the ground under a tilted camera).
    func liesOnGround(_ layer: StyleLayer) -> Bool {
        switch layer.type {
        // Polygons stay polygons under the tilt: fills are filled on the image without
        // antialiasing as GL fills them, patterns looked up per pixel through the tilt; line
        // meshes are shaded on the image through the tilt (``LineShading/perspective``).
        case "symbol", "fill-extrusion", "fill", "background", "line": false
        case "circle": value(layer, "circle-pitch-alignment").stringValue == "map"
        default: true
        }
    }

    var zoom: Double { camera.zoom }

    mutating func draw(_ layer: StyleLayer) {
        guard layer.shows(atZoom: zoom) else { return }
        if tilt != nil {
            drawOn(ground: liesOnGround(layer))
            if groundView != nil { groundDrawn = true }
        }
        switch layer.type {
        case "background": drawBackground(layer)
        case "fill", "line", "circle":
            for (tile, group) in features(of: layer) {
                // Circles are not clipped to their tile (MapLibre draws them without the tile's
                // stencil, so a circle by a tile's edge is whole); each tile draws only the points
                // inside it (``drawCircle(_:_:in:)``), so none is drawn twice.
                canvas.clip = layer.type == "circle" ? nil : tile.flatMap { clipRect($0) }
                // A tile whose square lies beside the image (a neighbour the view's 2-pixel
                // margin reaches, loaded for the labels that may cross into it) draws nothing
                // there: its features are neither culled nor drawn.
                if let c = canvas.clip, c.maxX <= 0 || c.maxY <= 0 || c.minX >= canvas.width || c.minY >= canvas.height { continue }
                // The indices of the features drawn, in `group`: features are drawn from there,
                // not copied. Vector tiles: only what can reach the image (``LayerTileFeatures``).
                var matching = tile.flatMap { t in layer.source.flatMap { culled(group, of: layer, in: t, source: $0) } }
                    ?? { let passes = passesFilter(of: layer); return group.indices.filter { passes(group[$0]) } }()
                // `fill-sort-key`, `line-sort-key`, `circle-sort-key`: lower keys drawn first,
                // equal keys in the source's order, within a tile (as MapLibre sorts a bucket).
                let sortKey = layer.type + "-sort-key"
                if layer.layoutValues[sortKey] != nil {
                    let key = propertyValues.entry(layer, sortKey, paint: false, zoom: zoom)
                    let keys = group.withUnsafeBufferPointer { features in matching.map { key.value(zoom: zoom, feature: features[$0]).numberValue ?? 0 } }
                    matching = matching.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }.map { matching[$0] }
                }
                // GeoJSON is drawn again on each copy of the world in view (vector tiles come as copies).
                let center = screen.centerX
                for wrap in tile == nil ? worldCopies() : [0] {
                    screen.centerX = center - Double(wrap)
                    group.withUnsafeBufferPointer { features in
                        for i in matching {
                            switch layer.type {
                            case "fill": drawFill(features[i], layer)
                            case "line": drawLine(features[i], layer)
                            default: drawCircle(features[i], layer, in: tile)
                            }
                        }
                    }
                }
                screen.centerX = center
            }
            drawPendingLines()
            canvas.clip = nil
        case "raster": drawRaster(layer)
        case "symbol": drawSymbols(layer)
        case "fill-extrusion": drawExtrusions(layer)
        default: warnings.append("layer \(layer.id): \(layer.type) layers are not drawn")
        }
    }

    /// The copies of the world (−1, 0, 1: west, the world, east) the image shows, with a
    /// twentieth of a world to spare for what is drawn beyond its point (circles, wide lines).
    func worldCopies() -> [Int] {
        let r = screen.visibleWorld(margin: 2)
        return [-1, 0, 1].filter { Double($0) < r.maxX + 0.05 && Double($0 + 1) > r.minX - 0.05 }
    }

    var globals: ExpressionGlobals {
        var g = ExpressionGlobals()
        g.zoom = zoom
        g.globalState = style.globalState
        return g
    }

    /// A tile's square on screen in device pixels, when the map is not turned or tilted.
    func clipRect(_ t: CanonicalTile) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        guard !screen.isRotated, screen.perspective == nil else { return nil }
        let n = Double(1 << t.z)
        let a = screen.point(Double(t.x) / n, Double(t.y) / n), b = screen.point(Double(t.x + 1) / n, Double(t.y + 1) / n)
        return (Int(a.x.rounded()), Int(a.y.rounded()), Int(b.x.rounded()), Int(b.y.rounded()))
    }

    /// A tile's square on the ground seen from above, device pixels from the image's centre
    /// (what a tilted camera's tile clip shows), nil when the map is turned.
    func groundRect(_ t: CanonicalTile) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        guard !screen.isRotated else { return nil }
        let n = Double(1 << t.z)
        let a = screen.groundOffset(Double(t.x) / n, Double(t.y) / n), b = screen.groundOffset(Double(t.x + 1) / n, Double(t.y + 1) / n)
        return (a.x, a.y, b.x, b.y)
    }

    // MARK: Sources

    /// The features a layer draws, grouped by the tile they came from (nil: GeoJSON, whole).
    mutating func features(of layer: StyleLayer) -> [(CanonicalTile?, [RenderFeature])] {
        guard let name = layer.source, let source = style.sources[name] else { return [] }
        switch source.type {
        case "geojson":
            if geoJSON[name] == nil {
                let z = geoJSONTileZoom(name)
                let loaded: StyleResources.Loaded<[RenderFeature]> = resources.geoJSON[name]?[z] ?? {
                    do {
                        var features = try FeatureLoading.geoJSON(source, load: load)
                        if let clustering = PointClustering.options(source) { features = PointClustering.cluster(features, zoom: z, options: clustering) }
                        return .value(features.map { $0.snapped(toTileZoom: z) })
                    } catch {
                        return .failed("source \(name): \(error)")
                    }
                }()
                resources.geoJSON[name, default: [:]][z] = loaded
                switch loaded {
                case .value(let features): geoJSON[name] = features
                case .failed(let warning):
                    warnings.append(warning)
                    geoJSON[name] = []
                }
            }
            return [(nil, geoJSON[name] ?? [])]
        case "vector":
            if vectorTiles[name] == nil { vectorTiles[name] = loadVectorTiles(name, source) }
            let sourceLayer = layer.sourceLayer ?? ""
            return (vectorTiles[name] ?? []).map { ($0.0, $0.1[sourceLayer] ?? []) }
        default: return []
        }
    }

    /// The zoom of the tiles MapLibre cuts a GeoJSON source into for this view: the camera's
    /// integer zoom, at most the source's `maxzoom` (default 18).
    func geoJSONTileZoom(_ name: String) -> Int {
        var maxZoom = 18.0
        if case .object(let o)? = style.sources[name]?.json, case .number(let m)? = o["maxzoom"] { maxZoom = m }
        return Int(min(zoom.rounded(.down), maxZoom).clamped(0, 24))
    }

    /// The tile templates and zoom range of a tiled source, from the style or its TileJSON.
    private mutating func tileSetup(_ name: String, _ source: StyleSource) -> StyleResources.TileSetup? {
        if let supplied = mapSources[name] { return ([], Double(supplied.metadata.minZoom), Double(supplied.metadata.maxZoom), source.tileSize) }
        if !source.tiles.isEmpty { return (source.tiles, source.minZoom, source.maxZoom, source.tileSize) }
        if let held = resources.tileSetups[name] {
            if let warning = held.warning { warnings.append(warning) }
            return held.setup
        }
        let before = warnings.count
        let setup = loadTileJSON(name, source)
        resources.tileSetups[name] = (setup, warnings.count > before ? warnings.last : nil)
        return setup
    }

    /// The setup a source's TileJSON (`url`) gives; nil, with a warning, when it does not load.
    private mutating func loadTileJSON(_ name: String, _ source: StyleSource) -> StyleResources.TileSetup? {
        guard let url = source.url else { return nil }
        do {
            let json = try JSONValue(parsing: try load(url))
            guard case .object(let o) = json else { throw StyleRenderError("TileJSON is not an object") }
            let tiles: [String] = if case .array(let a)? = o["tiles"] { a.compactMap { if case .string(let s) = $0 { s } else { nil } } } else { [] }
            let minZ: Double = if case .number(let n)? = o["minzoom"] { n } else { source.minZoom }
            let maxZ: Double = if case .number(let n)? = o["maxzoom"] { n } else { source.maxZoom }
            let size: Double = if case .number(let n)? = o["tileSize"], n > 0 { n } else { source.tileSize }
            return (tiles, minZ, maxZ, size)
        } catch {
            warnings.append("source \(name): \(url): \(error)")
            return nil
        }
    }

    /// The tile zoom a source shows at the camera's zoom (MapLibre's `coveringZoomLevel`):
    /// rounded for raster sources, floored for vector ones, at most the source's maximum
    /// (deeper views scale its tiles up); nil below the source's minimum (nothing is drawn).
    private func tileZoom(tileSize: Double, minZoom: Double, maxZoom: Double, round: Bool) -> Int? {
        let z = zoom + log2(512 / tileSize)
        let covering = round ? z.rounded() : z.rounded(.down)
        guard covering >= minZoom.rounded(.down) else { return nil }
        return Int(min(covering, maxZoom.rounded(.down)).clamped(0, 24))
    }

    private mutating func coveringTiles(_ z: Int) -> [CanonicalTile] {
        FeatureLoading.tiles(covering: screen.visibleWorld(margin: 2), zoom: z)
    }

    private mutating func loadVectorTiles(_ name: String, _ source: StyleSource) -> [(CanonicalTile, [String: [RenderFeature]])] {
        guard let setup = tileSetup(name, source), mapSources[name] != nil || !setup.templates.isEmpty else { return [] }
        guard let z = tileZoom(tileSize: setup.tileSize, minZoom: setup.minZoom, maxZoom: setup.maxZoom, round: false) else { return [] }
        var out: [(CanonicalTile, [String: [RenderFeature]])] = []
        for t in coveringTiles(z) {
            let loaded = resources.vectorTile(StyleResources.TileKey(source: name, z: t.z, x: t.x, y: t.y)) {
                // A tile a supplied source lacks is an empty tile (nothing there), as an archive serves it.
                do { return .value(try FeatureLoading.vectorTile(try tileBytes(name, source, setup.templates, t) ?? [], t)) } catch {
                    return .failed("source \(name): tile \(t.z)/\(t.x)/\(t.y): \(error)")
                }
            }
            switch loaded {
            case .value(let layers): out.append((t, layers))
            case .failed(let warning): warnings.append(warning)
            }
        }
        return out
    }

    /// The bytes of tile `t` of source `name`: from the map source the caller supplied for it
    /// (nil where it has none), else read by `load` from the first of `templates` filled in.
    private func tileBytes(_ name: String, _ source: StyleSource, _ templates: [String], _ t: CanonicalTile) throws -> [UInt8]? {
        if let supplied = mapSources[name] {
            let n = 1 << t.z
            return try supplied.tile(zoom: t.z, x: ((t.x % n) + n) % n, y: t.y)?.bytes
        }
        guard let template = templates.first else { throw StyleRenderError("source \(name) has no tile URL") }
        return try load(FeatureLoading.url(template, t, tms: source.isTMS))
    }

    mutating func rasterTiles(_ name: String, _ source: StyleSource) -> [(CanonicalTile, Pixmap)] {
        if let cached = rasterCache[name] { return cached }
        var out: [(CanonicalTile, Pixmap)] = []
        if let setup = tileSetup(name, source), mapSources[name] != nil || !setup.templates.isEmpty,
           let z = tileZoom(tileSize: setup.tileSize, minZoom: setup.minZoom, maxZoom: setup.maxZoom, round: true) {
            for t in coveringTiles(z) {
                let loaded = resources.rasterTile(StyleResources.TileKey(source: name, z: t.z, x: t.x, y: t.y)) {
                    do {
                        // A raster tile a supplied source lacks draws nothing, as a 404 tile in MapLibre.
                        guard let bytes = try tileBytes(name, source, setup.templates, t) else { return .value(nil) }
                        return .value(try PNG.decode(bytes))
                    } catch {
                        return .failed("source \(name): tile \(t.z)/\(t.x)/\(t.y): \(error)")
                    }
                }
                switch loaded {
                case .value(let image?): out.append((t, image))
                case .value(nil): break
                case .failed(let warning): warnings.append(warning)
                }
            }
        }
        rasterCache[name] = out
        return out
    }
}

extension Double {
    func clamped(_ lo: Double, _ hi: Double) -> Double { Swift.min(Swift.max(self, lo), hi) }
}

/// The paint and layout values of one layer at a snapshot's zoom that do not depend on the
/// feature, evaluated on first use and kept while that layer is drawn (a line layer asks for a
/// dozen properties per feature); the properties that depend on it, looked up once, their
/// values kept by the feature properties they read where those are few (``PropertyMemo``),
/// kept by the Map across snapshots (``StyleResources/featureProperty(_:make:)``).
final class PropertyValues {
    enum Entry {
        case value(ExpressionValue)
        /// A property whose value depends on the feature.
        case perFeature(FeatureProperty)

        /// The value for feature `f` (none: the property's value without a feature) at `zoom`.
        func value(zoom: Double, _ f: RenderFeature?) -> ExpressionValue {
            switch self {
            case .value(let v): v
            case .perFeature(let p): if let f { p.value(zoom: zoom, feature: f) } else { p.property.evaluate(zoom: zoom) }
            }
        }

        /// The value for feature `f` at `zoom`, the feature borrowed: a value the same for
        /// every feature is returned without copying it into an optional (a dozen retains and
        /// releases of its arrays, per property and feature of a line layer).
        func value(zoom: Double, feature f: borrowing RenderFeature) -> ExpressionValue {
            switch self {
            case .value(let v): v
            case .perFeature(let p): p.value(zoom: zoom, feature: f)
            }
        }
    }

    /// A property whose value depends on the feature, held by reference (an entry is copied at
    /// every read: a property by value would be copied whole, its specification's strings and
    /// arrays retained, per read), with its values kept by the few feature properties it reads
    /// where it reads no more (``PropertyMemo``).
    final class FeatureProperty {
        let property: StyleProperty
        private let memo: PropertyMemo?

        init(_ property: StyleProperty, zoom: Double) {
            self.property = property
            memo = PropertyMemo(names: property.propertyNames, zoom: zoom)
        }

        func value(zoom: Double, feature f: borrowing RenderFeature) -> ExpressionValue {
            guard let memo, memo.zoom == zoom else { return property.evaluate(zoom: zoom, feature: f.expressionFeature, tile: f.tile) }
            return memo.value(f) { property.evaluate(zoom: zoom, feature: f.expressionFeature, tile: f.tile) }
        }
    }

    /// Where feature-dependent properties are kept across snapshots.
    private let resources: StyleResources
    private var layer = ""
    private var paint: [String: Entry] = [:], layout: [String: Entry] = [:]
    /// The entries of one list of names for the layer (``entries(_:_:zoom:)``).
    private var list: [Entry] = []
    /// The properties of one list of names as the layer sets them (``setPaint(_:_:)``), and
    /// those names.
    private var setList: [StyleProperty?] = [], setNames: [String] = []

    init(resources: StyleResources) { self.resources = resources }

    /// Property `name` of `layer` (paint or layout) at `zoom`: its value when it is the same
    /// for every feature, else the property to evaluate per feature.
    func entry(_ layer: StyleLayer, _ name: String, paint isPaint: Bool, zoom: Double) -> Entry {
        use(layer)
        if let held = isPaint ? paint[name] : layout[name] { return held }
        let entry: Entry
        if let p = isPaint ? layer.paint(name) : layer.layout(name) {
            entry = p.isFeatureDependent
                ? .perFeature(resources.featureProperty(StyleResources.FeaturePropertyKey(layer: layer.id, name: name, paint: isPaint, zoom: zoom)) { FeatureProperty(p, zoom: zoom) })
                : .value(p.evaluate(zoom: zoom))
        } else {
            entry = .value(.null)
        }
        if isPaint { paint[name] = entry } else { layout[name] = entry }
        return entry
    }

    /// The entries of `names` (each paint or layout) of `layer`, in order, looked up once while
    /// that layer is drawn: for a caller that reads the same properties of every feature (a
    /// line layer's dozen), one array instead of a hashed lookup per name and feature. One
    /// list of names per layer.
    func entries(_ layer: StyleLayer, _ names: [(name: String, paint: Bool)], zoom: Double) -> [Entry] {
        use(layer)
        if list.count != names.count { list = names.map { entry(layer, $0.name, paint: $0.paint, zoom: zoom) } }
        return list
    }

    /// The paint properties `names` of `layer` as its style sets them (nil where it does not),
    /// looked up once while that layer is drawn with the same names, as ``entries(_:_:zoom:)``
    /// are: for a caller that needs whether a property is set, or the property itself, for
    /// every feature.
    func setPaint(_ layer: StyleLayer, _ names: [String]) -> [StyleProperty?] {
        use(layer)
        if setNames != names {
            setNames = names
            setList = names.map { layer.paintValues[$0] }
        }
        return setList
    }

    /// Forgets what was held for another layer.
    private func use(_ layer: StyleLayer) {
        guard layer.id != self.layer else { return }
        self.layer = layer.id
        paint.removeAll(keepingCapacity: true)
        layout.removeAll(keepingCapacity: true)
        list.removeAll(keepingCapacity: true)
        setList.removeAll(keepingCapacity: true)
        setNames.removeAll(keepingCapacity: true)
    }
}

/// Consecutive line features of a layer that shade alike (colour, widths, blur, offset, clip
/// and tile unit the same; no dashes, pattern or tilt), gathered into one mesh and shaded in
/// one pass: triangles blend one after another in the same order as feature by feature, so the
/// image is the same, without each feature's own setup (buildings' outlines share everything).
struct PendingLines {
    var shading: LineShading
    var clip: (minX: Int, minY: Int, maxX: Int, maxY: Int)
    var mesh: LineMesh

    /// Whether lines shaded as `next` within `clip`, `tileUnit` device pixels a tile unit
    /// (``LineMesh/tileUnit``), shade as these do (both joinable).
    @inline(__always)
    func continues(with next: LineShading, clip: (minX: Int, minY: Int, maxX: Int, maxY: Int), tileUnit: Double) -> Bool {
        shading.joinable && next.joinable && self.clip == clip && mesh.tileUnit == tileUnit
            && shading.color == next.color && shading.outset == next.outset && shading.inset == next.inset
            && shading.blur == next.blur && shading.offset == next.offset
    }
}
