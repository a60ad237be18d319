import GeoCore
import MapData
import MapRenderer
import MapStyle
import Platform

/// A label's text shaped for its layer: the glyphs, its `format` sections' colours and its
/// scale in device pixels per em unit.
typealias ShapedLabelText = (shaped: ShapedText, colors: [StyleColor?], scale: Double)

/// Where a style's symbol layers put their text, as GL JS places it seen from above: layers
/// from the top down, features in `symbol-sort-key` order (or from the top of the screen
/// down when they may overlap), each label shown only where its boxes clear the boxes placed
/// before it in its tile at the camera's scale (`SymbolCollision.swift`; `text-allow-overlap`
/// skips the test, `text-ignore-placement` keeps the boxes out of the index). Sizes are CSS
/// pixels × pixel ratio.
extension StylePainter {
    mutating func placeSymbols() {
        let layers = style.layers.reversed().filter { $0.type == "symbol" && $0.shows(atZoom: zoom) }
        if let byTile = placedByTile(layers) {
            symbols.placed = byTile
            return
        }
        var placed: [String: [PlacedLabel]] = [:]
        // One collision index per tile (GeoJSON features share one), kept across layers.
        var collisions: [String: CollisionTile] = [:]
        for layer in layers {
            placed[layer.id] = place(layer, Self.placementOrder(features(of: layer), bearing: camera.bearing), &collisions)
        }
        symbols.placed = placed
    }

    /// The labels of vector tiles placed tile by tile, each tile's about its own centre and
    /// kept by the Map (``StyleResources/TilePlacement``), then moved to the view: a label's
    /// place depends only on its tile's features and the zoom (each tile has its own collision
    /// index), so every view of a tile at a zoom shows the same labels — neighbouring raster
    /// tiles agree along their edges, and a view of part of a tile does not place the whole
    /// tile again. Nil (placed for the view) when the map is turned (but for half turns, kept
    /// apart by the bearing) or tilted, or a symbol layer draws GeoJSON.
    private mutating func placedByTile(_ layers: [StyleLayer]) -> [String: [PlacedLabel]]? {
        guard !screen.isRotated, screen.perspective == nil else { return nil }
        var groups: [String: [(CanonicalTile, [RenderFeature])]] = [:]
        var tiles: [StyleResources.PlacementKey] = []
        for layer in layers {
            var list: [(CanonicalTile, [RenderFeature])] = []
            for (tile, group) in Self.placementOrder(features(of: layer), bearing: camera.bearing) {
                guard let tile else { return nil }
                list.append((tile, group))
                let key = StyleResources.PlacementKey(z: tile.z, x: tile.x, y: tile.y, zoom: zoom, pixelRatio: camera.pixelRatio, bearing: camera.bearing)
                if !tiles.contains(key) { tiles.append(key) }
            }
            groups[layer.id] = list
        }
        var byTile: [StyleResources.PlacementKey: StyleResources.TilePlacement] = [:]
        for key in tiles {
            if let held = resources.placement(key) {
                byTile[key] = held
                continue
            }
            // The tile's centre at (0, 0), whatever the view's size: the same labels for every view.
            let view = screen
            let n = Double(1 << key.z)
            screen.centerX = (Double(key.x) + 0.5) / n
            screen.centerY = (Double(key.y) + 0.5) / n
            screen.halfWidth = 0
            screen.halfHeight = 0
            let before = warnings.count
            var collisions: [String: CollisionTile] = [:]
            var labels: [String: [PlacedLabel]] = [:]
            for layer in layers {
                let own = (groups[layer.id] ?? []).filter { $0.0.z == key.z && $0.0.x == key.x && $0.0.y == key.y }.map { (Optional($0.0), $0.1) }
                if !own.isEmpty { labels[layer.id] = place(layer, own, &collisions) }
            }
            let made = StyleResources.TilePlacement(centerX: screen.centerX, centerY: screen.centerY, labels: labels)
            screen = view
            // Kept only when placing warned of nothing (a glyph range or icon that did not load warns in every snapshot).
            if warnings.count == before { resources.keep(made, for: key) }
            byTile[key] = made
        }
        // Each layer's labels: tiles in the reverse of their placement order, each tile's in its own order.
        var placed: [String: [PlacedLabel]] = [:]
        for layer in layers {
            var out: [PlacedLabel] = []
            for (tile, _) in (groups[layer.id] ?? []).reversed() {
                guard let p = byTile[StyleResources.PlacementKey(z: tile.z, x: tile.x, y: tile.y, zoom: zoom, pixelRatio: camera.pixelRatio, bearing: camera.bearing)] else { continue }
                // The tile's centre, (0, 0) where its labels were placed, is here in this view.
                let shift = screen.point(p.centerX, p.centerY)
                out += (p.labels[layer.id] ?? []).map { $0.moved(by: shift) }
            }
            placed[layer.id] = out
        }
        return placed
    }

