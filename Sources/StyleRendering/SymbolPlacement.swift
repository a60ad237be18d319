import GeoCore
import MapData
import MapRenderer
import MapStyle
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

/// Where a style's symbol layers put their text, as MapLibre GL places it seen from above:
/// layers from the top down, features in `symbol-sort-key` order, each label kept only where
/// its box hits no box placed before it (`text-allow-overlap` skips the test,
/// `text-ignore-placement` keeps the box out of the index). Sizes are CSS pixels × pixel ratio.
extension StylePainter {
    mutating func placeSymbols() {
        var placed: [String: [PlacedLabel]] = [:]
        var boxes = CollisionGrid()
        for layer in style.layers.reversed() where layer.type == "symbol" && layer.shows(atZoom: zoom) {
            var candidates: [(key: Double, feature: RenderFeature)] = []
            for (tile, group) in features(of: layer) {
                for f in group where layer.filter?.matches(globals: globals, feature: f.expressionFeature, tile: f.tile) ?? true {
                    var f = f
                    // Vector tiles repeat the points of their buffer; each tile keeps its own.
                    if let tile, f.kind == .point {
                        let n = Double(1 << tile.z)
                        f.points = f.points.filter { $0.x * n >= Double(tile.x) && $0.x * n < Double(tile.x + 1) && $0.y * n >= Double(tile.y) && $0.y * n < Double(tile.y + 1) }
                        if f.points.isEmpty { continue }
                    }
                    candidates.append((number(layer, "symbol-sort-key", f, paint: false), f))
                }
            }
            if layer.layoutValues["symbol-sort-key"] != nil {
                candidates = candidates.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element)
            }
            var labels: [PlacedLabel] = []
            for c in candidates { labels += place(c.feature, layer, &boxes) }
            placed[layer.id] = labels
        }
        symbols.placed = placed
    }

    struct Box {
        var minX, minY, maxX, maxY: Double
        func hits(_ o: Box) -> Bool { minX < o.maxX && o.minX < maxX && minY < o.maxY && o.minY < maxY }
    }

    /// The placed boxes in cells of 64 device pixels (MapLibre's `GridIndex`), so a test
    /// looks only at the boxes near it.
    struct CollisionGrid {
        static let cell = 64.0
        private var cells: [Int64: [Box]] = [:]

        private static func cells(_ b: Box) -> [Int64] {
            // Boxes far off the image share the edge cells: bounded work for any coordinate.
            func index(_ v: Double) -> Int64 { v.isNaN ? 0 : Int64((v / cell).rounded(.down).clamped(-1024, 1024)) }
            let x0 = index(b.minX), x1 = max(x0, index(b.maxX)), y0 = index(b.minY), y1 = max(y0, index(b.maxY))
            var out: [Int64] = []
            for x in x0...x1 { for y in y0...y1 { out.append(x << 32 | (y & 0xFFFF_FFFF)) } }
            return out
        }

        func hits(_ b: Box) -> Bool { Self.cells(b).contains { cells[$0]?.contains { $0.hits(b) } ?? false } }

        mutating func insert(_ b: Box) { for c in Self.cells(b) { cells[c, default: []].append(b) } }
    }

    /// The labels of one feature that find room.
    private mutating func place(_ f: RenderFeature, _ layer: StyleLayer, _ boxes: inout CollisionGrid) -> [PlacedLabel] {
        let fontNames: [String] = switch value(layer, "text-font", f, paint: false) {
        case .array(let a): a.compactMap(\.stringValue)
        case .string(let s): [s]
        default: ["Open Sans Regular", "Arial Unicode MS Regular"]
        }
        let (text, colors) = labelText(layer, f, fontStack: fontNames.joined(separator: ","))
        guard !text.isEmpty else { return [] }
        let placement = value(layer, "symbol-placement", f, paint: false).stringValue ?? "point"
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
        guard !shaped.glyphs.isEmpty, size > 0 else { return [] }
        let s = size / em * camera.pixelRatio
        let padding = number(layer, "text-padding", f, paint: false) * camera.pixelRatio
        let allowOverlap = value(layer, "text-allow-overlap", f, paint: false) == .boolean(true)
        let ignorePlacement = value(layer, "text-ignore-placement", f, paint: false) == .boolean(true)
        var rotate = number(layer, "text-rotate", f, paint: false) * .pi / 180
        // Point labels aligned to the map turn with it (`text-rotation-alignment: map`).
        if placement == "point", value(layer, "text-rotation-alignment", f, paint: false).stringValue == "map" { rotate -= camera.bearing * .pi / 180 }
        let shift = translation(layer, "text", f)

        // `text-translate` moves the drawn text and its boxes.
        func admit(_ labelBoxes: [Box], _ unshifted: [PlacedLabel.Quad]) -> PlacedLabel? {
            let quads = unshifted.map { var q = $0; q.origin = q.origin + shift; return q }
            let padded = labelBoxes.map { Box(minX: $0.minX - padding + shift.x, minY: $0.minY - padding + shift.y, maxX: $0.maxX + padding + shift.x, maxY: $0.maxY + padding + shift.y) }
            if !allowOverlap, padded.contains(where: { boxes.hits($0) }) { return nil }
            if !ignorePlacement { for b in padded { boxes.insert(b) } }
            return PlacedLabel(quads: quads, feature: f, sectionColors: colors)
        }

        var labels: [PlacedLabel] = []
        if placement == "point" {
            for p in pointAnchors(f) {
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
                if let label = admit([box], quads) { labels.append(label) }
            }
            return labels
        }
        for (quads, glyphBoxes) in alongLines(f, layer, shaped, scale: s, center: placement == "line-center") {
            if let label = admit(glyphBoxes, quads) { labels.append(label) }
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
        case .point: return project(f.points, Point(x: 0, y: 0))
        case .line: return f.lines.compactMap { $0.first.map { project([$0], Point(x: 0, y: 0))[0] } }
        case .polygon:
            return f.polygons.compactMap { polygon in
                let rings = polygon.map { project($0, Point(x: 0, y: 0)) }
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
