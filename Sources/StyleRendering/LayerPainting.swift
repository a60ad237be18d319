import GeoCore
import MapRenderer
import MapStyle

/// Background, fill, line and circle layers, with MapLibre GL's meaning of each paint property
/// (spec v8 "Layers"); sizes are CSS pixels, multiplied by the pixel ratio.
extension StylePainter {
    /// A property's value for a feature (its default where the layer does not set it).
    func value(_ layer: StyleLayer, _ name: String, _ f: RenderFeature? = nil, paint: Bool = true) -> ExpressionValue {
        let p = paint ? layer.paint(name) : layer.layout(name)
        return p?.evaluate(zoom: zoom, feature: f?.expressionFeature, tile: f?.tile) ?? .null
    }

    func number(_ layer: StyleLayer, _ name: String, _ f: RenderFeature? = nil, paint: Bool = true) -> Double {
        value(layer, name, f, paint: paint).numberValue ?? 0
    }

    func color(_ layer: StyleLayer, _ name: String, _ f: RenderFeature? = nil) -> StyleColor {
        value(layer, name, f).colorValue ?? StyleColor(red: 0, green: 0, blue: 0, alpha: 0)
    }

    /// An 8-bit colour with alpha multiplied by `opacity`.
    static func rgba(_ c: StyleColor, opacity: Double) -> Color {
        func byte(_ v: Double) -> UInt8 { UInt8((min(max(v, 0), 1) * 255).rounded()) }
        return Color(red: byte(c.red), green: byte(c.green), blue: byte(c.blue), alpha: byte(c.alpha * min(max(opacity, 0), 1)))
    }

    /// The `*-translate` offset of a feature in device pixels, turned with the map unless anchored to the viewport.
    func translation(_ layer: StyleLayer, _ prefix: String, _ f: RenderFeature) -> Point {
        let t = value(layer, prefix + "-translate", f).numbersValue ?? [0, 0]
        guard t.count == 2, t[0] != 0 || t[1] != 0 else { return Point(x: 0, y: 0) }
        if value(layer, prefix + "-translate-anchor", f).stringValue == "viewport" {
            return Point(x: t[0] * camera.pixelRatio, y: t[1] * camera.pixelRatio)
        }
        return screen.mapOffset(t[0], t[1])
    }

    func project(_ ps: [WorldPoint], _ offset: Point) -> [Point] {
        ps.map { let p = screen.point($0.x, $0.y); return Point(x: p.x + offset.x, y: p.y + offset.y) }
    }

    mutating func drawBackground(_ layer: StyleLayer) {
        if value(layer, "background-pattern") != .null {
            warnings.append("layer \(layer.id): background-pattern is not drawn")
            return
        }
        let c = Self.rgba(color(layer, "background-color"), opacity: number(layer, "background-opacity"))
        canvas.fill(Path(rectX: 0, y: 0, width: Double(canvas.width), height: Double(canvas.height)), color: c)
    }

    mutating func drawFill(_ f: RenderFeature, _ layer: StyleLayer) {
        guard f.kind == .polygon else { return }
        if value(layer, "fill-pattern", f) != .null {
            warnings.append("layer \(layer.id): fill-pattern is not drawn")
            return
        }
        let opacity = number(layer, "fill-opacity", f)
        let offset = translation(layer, "fill", f)
        var path = Path()
        for polygon in f.polygons {
            for ring in polygon where ring.count >= 3 { path.append(Path(polyline: project(ring, offset), closed: true)) }
        }
        // MapLibre fills triangles without antialiasing, then (fill-antialias) draws the outline
        // as GL lines over the edges, in the outline colour or the fill's.
        let fillColor = Self.rgba(color(layer, "fill-color", f), opacity: opacity)
        canvas.aliased = true
        canvas.fill(path, color: fillColor, rule: .evenOdd)
        canvas.aliased = false
        if value(layer, "fill-antialias", f) != .boolean(false) {
            let outline = layer.paintValues["fill-outline-color"] == nil ? fillColor : Self.rgba(color(layer, "fill-outline-color", f), opacity: opacity)
            for polygon in f.polygons {
                for ring in polygon where ring.count >= 2 { drawOutline(project(ring, offset), color: outline) }
            }
        }
    }