    /// The labels of `layer` that show, from `groups` (its features by tile, in placement
    /// order), in the order they are drawn; `collisions` holds each tile's boxes placed so far.
    private mutating func place(_ layer: StyleLayer, _ groups: [(CanonicalTile?, [RenderFeature])], _ collisions: inout [String: CollisionTile]) -> [PlacedLabel] {
        let zOrder = value(layer, "symbol-z-order", paint: false).stringValue ?? "auto"
        let byKey = zOrder != "viewport-y" && layer.layoutValues["symbol-sort-key"] != nil
        let canOverlap = ["text-allow-overlap", "icon-allow-overlap", "text-ignore-placement", "icon-ignore-placement"].contains {
            value(layer, $0, paint: false) == .boolean(true)
        }
        let byY = canOverlap && (zOrder == "viewport-y" || (zOrder == "auto" && !byKey))
        // Screen y in GL JS's tile units (1/16 layout pixel).
        let unit = camera.pixelRatio * layoutToScreen / 16
        var candidates: [(key: Double, y: Double, feature: RenderFeature, tile: Int, drawn: Bool, shapeKey: StyleResources.ShapedTextKey?)] = []
        let alongLines = value(layer, "symbol-placement", paint: false).stringValue == "line"
        for (rank, (tile, group)) in groups.enumerated() {
            func matching() -> [RenderFeature] {
                let kept = group.filter(passesFilter(of: layer))
                return alongLines ? mergedLines(kept, layer) : kept
            }
            // A vector tile's are kept by the Map for the next view at this zoom, and their texts as shaped.
            let tileKey = tile.flatMap { t in layer.source.map { LayerTileFeatures.Key(layer: layer.id, tile: StyleResources.TileKey(source: $0, z: t.z, x: t.x, y: t.y), zoom: zoom) } }
            let features = tileKey.map { resources.symbolTileFeatures($0, make: matching) } ?? matching()
            for (index, f) in features.enumerated() {
                var f = f, drawn = true
                // Vector tiles repeat the points of their buffer: a tile draws only its own,
                // the others still take room in its collision index (GL JS's symbol bucket).
                if let tile, f.kind == .point {
                    let n = Double(1 << tile.z)
                    let inside = f.points.filter { $0.x * n >= Double(tile.x) && $0.x * n < Double(tile.x + 1) && $0.y * n >= Double(tile.y) && $0.y * n < Double(tile.y + 1) }
                    if inside.isEmpty {
                        drawn = false
                    } else if inside.count < f.points.count {
                        f = RenderFeature(kind: .point, points: inside, expressionFeature: f.expressionFeature, tile: f.tile, propertySet: f.propertySet)
                    }
                }
                let y = byY ? ((screen.points(Array(f.points.prefix(1)), moved: Point(x: 0, y: 0)).first?.y ?? 0) / unit).rounded() : 0
                let shapeKey = tileKey.map { StyleResources.ShapedTextKey(features: $0, index: index, pixelRatio: camera.pixelRatio) }
                candidates.append((number(layer, "symbol-sort-key", f, paint: false), y, f, rank, drawn, shapeKey))
            }
        }
        // Symbols that may overlap are placed (and drawn) from the top of the screen down,
        // later features first among equals (GL JS's sort by anchor y); others by sort key.
        if byY {
            candidates = candidates.enumerated().sorted { ($0.element.y, $1.offset) < ($1.element.y, $0.offset) }.map(\.element)
        } else if byKey {
            candidates = candidates.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element)
        }
        var labels: [PlacedLabel] = []
        var tileRanks: [Int] = []
        for (i, c) in candidates.enumerated() {
            let found = place(c.feature, layer, &collisions, shapeKey: c.shapeKey)
            guard c.drawn else { continue }
            for var l in found {
                l.index = i
                labels.append(l)
                tileRanks.append(c.tile)
            }
        }
        // Tiles draw in the reverse of their placement order, each tile's labels in the
        // order they were placed, those that may overlap by their own anchors' y (a line
        // feature has one label per anchor).
        let order = labels.indices.sorted { i, j in
            if tileRanks[i] != tileRanks[j] { return tileRanks[i] > tileRanks[j] }
            guard byY else { return i < j }
            let ya = (labels[i].anchor.y / unit).rounded(), yb = (labels[j].anchor.y / unit).rounded()
            return ya != yb ? ya < yb : labels[i].index > labels[j].index
        }
        return order.map { labels[$0] }
    }

    /// The tiles of a layer in MapLibre's placement order (`getRenderableIds` for symbol
    /// layers): lower zooms first, then from the bottom of the screen up and right to left
    /// (tile rows and columns turned by the bearing); features without a tile keep their place.
    static func placementOrder(_ tiles: [(CanonicalTile?, [RenderFeature])], bearing: Double) -> [(CanonicalTile?, [RenderFeature])] {
        let angle = -bearing * .pi / 180, c = cos(angle), s = sin(angle)
        return tiles.enumerated().sorted { a, b in
            guard let ta = a.element.0, let tb = b.element.0 else { return a.offset < b.offset }
            if ta.z != tb.z { return ta.z < tb.z }
            let ya = Double(ta.x) * s + Double(ta.y) * c, yb = Double(tb.x) * s + Double(tb.y) * c
            if ya != yb { return ya > yb }
            let xa = Double(ta.x) * c - Double(ta.y) * s, xb = Double(tb.x) * c - Double(tb.y) * s
            return xa != xb ? xa > xb : a.offset < b.offset
        }.map(\.element)
    }

    /// An axis-aligned box, pixels; `SymbolCollision` decides overlaps (touching boxes overlap,
    /// as MapLibre's grid index counts them).
    struct Box {
        var minX, minY, maxX, maxY: Double
    }

    /// The text of a feature shaped for its layer (nil without text or glyphs), its
    /// sections' colours and its scale in device pixels per em unit.
    private mutating func shapedText(_ f: RenderFeature, _ layer: StyleLayer, placement: String) -> ShapedLabelText? {
        guard layer.layoutValues["text-field"] != nil else { return nil }
        let fontNames: [String] = switch value(layer, "text-font", f, paint: false) {
        case .array(let a): a.compactMap(\.stringValue)
        case .string(let s): [s]
        default: ["Open Sans Regular", "Arial Unicode MS Regular"]
        }
        let (text, colors) = labelText(layer, f, fontStack: fontNames.joined(separator: ","))
        guard !text.isEmpty else { return nil }
        let em = SymbolShaping.oneEm
        let size = number(layer, "text-size", f, paint: false)
        let anchor = value(layer, "text-anchor", f, paint: false).stringValue ?? "center"
        var justify = value(layer, "text-justify", f, paint: false).stringValue ?? "center"
        if justify == "auto" { justify = SymbolShaping.autoJustify(anchor) }
        let offset = value(layer, "text-offset", f, paint: false).numbersValue ?? [0, 0]
        var glyphs: [UInt32: SDFGlyph?] = [:]
        for c in text where glyphs[c.scalar.value] == nil { glyphs[c.scalar.value] = .some(sdfGlyph(c)) }
        let shaped = SymbolShaping.shape(
            text, glyph: { glyphs[$0.scalar.value] ?? nil },
            maxWidth: placement == "point" ? number(layer, "text-max-width", f, paint: false) * em : 0,
            lineHeight: number(layer, "text-line-height", f, paint: false) * em,
            spacing: number(layer, "text-letter-spacing", f, paint: false) * em,
            anchor: anchor, justify: justify,
            offset: offset.count == 2 ? (offset[0] * em, offset[1] * em) : (0, 0))
        guard !shaped.glyphs.isEmpty, size > 0 else { return nil }
        return (shaped, colors, size / em * camera.pixelRatio)
    }

    /// The labels of one feature that show: its text and icon each given the scale at which
    /// they clear the boxes placed before in their tile, the two scales then joined unless
    /// `text-optional` / `icon-optional` lets one show without the other (GL JS's
    /// `placeFeatures`).
    /// `shapeKey` names the feature's text among those the Map keeps shaped (vector tiles).
    private mutating func place(_ f: RenderFeature, _ layer: StyleLayer, _ collisions: inout [String: CollisionTile],
                                shapeKey: StyleResources.ShapedTextKey?) -> [PlacedLabel] {
        func flag(_ name: String) -> Bool { value(layer, name, f, paint: false) == .boolean(true) }
        let placement = value(layer, "symbol-placement", f, paint: false).stringValue ?? "point"
        let text: ShapedLabelText?
        if let shapeKey, let held = resources.shapedText(shapeKey) {
            text = held
        } else {
            // Kept only when shaping warned of nothing (a glyph range that did not load warns
            // in every snapshot that uses it).
            let before = warnings.count
            text = shapedText(f, layer, placement: placement)
            if let shapeKey, warnings.count == before { resources.keep(text, for: shapeKey) }
        }
        var icon = iconImage(layer, f).map { image in
            ShapedIcon(image, offset: value(layer, "icon-offset", f, paint: false).numbersValue ?? [0, 0],
                       anchor: value(layer, "icon-anchor", f, paint: false).stringValue ?? "center")
        }
        guard text != nil || icon != nil else { return [] }
        let fit = value(layer, "icon-text-fit", f, paint: false).stringValue ?? "none"
        let fitted = icon != nil && text != nil && fit != "none"
        if let i = icon, let text, fitted {
            icon = i.fitted(to: text.shaped, fit: fit, padding: value(layer, "icon-text-fit-padding", f, paint: false).numbersValue ?? [],
                            offset: value(layer, "icon-offset", f, paint: false).numbersValue ?? [0, 0],
                            fontScale: number(layer, "text-size", f, paint: false) / SymbolShaping.oneEm)
        }
        let ratio = camera.pixelRatio
        let s = text?.scale ?? number(layer, "text-size", f, paint: false) / SymbolShaping.oneEm * ratio
        let padding = number(layer, "text-padding", f, paint: false) * ratio
        let textAllowOverlap = flag("text-allow-overlap"), textIgnorePlacement = flag("text-ignore-placement")
        let iconAllowOverlap = flag("icon-allow-overlap"), iconIgnorePlacement = flag("icon-ignore-placement")
        // An icon may show without its text when the text is optional or absent, and the
        // other way round.
        let iconWithoutText = flag("text-optional") || text == nil, textWithoutIcon = flag("icon-optional") || icon == nil
        var rotate = number(layer, "text-rotate", f, paint: false) * .pi / 180
        // Point labels aligned to the map turn with it (`text-rotation-alignment: map`).
        if placement == "point", value(layer, "text-rotation-alignment", f, paint: false).stringValue == "map" { rotate -= camera.bearing * .pi / 180 }
        let shift = translation(layer, "text", f)
        let iconSize = number(layer, "icon-size", f, paint: false)
        let iconScale = iconSize * ratio
        let iconPadding = Self.padding(value(layer, "icon-padding", f, paint: false)).map { $0 * ratio }
        let iconRotate = number(layer, "icon-rotate", f, paint: false) * .pi / 180
        let iconAlignment = value(layer, "icon-rotation-alignment", f, paint: false).stringValue ?? "auto"
        let iconWithMap = iconAlignment == "map" || (iconAlignment == "auto" && placement != "point")
        let iconShift = translation(layer, "icon", f)
        let iconLinear = iconSize != 1 || iconRotate != 0 || icon.map { $0.image.pixelRatio != ratio } ?? false || iconWithMap && camera.bearing != 0

        /// The icon drawn at `p`, turned `angle` radians beyond its `icon-rotate`.
        func placedIcon(_ i: ShapedIcon, at p: Point, angle: Double) -> PlacedIcon {
            PlacedIcon(image: i.image, origin: p + iconShift, angle: iconRotate + angle,
                       minX: i.left * iconScale, minY: i.top * iconScale, maxX: i.right * iconScale, maxY: i.bottom * iconScale,
                       linear: iconLinear || angle != 0, bordered: fitted)
        }
        // `*-translate` moves the drawn symbol and its boxes. Point labels share their anchor;
        // along a line each glyph's box is anchored at its own middle.
        func admit(_ labelBoxes: [Box], _ unshifted: [PlacedLabel.Quad], iconAt p: Point, angle: Double, alongLine: Bool) -> PlacedLabel? {
            let quads = unshifted.map { var q = $0; q.origin = q.origin + shift; return q }
            let padded = labelBoxes.map { Box(minX: $0.minX - padding + shift.x, minY: $0.minY - padding + shift.y, maxX: $0.maxX + padding + shift.x, maxY: $0.maxY + padding + shift.y) }
            let iconBox = icon.map { Self.iconBox($0, at: p + iconShift, scale: iconScale, padding: iconPadding, rotate: iconRotate) }
            let k = layoutToScreen
            func shape(_ b: Box, _ a: Point) -> CollisionBox {
                CollisionBox(anchor: Point(x: a.x / k, y: a.y / k), box: Box(minX: b.minX - a.x, minY: b.minY - a.y, maxX: b.maxX - a.x, maxY: b.maxY - a.y))
            }
            let textShape = padded.map { shape($0, alongLine ? Point(x: ($0.minX + $0.maxX) / 2, y: ($0.minY + $0.maxY) / 2) : p + shift) }
            let iconShape = iconBox.map { [shape($0, p + iconShift)] } ?? []
            let hasText = !quads.isEmpty, hasIcon = iconBox != nil
            let key = collisionTileKey(f, at: p)
            var textPlacedAt = hasText && !textAllowOverlap ? collisions[key]?.placementScale(textShape) ?? CollisionTile.minScale : CollisionTile.minScale
            var iconPlacedAt = hasIcon && !iconAllowOverlap ? collisions[key]?.placementScale(iconShape) ?? CollisionTile.minScale : CollisionTile.minScale
            if !iconWithoutText, !textWithoutIcon {
                textPlacedAt = max(textPlacedAt, iconPlacedAt)
                iconPlacedAt = textPlacedAt
            } else if !textWithoutIcon {
                textPlacedAt = max(textPlacedAt, iconPlacedAt)
            } else if !iconWithoutText {
                iconPlacedAt = max(iconPlacedAt, textPlacedAt)
            }
            if hasText, !textIgnorePlacement { collisions[key, default: CollisionTile()].insert(textShape, scale: textPlacedAt) }
            if hasIcon, !iconIgnorePlacement { collisions[key, default: CollisionTile()].insert(iconShape, scale: iconPlacedAt) }
            let placeText = hasText && showsAtZoom(textPlacedAt), placeIcon = hasIcon && showsAtZoom(iconPlacedAt)
            guard placeText || placeIcon else { return nil }
            return PlacedLabel(quads: placeText ? quads : [], feature: f, sectionColors: text?.colors ?? [],
                               icon: placeIcon ? icon.map { placedIcon($0, at: p, angle: angle) } : nil, anchor: p)
        }

        var labels: [PlacedLabel] = []
        if placement == "point" {
            let iconTurn = iconWithMap ? -camera.bearing * .pi / 180 : 0
            for p in pointAnchors(f) {
                guard let text else {
                    if let label = admit([], [], iconAt: p, angle: iconTurn, alongLine: false) { labels.append(label) }
                    continue
                }
                let shaped = text.shaped
                let quads = shaped.glyphs.map { g in
                    PlacedLabel.Quad(glyph: g.glyph, origin: p, angle: rotate, scale: s * g.scale,
                                     corner: Point(x: Double(g.glyph.left) - 4 + g.x / g.scale, y: -Double(g.glyph.top) - 4 + g.y / g.scale), section: g.section)
                }
                // The block's box, turned with the text.
                let cosR = cos(rotate), sinR = sin(rotate)
                let corners = [(shaped.left, shaped.top), (shaped.right, shaped.top), (shaped.left, shaped.bottom), (shaped.right, shaped.bottom)].map {
                    Point(x: p.x + ($0.0 * cosR - $0.1 * sinR) * s, y: p.y + ($0.0 * sinR + $0.1 * cosR) * s)
                }
                let box = Box(minX: corners.map(\.x).min()!, minY: corners.map(\.y).min()!, maxX: corners.map(\.x).max()!, maxY: corners.map(\.y).max()!)
                if let label = admit([box], quads, iconAt: p, angle: iconTurn, alongLine: false) { labels.append(label) }
            }
            return labels
        }
        let iconLength = icon.map { $0.right - $0.left } ?? 0
        for along in alongLines(f, layer, text?.shaped, iconLength: iconLength, scale: s, center: placement == "line-center") {
            if let label = admit(along.text?.1 ?? [], along.text?.0 ?? [], iconAt: along.point, angle: iconWithMap ? along.angle : 0, alongLine: true) { labels.append(label) }
        }
        return labels
    }

    /// The point `d` device pixels along a screen polyline and its segment's direction (radians, y down).
    static func point(along line: [Point], _ cumulative: [Double], at d: Double) -> (Point, Double)? {
        guard d >= 0, d <= cumulative[cumulative.count - 1] else { return nil }
        var i = 1
        while i < line.count - 1, cumulative[i] < d { i += 1 }
        let a = line[i - 1], b = line[i]
        let seg = cumulative[i] - cumulative[i - 1]
        let t = seg > 0 ? (d - cumulative[i - 1]) / seg : 0
        return (a + (b - a) * t, atan2(b.y - a.y, b.x - a.x))
    }

    /// Point placement's anchors on screen: each point; the first point of each line (MapLibre's
    /// point placement on lines); a polygon's centroid, or the most inland point of a 24 × 24
    /// grid of its box when that is strictly further from the rings.
    private func pointAnchors(_ f: RenderFeature) -> [Point] {
        switch f.kind {
        case .point: return screen.points(f.points, moved: Point(x: 0, y: 0))
        case .line: return f.lines.compactMap { $0.first.map { screen.points([$0], moved: Point(x: 0, y: 0))[0] } }
        case .polygon:
            return f.polygons.compactMap { polygon in
                let rings = polygon.map { screen.points($0, moved: Point(x: 0, y: 0)) }
                guard let outer = rings.first, outer.count >= 3 else { return nil }
                let minX = outer.map(\.x).min()!, maxX = outer.map(\.x).max()!, minY = outer.map(\.y).min()!, maxY = outer.map(\.y).max()!
                // The ring's area centroid first: a grid cell must be strictly more inland to
                // win (polylabel's start), so symmetric shapes keep their centre.
                var area = 0.0, cx = 0.0, cy = 0.0
                for k in 0..<(outer.count - 1) {
                    let a = outer[k], b = outer[k + 1], cross = a.x * b.y - b.x * a.y
                    area += cross; cx += (a.x + b.x) * cross; cy += (a.y + b.y) * cross
                }
                let centroid = abs(area) > 1e-9 ? Point(x: cx / (3 * area), y: cy / (3 * area)) : outer[0]
                var best: (Point, Double)?
                for cell in [24 * 24] + Array(0..<(24 * 24)) {
                    let (i, j) = (cell / 24, cell % 24)
                    let p = cell == 24 * 24 ? centroid : Point(x: minX + (maxX - minX) * (Double(i) + 0.5) / 24, y: minY + (maxY - minY) * (Double(j) + 0.5) / 24)
                    var inside = false, nearest = Double.infinity
                    for ring in rings where ring.count >= 2 {
                        for k in 0..<(ring.count - 1) {
                            let a = ring[k], b = ring[k + 1], v = b - a, l2 = v.x * v.x + v.y * v.y
                            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                            let t = l2 > 0 ? (((p.x - a.x) * v.x + (p.y - a.y) * v.y) / l2).clamped(0, 1) : 0
                            nearest = min(nearest, (p - (a + v * t)).length)
                        }
                    }
                    if inside, nearest > (best?.1 ?? -1) + 1e-9 { best = (p, nearest) }
                }
                return best?.0
            }
        }
    }
}
