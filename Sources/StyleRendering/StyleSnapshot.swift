import GeoCore
public import MapRenderer
public import MapStyle
import MapData
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A style drawn into one image by the CPU rasterizer (MapRenderer): the layers in order,
/// each paint property evaluated at the camera's zoom for each feature, as MapLibre GL draws
/// them seen from above. Background, fill, line, circle and raster layers are drawn; the
/// others (symbol, fill-extrusion, heatmap, hillshade) are left out and named in ``warnings``.
public struct StyleSnapshot {
    public let image: Pixmap
    /// What was not drawn and why (a layer type not drawn yet, a tile that did not load, a
    /// bad property value replaced by its default).
    public let warnings: [String]

    /// Draws `style` for `camera`; `load` returns the bytes at a URL the style names (tiles,
    /// TileJSON, GeoJSON, images), throwing when it cannot.
    /// - Throws: `RenderError` when the image size is out of range.
    public init(style: StyleDocument, camera: StyleCamera, load: @escaping (String) throws -> [UInt8]) throws(RenderError) {
        var painter = try StylePainter(style: style, camera: camera, load: load)
        for layer in style.layers { painter.draw(layer) }
        image = painter.canvas.pixmap
        warnings = style.diagnostics.map(\.description) + painter.warnings
    }
}

/// The state of one snapshot: the canvas, the camera, what was loaded.
struct StylePainter {
    var canvas: Canvas
    let camera: StyleCamera
    var screen: ScreenTransform
    let style: StyleDocument
    let load: (String) throws -> [UInt8]
    var warnings: [String] = []
    /// Loaded sources: GeoJSON features, or vector tiles' features by source layer.
    private var geoJSON: [String: [RenderFeature]] = [:]
    private var vectorTiles: [String: [(CanonicalTile, [String: [RenderFeature]])]] = [:]
    private var rasterCache: [String: [(CanonicalTile, Pixmap)]] = [:]
    /// The sprite's images by name, once loaded (PatternPainting).
    var sprites: [String: SpriteImage]? = nil
    /// Glyph ranges and placed labels (SymbolPainting.swift).
    var symbols = SymbolState()

    init(style: StyleDocument, camera: StyleCamera, load: @escaping (String) throws -> [UInt8]) throws(RenderError) {
        canvas = try Canvas(width: camera.pixelWidth, height: camera.pixelHeight, background: .transparent)
        self.camera = camera
        screen = ScreenTransform(camera)
        self.style = style
        self.load = load
    }

    var zoom: Double { camera.zoom }

    mutating func draw(_ layer: StyleLayer) {
        guard layer.shows(atZoom: zoom) else { return }
        switch layer.type {
        case "background": drawBackground(layer)
        case "fill", "line", "circle":
            for (tile, group) in features(of: layer) {
                canvas.clip = tile.flatMap { clipRect($0) }
                let matching = group.filter { layer.filter?.matches(globals: globals, feature: $0.expressionFeature, tile: $0.tile) ?? true }
                // GeoJSON is drawn again on each copy of the world in view (vector tiles come as copies).
                let center = screen.centerX
                for wrap in tile == nil ? worldCopies() : [0] {
                    screen.centerX = center - Double(wrap)
                    for f in matching {
                        switch layer.type {
                        case "fill": drawFill(f, layer)
                        case "line": drawLine(f, layer)
                        default: drawCircle(f, layer)
                        }
                    }
                }
                screen.centerX = center
            }
            canvas.clip = nil
        case "raster": drawRaster(layer)
        case "symbol": drawSymbols(layer)
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

    /// A tile's square on screen in device pixels, when the map is not turned.
    func clipRect(_ t: CanonicalTile) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        guard !screen.isRotated else { return nil }
        let n = Double(1 << t.z)
        let a = screen.point(Double(t.x) / n, Double(t.y) / n), b = screen.point(Double(t.x + 1) / n, Double(t.y + 1) / n)
        return (Int(a.x.rounded()), Int(a.y.rounded()), Int(b.x.rounded()), Int(b.y.rounded()))
    }

    // MARK: Sources

    /// The features a layer draws, grouped by the tile they came from (nil: GeoJSON, whole).
    mutating func features(of layer: StyleLayer) -> [(CanonicalTile?, [RenderFeature])] {
        guard let name = layer.source, let source = style.sources[name] else { return [] }
        switch source.type {
        case "geojson":
            if geoJSON[name] == nil {
                do { geoJSON[name] = try FeatureLoading.geoJSON(source, load: load) } catch {
                    warnings.append("source \(name): \(error)")
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

    /// The tile templates and zoom range of a tiled source, from the style or its TileJSON.
    private mutating func tileSetup(_ name: String, _ source: StyleSource) -> (templates: [String], minZoom: Double, maxZoom: Double, tileSize: Double)? {
        if !source.tiles.isEmpty { return (source.tiles, source.minZoom, source.maxZoom, source.tileSize) }
        guard let url = source.url else { return nil }
        do {
            let json = try JSONDecoder().decode(JSONValue.self, from: Data(try load(url)))
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
        guard let setup = tileSetup(name, source), let template = setup.templates.first else { return [] }
        guard let z = tileZoom(tileSize: setup.tileSize, minZoom: setup.minZoom, maxZoom: setup.maxZoom, round: false) else { return [] }
        var out: [(CanonicalTile, [String: [RenderFeature]])] = []
        for t in coveringTiles(z) {
            let url = FeatureLoading.url(template, t, tms: source.isTMS)
            do { out.append((t, try FeatureLoading.vectorTile(try load(url), t))) } catch {
                warnings.append("source \(name): tile \(t.z)/\(t.x)/\(t.y): \(error)")
            }
        }
        return out
    }

    mutating func rasterTiles(_ name: String, _ source: StyleSource) -> [(CanonicalTile, Pixmap)] {
        if let cached = rasterCache[name] { return cached }
        var out: [(CanonicalTile, Pixmap)] = []
        if let setup = tileSetup(name, source), let template = setup.templates.first,
           let z = tileZoom(tileSize: setup.tileSize, minZoom: setup.minZoom, maxZoom: setup.maxZoom, round: true) {
            for t in coveringTiles(z) {
                let url = FeatureLoading.url(template, t, tms: source.isTMS)
                do { out.append((t, try PNG.decode(try load(url)))) } catch {
                    warnings.append("source \(name): tile \(t.z)/\(t.x)/\(t.y): \(error)")
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