    /// A closed ring drawn as MapLibre's `fill_outline` shader draws it: each pixel whose centre
    /// lies within one pixel of the ring gets `1 − smoothstep(0, 1, distance)` of the colour.
    mutating func drawOutline(_ ring: [Point], color: Color) {
        guard color.alpha > 0, let first = ring.first else { return }
        var minX = first.x, minY = first.y, maxX = first.x, maxY = first.y
        for p in ring { minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y) }
        let x0 = max(0, Int((minX - 1).rounded(.down))), x1 = min(canvas.width, Int((maxX + 1).rounded(.up)))
        let y0 = max(0, Int((minY - 1).rounded(.down))), y1 = min(canvas.height, Int((maxY + 1).rounded(.up)))
        guard x0 < x1, y0 < y1, (x1 - x0) * (y1 - y0) <= 1 << 24 else { return }
        let w = x1 - x0
        var alpha = [Float](repeating: 0, count: w * (y1 - y0))
        for i in 0..<(ring.count - 1) {
            let a = ring[i], b = ring[i + 1]
            let sx0 = max(x0, Int((min(a.x, b.x) - 1).rounded(.down))), sx1 = min(x1 - 1, Int((max(a.x, b.x) + 1).rounded(.up)))
            let sy0 = max(y0, Int((min(a.y, b.y) - 1).rounded(.down))), sy1 = min(y1 - 1, Int((max(a.y, b.y) + 1).rounded(.up)))
            guard sx0 <= sx1, sy0 <= sy1 else { continue }
            let v = b - a, l2 = v.x * v.x + v.y * v.y
            for y in sy0...sy1 {
                for x in sx0...sx1 {
                    let p = Point(x: Double(x) + 0.5, y: Double(y) + 0.5)
                    let t = l2 > 0 ? (((p.x - a.x) * v.x + (p.y - a.y) * v.y) / l2).clamped(0, 1) : 0
                    let d = (p - (a + v * t)).length
                    guard d < 1 else { continue }
                    let k = (y - y0) * w + (x - x0)
                    alpha[k] = max(alpha[k], Float(1 - Self.smoothstep(0, 1, d)))
                }
            }
        }
        let clip = canvas.clip
        canvas.withPixmap { image in
            alpha.withUnsafeBufferPointer { run in
                for y in y0..<y1 {
                    if let clip, y < clip.minY || y >= clip.maxY { continue }
                    let lo = max(x0, clip?.minX ?? x0), hi = min(x1, clip?.maxX ?? x1)
                    guard lo < hi else { continue }
                    let row = (y - y0) * w
                    image.composite(color, row: y, x: lo, coverage: UnsafeBufferPointer(rebasing: run[(row + lo - x0)..<(row + hi - x0)]))
                }
            }
        }
    }

    mutating func drawLine(_ f: RenderFeature, _ layer: StyleLayer) {
        // Polygon rings are drawn as closed lines (joined where they start), their repeated last point dropped.
        let lines: [[WorldPoint]] = switch f.kind {
        case .line: f.lines
        case .polygon: f.polygons.flatMap { $0.map { Array($0.dropLast()) } }
        case .point: []
        }
        let closed = f.kind == .polygon
        guard !lines.isEmpty else { return }
        if value(layer, "line-pattern", f) != .null {
            warnings.append("layer \(layer.id): line-pattern is not drawn")
            return
        }
        let pr = camera.pixelRatio
        let width = number(layer, "line-width", f) * pr
        let gap = number(layer, "line-gap-width", f) * pr
        let offset = number(layer, "line-offset", f) * pr
        let c = Self.rgba(color(layer, "line-color", f), opacity: number(layer, "line-opacity", f))
        guard width > 0, c.alpha > 0 else { return }
        let join: StrokeStyle.Join = switch value(layer, "line-join", f, paint: false).stringValue {
        case "round": .round
        case "bevel": .bevel
        default: .miter
        }
        let cap: StrokeStyle.Cap = switch value(layer, "line-cap", f, paint: false).stringValue {
        case "round": .round
        case "square": .square
        default: .butt
        }
        // Dash lengths are in line widths (spec: line-dasharray).
        let dashes = (value(layer, "line-dasharray", f).numbersValue ?? []).map { $0 * max(width, pr) }
        let usable = dashes.count >= 2 && dashes.allSatisfy { $0 >= 0 } && dashes.contains { $0 > 0 }
        let style = StrokeStyle(width: width, join: join, cap: cap, miterLimit: number(layer, "line-miter-limit", f, paint: false),
                                dashes: usable ? dashes : [])
        let shift = translation(layer, "line", f)
        // A gap splits the line in two, each `width` wide, either side of the gap.
        let offsets = gap > 0 ? [offset - gap / 2 - width / 2, offset + gap / 2 + width / 2] : [offset]
        var path = Path()
        for line in lines where line.count >= 2 {
            let screenLine = project(line, shift)
            for d in offsets {
                path.append(Path(polyline: d == 0 ? screenLine : Self.offset(screenLine, by: d, closed: closed), closed: closed))
            }
        }
        canvas.stroke(path, style: style, color: c)
    }

    /// A polyline moved `d` pixels to its right (left when negative), joints mitred (MapLibre's `line-offset`).
    static func offset(_ ps: [Point], by d: Double, closed: Bool = false) -> [Point] {
        func normal(_ a: Point, _ b: Point) -> Point {
            let v = b - a, l = v.length
            return l > 0 ? Point(x: -v.y / l, y: v.x / l) : Point(x: 0, y: 0)
        }
        var out: [Point] = []
        out.reserveCapacity(ps.count)
        for i in ps.indices {
            let last = ps.count - 1
            let n0 = i > 0 ? normal(ps[i - 1], ps[i]) : closed ? normal(ps[last], ps[0]) : normal(ps[i], ps[i + 1])
            let n1 = i < last ? normal(ps[i], ps[i + 1]) : closed ? normal(ps[last], ps[0]) : n0
            let sum = n0 + n1, dot = 1 + n0.x * n1.x + n0.y * n1.y
            let m = dot > 0.05 ? sum * (1 / dot) : n1
            out.append(ps[i] + m * d)
        }
        return out
    }

    /// Circles shaded per pixel as MapLibre's circle shader does: the disc and its stroke
    /// antialiased over 1/(pixel ratio · outer radius), then `circle-blur` fading the outer
    /// part of the radius.
    mutating func drawCircle(_ f: RenderFeature, _ layer: StyleLayer) {
        let centers: [WorldPoint] = switch f.kind {
        case .point: f.points
        case .line: f.lines.flatMap { $0 }
        case .polygon: f.polygons.flatMap { $0.flatMap { $0.dropLast() } }
        }
        guard !centers.isEmpty else { return }
        let pr = camera.pixelRatio
        let radius = number(layer, "circle-radius", f), strokeWidth = number(layer, "circle-stroke-width", f)
        let blur = number(layer, "circle-blur", f), opacity = number(layer, "circle-opacity", f)
        let fill = color(layer, "circle-color", f).premultiplied.map { $0 * opacity }
        let stroke = color(layer, "circle-stroke-color", f).premultiplied.map { $0 * number(layer, "circle-stroke-opacity", f) }
        let outer = radius + strokeWidth
        guard outer > 0 else { return }
        let aaBlur = 1 / (pr * outer)
        let blurAll = max(blur, aaBlur)
        let shift = translation(layer, "circle", f)
        let clip = canvas.clip, screen = self.screen
        canvas.withPixmap { image in
            let w = image.width, h = image.height
            var minX = 0, minY = 0, maxX = w, maxY = h
            if let clip { (minX, minY, maxX, maxY) = (max(0, clip.minX), max(0, clip.minY), min(w, clip.maxX), min(h, clip.maxY)) }
            image.withUnsafeMutableBytes { px in
                for c in centers {
                    let p = screen.point(c.x, c.y) + shift
                    let r = outer * pr
                    let x0 = max(minX, Int((p.x - r).rounded(.down))), x1 = min(maxX - 1, Int((p.x + r).rounded(.up)))
                    let y0 = max(minY, Int((p.y - r).rounded(.down))), y1 = min(maxY - 1, Int((p.y + r).rounded(.up)))
                    guard x0 <= x1, y0 <= y1 else { continue }
                    for y in y0...y1 {
                        for x in x0...x1 {
                            let dx = Double(x) + 0.5 - p.x, dy = Double(y) + 0.5 - p.y
                            let t = (dx * dx + dy * dy).squareRoot() / r
                            guard t < 1 else { continue }
                            let alpha = Self.smoothstep(0, -blurAll, t - 1)
                            let mix = strokeWidth < 0.01 ? 0 : Self.smoothstep(-blurAll, 0, t - radius / outer)
                            let a = alpha
                            guard a > 0 else { continue }
                            let s = (0..<4).map { (fill[$0] * (1 - mix) + stroke[$0] * mix) * a }
                            let i = (y * w + x) * 4
                            let k = 1 - s[3]
                            for ch in 0..<4 {
                                let v = s[ch] * 255 + Double(px[i + ch]) * k
                                px[i + ch] = UInt8(min(255, max(0, v.rounded())))
                            }
                        }
                    }
                }
            }
        }
    }

    /// GLSL's `smoothstep(e0, e1, x)`.
    static func smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
        let t = ((x - e0) / (e1 - e0)).clamped(0, 1)
        return t * t * (3 - 2 * t)
    }
}
