import GeoCore
import MapData
import MapRenderer
import MapStyle
import Platform

/// `symbol-placement: line` and `line-center`, as MapLibre GL lays them out: each line cut to
/// its tile's square (GeoJSON lines to the squares of the tiles at the integer zoom), anchors
/// every `symbol-spacing` pixels at the layout zoom (MapLibre's `getAnchors` / `resample`),
/// refused where the line turns more than `text-max-angle` within a window of 3/5 em
/// (`checkMaxAngle`), and the glyphs set one by one along the line, turned to its segments
/// and flipped when they would read upside down (`text-keep-upright`).
extension StylePainter {
    /// Each label's anchor on screen (device pixels) with its segment's direction (radians,
    /// y down) and, with text, its glyph quads and collision boxes, before the collision
    /// test. The label's length is the longer of the text's and the icon's (`iconLength`,
    /// CSS pixels at `icon-size` 1), both in ems of the text's size (MapLibre's `getAnchors`).
    func alongLines(_ f: RenderFeature, _ layer: StyleLayer, _ shaped: ShapedText?, iconLength: Double, scale s: Double, center: Bool)
        -> [(text: ([PlacedLabel.Quad], [Box])?, point: Point, angle: Double)] {
        let em = SymbolShaping.oneEm
        let layoutZoom = zoom.rounded(.down)
        // Device pixels per layout pixel (CSS pixels at the integer zoom the tiles are laid out at).
        let layoutScale = camera.pixelRatio * pow(2, zoom - layoutZoom)
        let fontScale = s / camera.pixelRatio
        let shapedLength = max(shaped.map { $0.right - $0.left } ?? 0, iconLength)
        let labelLength = shapedLength * fontScale
        var spacing = number(layer, "symbol-spacing", f, paint: false)
        if spacing - labelLength < spacing / 4 { spacing = labelLength + spacing / 4 }
        let maxAngle = number(layer, "text-max-angle", f, paint: false) * .pi / 180
        // Without text no angle is checked.
        let window = shaped == nil ? 0 : 3.0 / 5 * em * fontScale
        let keepUpright = value(layer, "text-keep-upright", f, paint: false) != .boolean(false)
        let worldLines: [[WorldPoint]] = f.kind == .line ? f.lines : f.kind == .polygon ? f.polygons.flatMap { $0 } : []
        var out: [(text: ([PlacedLabel.Quad], [Box])?, point: Point, angle: Double)] = []
        for world in worldLines where world.count >= 2 {
            for (tileZ, part) in clippedToTiles(world, tile: f.tile, layoutZoom: Int(layoutZoom)) where part.count >= 2 {
                let overscaling = pow(2, max(0, layoutZoom - Double(tileZ)))
                let screenLine = screen.points(part, moved: Point(x: 0, y: 0))
                let line = screenLine.map { Point(x: $0.x / layoutScale, y: $0.y / layoutScale) }
                let n = Double(1 << tileZ)
                let continued = [part[0].x, part[0].y].contains { v in let t = v * n; return abs(t - t.rounded()) < 1e-9 }
                var anchors: [Double]
                if center {
                    anchors = [Self.length(line) / 2]
                } else {
                    let offset = continued ? (spacing / 2 * overscaling).truncatingRemainder(dividingBy: spacing)
                        : (shapedLength / 2 + 2 * em) * fontScale * overscaling
                    anchors = Self.resample(line, offset: offset.truncatingRemainder(dividingBy: spacing), spacing: spacing, labelLength: labelLength,
                                            window: window, maxAngle: maxAngle, middle: false, continued: continued)
                }
                var cumulative = [0.0]
                for i in 1..<screenLine.count { cumulative.append(cumulative[i - 1] + (screenLine[i] - screenLine[i - 1]).length) }
                for a in anchors {
                    guard let (p, angle) = Self.point(along: screenLine, cumulative, at: a * layoutScale) else { continue }
                    guard let shaped else { out.append((nil, p, angle)); continue }
                    if let label = glyphsAlong(screenLine, cumulative, at: a * layoutScale, shaped, scale: s, keepUpright: keepUpright) { out.append((label, p, angle)) }
                }
            }
        }
        return out
    }

