import MapData
import MapStyle

/// Which of a vector tile's features a fill, line or circle layer draws at a zoom, and how far
/// each can reach: what a snapshot showing part of the tile needs to skip the rest without
/// filtering or shading it. A 256-pixel raster tile of zoom 17 shows 1/64 of the zoom-14 tile
/// its features come from (the deepest tile `geo tiles build` writes), so without this each
/// tile filtered, evaluated and meshed all 64 tiles' features and clipped them away.
///
/// A feature is skipped only when nothing it draws can reach the image: its geometry's bounding
/// box grown by its reach (``reach(of:)``) does not meet the image. The output is unchanged.
struct LayerTileFeatures {
    /// A feature the layer's filter keeps: its index in the tile's source layer, its geometry's
    /// bounding box (world units) and its reach (CSS pixels).
    struct Entry {
        var index: Int
        var minX: Double, minY: Double, maxX: Double, maxY: Double
        var reach: Double
    }

    var entries: [Entry]

    /// The key of a layer's features in one tile at one zoom (the filter and the paint
    /// properties giving the reach may depend on the zoom).
    struct Key: Hashable {
        var layer: String
        var tile: StyleResources.TileKey
        var zoom: Double
    }
}

extension StylePainter {
    /// The indices in `group` (tile `tile`'s features of `layer`'s source layer) of the
    /// features the layer's filter keeps and that can reach the image, in order; nil when the image
    /// is turned or tilted (all are then filtered as before). The filtered list and each
    /// feature's reach are kept in `resources` for the next snapshot at the same zoom.
    func culled(_ group: [RenderFeature], of layer: StyleLayer, in tile: CanonicalTile, source: String) -> [Int]? {
        guard !screen.isRotated, screen.perspective == nil else { return nil }
        let key = LayerTileFeatures.Key(layer: layer.id, tile: StyleResources.TileKey(source: source, z: tile.z, x: tile.x, y: tile.y), zoom: zoom)
        let kept = resources.layerTileFeatures(key) {
            var entries: [LayerTileFeatures.Entry] = []
            let reach = reach(of: layer), passes = passesFilter(of: layer)
            // Read in place through the buffer (an array's element is copied, its arrays and
            // properties retained, for each call it is passed to).
            group.withUnsafeBufferPointer { features in
                for i in features.indices where passes(features[i]) {
                    guard let box = Self.bounds(features[i]) else { continue }
                    entries.append(LayerTileFeatures.Entry(index: i, minX: box.minX, minY: box.minY, maxX: box.maxX, maxY: box.maxY, reach: reach(features[i])))
                }
            }
            return LayerTileFeatures(entries: entries)
        }
        let view = screen.visibleWorld(margin: 0)
        let worldPerPixel = camera.pixelRatio / screen.scale
        var out: [Int] = []
        for e in kept.entries {
            let r = e.reach * worldPerPixel
            guard e.maxX + r >= view.minX, e.minX - r <= view.maxX, e.maxY + r >= view.minY, e.minY - r <= view.maxY else { continue }
            out.append(e.index)
        }
        return out
    }

    /// Whether a feature passes `layer`'s filter (at the snapshot's zoom): the results kept by
    /// the properties the filter reads, so features alike in them are tested once
    /// (``PropertyMemo``), kept by the Map across snapshots at this zoom
    /// (``StyleResources/filterMemo(_:make:)``).
    func passesFilter(of layer: StyleLayer) -> (RenderFeature) -> Bool {
        guard let filter = layer.filter else { return { _ in true } }
        let globals = self.globals, zoom = self.zoom
        let memo = resources.filterMemo(StyleResources.FilterMemoKey(layer: layer.id, zoom: zoom)) { PropertyMemo(names: filter.propertyNames, zoom: zoom) }
        return { f in
            guard let memo else { return filter.matches(globals: globals, feature: f.expressionFeature, tile: f.tile) }
            return memo.value(f) { .boolean(filter.matches(globals: globals, feature: f.expressionFeature, tile: f.tile)) } == .boolean(true)
        }
    }

    /// How far past its geometry a feature of a fill, line or circle layer may draw, in CSS
    /// pixels, generously: a line's full width and gap, blur and offset times its miter limit
    /// (at least 2: round and square caps and joins reach half a width), a circle's radius and
    /// stroke, a fill's outline (a pixel either side of its edges); plus `*-translate` and two
    /// pixels of antialiasing. Infinite for a value that is not a finite number. The layer's
    /// properties are looked up once, for all the features the returned function is given.
    func reach(of layer: StyleLayer) -> (RenderFeature) -> Double {
        let zoom = self.zoom, type = layer.type
        func entry(_ name: String, paint: Bool = true) -> PropertyValues.Entry { propertyValues.entry(layer, name, paint: paint, zoom: zoom) }
        let translate = entry(type + "-translate")
        // The line's width, gap, blur, offset and miter limit; the circle's radius, stroke and blur.
        let sizes: [PropertyValues.Entry] = switch type {
        case "line": [entry("line-width"), entry("line-gap-width"), entry("line-blur"), entry("line-offset"), entry("line-miter-limit", paint: false)]
        case "circle": [entry("circle-radius"), entry("circle-stroke-width"), entry("circle-blur")]
        default: []
        }
        /// Pixels `*-translate` moves by (both axes), plus two of antialiasing.
        func shift(_ translate: ExpressionValue) -> Double { (translate.numbersValue ?? [0, 0]).reduce(0) { $0 + abs($1) } + 2 }
        /// The reach from the shift and the sizes' values (`size(i)`: `sizes[i]`'s).
        func total(shift: Double, _ size: (Int) -> ExpressionValue) -> Double {
            func number(_ i: Int) -> Double { size(i).numberValue ?? 0 }
            let r: Double
            switch type {
            case "line": r = (max(0, number(0)) + max(0, number(1)) + max(0, number(2)) + abs(number(3))) * max(2, number(4))
            case "circle": r = max(0, number(0)) + max(0, number(1)) + max(0, number(2))
            default: r = 1
            }
            let total = r + shift
            return total.isFinite ? total : .infinity
        }
        // What is the same for every feature is evaluated once (every value, the usual case: one
        // reach for all).
        let fixedShift: Double? = if case .value(let t) = translate { shift(t) } else { nil }
        let fixedSizes = sizes.compactMap { if case .value(let v) = $0 { v } else { nil } }
        if let fixedShift, fixedSizes.count == sizes.count {
            let reach = total(shift: fixedShift) { fixedSizes[$0] }
            return { _ in reach }
        }
        return { f in
            total(shift: fixedShift ?? shift(translate.value(zoom: zoom, feature: f))) { sizes[$0].value(zoom: zoom, feature: f) }
        }
    }

    /// The bounding box of a feature's geometry (world units); nil when it has no point.
    static func bounds(_ f: RenderFeature) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        func add(_ ps: [WorldPoint]) {
            for p in ps {
                minX = min(minX, p.x); maxX = max(maxX, p.x)
                minY = min(minY, p.y); maxY = max(maxY, p.y)
            }
        }
        add(f.points)
        for l in f.lines { add(l) }
        for polygon in f.polygons { for ring in polygon { add(ring) } }
        return minX <= maxX ? (minX, minY, maxX, maxY) : nil
    }
}