    /// The glyphs of `shaped` set along `line` (device pixels) around the point `d` along it;
    /// nil when a glyph would fall off the line's end.
    private func glyphsAlong(_ line: [Point], _ cumulative: [Double], at d: Double, _ shaped: ShapedText, scale s: Double, keepUpright: Bool) -> ([PlacedLabel.Quad], [Box])? {
        guard let first = shaped.glyphs.first, let last = shaped.glyphs.last else { return nil }
        func center(_ g: ShapedText.Glyph) -> Double { (g.x + Double(g.glyph.advance) * g.scale / 2) * s }
        var flip = false
        if keepUpright, let a = Self.point(along: line, cumulative, at: d + center(first)), let b = Self.point(along: line, cumulative, at: d + center(last)) {
            flip = a.0.x > b.0.x
        }
        var quads: [PlacedLabel.Quad] = [], boxes: [Box] = []
        for g in shaped.glyphs {
            let half = Double(g.glyph.advance) * g.scale / 2
            let along = center(g)
            guard let (p, angle) = Self.point(along: line, cumulative, at: d + (flip ? -along : along)) else { return nil }
            let turned = flip ? angle + .pi : angle
            quads.append(PlacedLabel.Quad(glyph: g.glyph, origin: p, angle: turned, scale: s * g.scale,
                                          corner: Point(x: Double(g.glyph.left) - 4 - half / g.scale, y: -Double(g.glyph.top) - 4 + g.y / g.scale), section: g.section))
            // A square of one em round the glyph's middle, half an em above its baseline.
            let r = SymbolShaping.oneEm / 2 * g.scale * s
            let mid = (g.y - SymbolShaping.defaultOffset - SymbolShaping.oneEm / 2) * s
            let c = Point(x: p.x - sin(turned) * mid, y: p.y + cos(turned) * mid)
            boxes.append(Box(minX: c.x - r, minY: c.y - r, maxX: c.x + r, maxY: c.y + r))
        }
        return (quads, boxes)
    }

    static func length(_ line: [Point]) -> Double {
        var total = 0.0
        for i in 1..<line.count { total += (line[i] - line[i - 1]).length }
        return total
    }

    /// MapLibre's `resample`: distances along `line` (layout pixels) every `spacing` from
    /// `offset` where a label of `labelLength` fits and the line does not turn too much; one
    /// at the middle when none fits and the line is not cut by its tile.
    static func resample(_ line: [Point], offset: Double, spacing: Double, labelLength: Double, window: Double, maxAngle: Double, middle: Bool, continued: Bool) -> [Double] {
        let total = length(line)
        var distance = 0.0, marked = offset - spacing
        var anchors: [Double] = []
        for i in 0..<(line.count - 1) {
            let segment = (line[i + 1] - line[i]).length
            while marked + spacing < distance + segment {
                marked += spacing
                if marked - labelLength / 2 >= 0, marked + labelLength / 2 <= total,
                   fitsAngle(line, segment: i, at: marked - distance, labelLength: labelLength, window: window, maxAngle: maxAngle) {
                    anchors.append(marked)
                }
            }
            distance += segment
        }
        if !middle, anchors.isEmpty, !continued {
            return resample(line, offset: distance / 2, spacing: spacing, labelLength: labelLength, window: window, maxAngle: maxAngle, middle: true, continued: continued)
        }
        return anchors
    }

    /// MapLibre's `checkMaxAngle`: walking the label's length round the anchor (on segment
    /// `segment`, `into` pixels from its start), the turns within any `window` of line sum to
    /// at most `maxAngle` radians, and the line does not end under the label.
    static func fitsAngle(_ line: [Point], segment: Int, at into: Double, labelLength: Double, window: Double, maxAngle: Double) -> Bool {
        guard window > 0 else { return true }
        let a = line[segment], b = line[segment + 1]
        let seg = (b - a).length
        var p = seg > 0 ? a + (b - a) * (into / seg) : a
        var index = segment + 1
        var anchorDistance = 0.0
        while anchorDistance > -labelLength / 2 {
            index -= 1
            if index < 0 { return false }
            anchorDistance -= (line[index] - p).length
            p = line[index]
        }
        anchorDistance += (line[index + 1] - line[index]).length
        index += 1
        var corners: [(distance: Double, delta: Double)] = [], sum = 0.0
        func angle(_ from: Point, _ to: Point) -> Double { atan2(from.y - to.y, from.x - to.x) }
        while anchorDistance < labelLength / 2 {
            guard index + 1 < line.count else { return false }
            let prev = line[index - 1], current = line[index], next = line[index + 1]
            var delta = angle(prev, current) - angle(current, next)
            delta = abs((delta + 3 * .pi).truncatingRemainder(dividingBy: 2 * .pi) - .pi)
            corners.append((anchorDistance, delta))
            sum += delta
            while let c = corners.first, anchorDistance - c.distance > window { sum -= c.delta; corners.removeFirst() }
            if sum > maxAngle { return false }
            index += 1
            anchorDistance += (next - current).length
        }
        return true
    }

    /// The parts of `line` inside its tile's square, with the tile's zoom; a GeoJSON line
    /// (no tile) is cut to the squares of the tiles at `layoutZoom` it crosses (at most 256,
    /// else kept whole).
    private func clippedToTiles(_ line: [WorldPoint], tile: CanonicalTile?, layoutZoom: Int) -> [(Int, [WorldPoint])] {
        if let tile { return Self.clip(line, z: tile.z, x: tile.x, y: tile.y).map { (tile.z, $0) } }
        let z = min(max(layoutZoom, 0), 18), n = Double(1 << z)
        let xs = line.map(\.x), ys = line.map(\.y)
        let x0 = Int((xs.min()! * n).rounded(.down)), x1 = Int((xs.max()! * n).rounded(.down))
        let y0 = Int((ys.min()! * n).rounded(.down)), y1 = Int((ys.max()! * n).rounded(.down))
        guard (x1 - x0 + 1) * (y1 - y0 + 1) <= 256 else { return [(z, line)] }
        var out: [(Int, [WorldPoint])] = []
        for x in x0...x1 { for y in y0...y1 { out += Self.clip(line, z: z, x: x, y: y).map { (z, $0) } } }
        return out
    }

    /// The runs of `line` inside tile (`z`, `x`, `y`)'s square, world units.
    static func clip(_ line: [WorldPoint], z: Int, x: Int, y: Int) -> [[WorldPoint]] {
        let n = Double(1 << z)
        let minX = Double(x) / n, minY = Double(y) / n, maxX = Double(x + 1) / n, maxY = Double(y + 1) / n
        var parts: [[WorldPoint]] = [], current: [WorldPoint] = []
        for i in 0..<(line.count - 1) {
            let a = line[i], b = line[i + 1]
            guard let span = LineClipping.visibleSpan(ax: a.x, ay: a.y, bx: b.x, by: b.y, minX: minX, minY: minY, maxX: maxX, maxY: maxY) else {
                if current.count >= 2 { parts.append(current) }
                current = []
                continue
            }
            let p0 = WorldPoint(x: a.x + (b.x - a.x) * span.t0, y: a.y + (b.y - a.y) * span.t0)
            let p1 = WorldPoint(x: a.x + (b.x - a.x) * span.t1, y: a.y + (b.y - a.y) * span.t1)
            if current.isEmpty || span.t0 > 0 {
                if current.count >= 2 { parts.append(current) }
                current = [p0]
            }
            current.append(p1)
            if span.t1 < 1 {
                parts.append(current)
                current = []
            }
        }
        if current.count >= 2 { parts.append(current) }
        return parts
    }
}

extension StylePainter {
    /// The features of one tile (or GeoJSON source) with the lines of the same label text that
    /// meet end to start joined, as GL JS's `mergeLines` joins a `symbol-placement: line`
    /// bucket's features before placing labels (a street cut into ways gets labels along the
    /// street, not one per way): keyed on each feature's first line's ends and its text; a line
    /// between two others of its text joins both; features without text, or not lines, stay
    /// as they are. Joined features keep the first's properties and place in the source's order.
    /// - Complexity: O(features + their points).
    func mergedLines(_ features: [RenderFeature], _ layer: StyleLayer) -> [RenderFeature] {
        struct End: Hashable { let text: String, x: Double, y: Double }
        func end(_ text: String, _ line: [WorldPoint], last: Bool) -> End {
            let p = last ? line[line.count - 1] : line[0]
            return End(text: text, x: p.x, y: p.y)
        }
        var merged: [RenderFeature?] = []
        // The first line of the features at these indices as joined so far (a joined feature is
        // made new at the end).
        var joined: [Int: [WorldPoint]] = [:]
        func firstLine(_ i: Int) -> [WorldPoint] { joined[i] ?? merged[i]!.lines[0] }
        // The feature each free start (left) or end (right) belongs to, by text and point.
        var left: [End: Int] = [:], right: [End: Int] = [:]
        for f in features {
            // The label's scalars as UTF-8 (a string grown scalar by scalar costs far more).
            var utf8: [UInt8] = []
            for c in labelText(layer, f, fontStack: "").chars { UTF8.encode(c.scalar) { utf8.append($0) } }
            let text = String(decoding: utf8, as: UTF8.self)
            guard f.kind == .line, let line = f.lines.first, !line.isEmpty, !text.isEmpty else { merged.append(f); continue }
            let l = end(text, line, last: false), r = end(text, line, last: true)
            // `line` after the feature that ends where it starts.
            func ontoRight(_ line: [WorldPoint]) -> Int {
                let i = right.removeValue(forKey: l)!
                right[r] = i
                var first = firstLine(i)
                first.removeLast()
                joined[i] = first + line
                return i
            }
            // `line` before the feature that starts where it ends.
            func ontoLeft(_ line: [WorldPoint]) -> Int {
                let i = left.removeValue(forKey: r)!
                left[l] = i
                joined[i] = line + firstLine(i).dropFirst()
                return i
            }
            if let before = right[l], let after = left[r], before != after {
                let j = ontoLeft(line)
                let i = ontoRight(firstLine(j))
                left[l] = nil
                right[r] = nil
                right[end(text, firstLine(i), last: true)] = i
                merged[j] = nil
                joined[j] = nil
            } else if right[l] != nil {
                _ = ontoRight(line)
            } else if left[r] != nil {
                _ = ontoLeft(line)
            } else {
                merged.append(f)
                left[l] = merged.count - 1
                right[r] = merged.count - 1
            }
        }
        return merged.indices.compactMap { i in
            guard let f = merged[i], let line = joined[i] else { return merged[i] }
            return RenderFeature(kind: f.kind, points: f.points, lines: [line] + f.lines.dropFirst(), polygons: f.polygons,
                                 expressionFeature: f.expressionFeature, tile: f.tile, propertySet: f.propertySet)
        }
    }
}
