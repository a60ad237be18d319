import GeoBase
import GeoCore
import MapData
import MapRenderer
import MapStyle
import Platform

/// What symbol layers share in one snapshot: the glyph ranges loaded from the style's
/// `glyphs` URL (or kept by the snapshot's ``StyleResources``), the labels placed (top layer first, as MapLibre places them) per layer.
struct SymbolState {
    /// Glyphs by font stack and range start; nil for a range that did not load.
    var ranges: [StylePainter.GlyphRangeKey: [UInt32: SDFGlyph]?] = [:]
    var placed: [String: [PlacedLabel]]?
    /// Layer and image names already warned about as missing from the sprite.
    var missingImages: Set<String> = []
}

/// A label that won its place: its glyphs as screen quads and its paint.
struct PlacedLabel {
    struct Quad {
        var glyph: SDFGlyph
        /// The quad's origin on screen, device pixels; the glyph is turned `angle` radians
        /// clockwise about it and scaled by `scale` device pixels per em unit.
        var origin: Point
        var angle: Double
        var scale: Double
        /// The bitmap's top-left corner (its 1-texel padding included) in em units from the origin.
        var corner: Point
        var section: Int
    }
    var quads: [Quad]
    var feature: RenderFeature
    var sectionColors: [StyleColor?]
    /// Its icon, when it has one and the icon found room.
    var icon: PlacedIcon? = nil
    /// Its anchor on screen (device pixels) and its feature's place in the layer's order.
    var anchor = Point(x: 0, y: 0)
    var index = 0

    /// The label moved by `shift` device pixels (placed in one view, drawn in another).
    func moved(by shift: Point) -> PlacedLabel {
        var l = self
        l.anchor = anchor + shift
        for i in l.quads.indices { l.quads[i].origin = l.quads[i].origin + shift }
        l.icon?.origin = (icon?.origin ?? anchor) + shift
        return l
    }
}

extension StylePainter {
    /// The glyph of `c` in its font stack, loading its range through the style's `glyphs` URL.
    mutating func sdfGlyph(_ c: TextCharacter) -> SDFGlyph? {
        let start = c.scalar.value / 256 * 256
        guard c.scalar.value <= 0xFFFF, let template = style.glyphs else { return nil }
        let key = GlyphRangeKey(fontStack: c.fontStack, start: start)
        if let range = symbols.ranges[key] { return range?[c.scalar.value] }
        let loaded: StyleResources.Loaded<[UInt32: SDFGlyph]> = resources.glyphRanges[key] ?? {
            let url = template.split(separator: "{fontstack}", omittingEmptySubsequences: false).joined(separator: c.fontStack)
                .split(separator: "{range}", omittingEmptySubsequences: false).joined(separator: "\(start)-\(start + 255)")
            do {
                let stacks = try GlyphPBF.decode(try load(url))
                var map: [UInt32: SDFGlyph] = [:]
                for s in stacks { for g in s.glyphs { map[g.id] = g } }
                return .value(map)
            } catch {
                return .failed("glyphs \(url): \(error)")
            }
        }()
        resources.glyphRanges[key] = loaded
        switch loaded {
        case .value(let map):
            symbols.ranges[key] = .some(map)
            return map[c.scalar.value]
        case .failed(let warning):
            warnings.append(warning)
            symbols.ranges[key] = .some(nil)
            return nil
        }
    }

    /// A glyph range of a font stack: its first code point, a multiple of 256.
    struct GlyphRangeKey: Hashable {
        var fontStack: String
        var start: UInt32
    }

    /// The placed labels' anchors and the device pixels their glyph quads (halo padding
    /// included) and icons cover, clipped to the canvas; labels covering none are left out.
    func symbolBounds() -> [StyleSnapshot.Symbol] {
        var out: [StyleSnapshot.Symbol] = []
        for layer in style.layers.reversed() {
            for label in symbols.placed?[layer.id] ?? [] where Self.mayReachImage(label, width: canvas.width, height: canvas.height) {
                var corners: [Point] = []
                for q in label.quads {
                    let tw = Double(q.glyph.width + 8), th = Double(q.glyph.height + 8)
                    let cosA = cos(q.angle), sinA = sin(q.angle)
                    for (u, v) in [(0, 0), (tw, 0), (0, th), (tw, th)] {
                        let x = (q.corner.x + u) * q.scale, y = (q.corner.y + v) * q.scale
                        corners.append(Point(x: q.origin.x + x * cosA - y * sinA, y: q.origin.y + x * sinA + y * cosA))
                    }
                }
                if let icon = label.icon {
                    let cosA = cos(icon.angle), sinA = sin(icon.angle)
                    for (u, v) in [(icon.minX, icon.minY), (icon.maxX, icon.minY), (icon.minX, icon.maxY), (icon.maxX, icon.maxY)] {
                        corners.append(Point(x: icon.origin.x + u * cosA - v * sinA, y: icon.origin.y + u * sinA + v * cosA))
                    }
                }
                guard let minX = corners.map(\.x).min(), let maxX = corners.map(\.x).max(),
                      let minY = corners.map(\.y).min(), let maxY = corners.map(\.y).max() else { continue }
                let x0 = max(0, Int(minX.rounded(.down)) - 1), x1 = min(canvas.width, Int(maxX.rounded(.up)) + 1)
                let y0 = max(0, Int(minY.rounded(.down)) - 1), y1 = min(canvas.height, Int(maxY.rounded(.up)) + 1)
                guard x0 < x1, y0 < y1 else { continue }
                out.append(StyleSnapshot.Symbol(anchor: label.anchor, minX: x0, minY: y0, maxX: x1, maxY: y1))
            }
        }
        return out
    }

    /// Whether a placed label's rectangle could meet a `width × height` image: false only when
    /// a box holding every corner (each quad's corners lie within `scale · (|corner| + its
    /// bitmap's sides)` of its origin, an icon's within its extents of its origin) lies two
    /// pixels or more off the image, so ``symbolBounds()`` skips the turned corners of the
    /// labels a source tile placed far from a small image.
    static func mayReachImage(_ label: PlacedLabel, width: Int, height: Int) -> Bool {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        func add(_ o: Point, _ r: Double) {
            minX = min(minX, o.x - r); maxX = max(maxX, o.x + r)
            minY = min(minY, o.y - r); maxY = max(maxY, o.y + r)
        }
        for q in label.quads {
            add(q.origin, abs(q.scale) * (abs(q.corner.x) + abs(q.corner.y) + Double(q.glyph.width + 8) + Double(q.glyph.height + 8)))
        }
        if let icon = label.icon {
            add(icon.origin, max(abs(icon.minX), abs(icon.maxX)) + max(abs(icon.minY), abs(icon.maxY)))
        }
        return !(maxX < -2 || maxY < -2 || minX > Double(width) + 2 || minY > Double(height) + 2)
    }

    /// Draws a symbol layer: its icons, then its text (halos first, then the text, as
    /// MapLibre's two SDF passes).
    mutating func drawSymbols(_ layer: StyleLayer) {
        if symbols.placed == nil { placeSymbols() }
        let labels = symbols.placed?[layer.id] ?? []
        drawIcons(layer, labels)
        // Labels whose glyphs all lie off the image draw nothing (a tile's labels are all placed).
        let shown = labels.filter { $0.quads.contains(where: reachesImage) }
        for halo in [true, false] {
            for label in shown {
                let f = label.feature
                let opacity = number(layer, "text-opacity", f)
                let size = number(layer, "text-size", f, paint: false)
                let fontScale = size / SymbolShaping.oneEm
                let edgeGamma = 0.105 / camera.pixelRatio
                if halo {
                    let width = number(layer, "text-halo-width", f)
                    let haloColor = color(layer, "text-halo-color", f)
                    guard width > 0, haloColor.alpha > 0 else { continue }
                    let gamma = (number(layer, "text-halo-blur", f) * 1.19 / 8 + edgeGamma) / fontScale
                    let buff = (6 - width / fontScale) / 8
                    for q in label.quads { drawGlyph(q, color: Self.rgba(haloColor, opacity: opacity), buff: buff, gamma: gamma) }
                } else {
                    let base = color(layer, "text-color", f)
                    for q in label.quads {
                        let c = label.sectionColors.indices.contains(q.section) ? label.sectionColors[q.section] ?? base : base
                        drawGlyph(q, color: Self.rgba(c, opacity: opacity), buff: 0.75, gamma: edgeGamma / fontScale)
                    }
                }
            }
        }
    }

    /// Whether a glyph quad may cover a pixel of the image: its corners lie within
    /// (|corner.x| + |corner.y| + the bitmap's padded width and height) · scale of its origin
    /// however it is turned (what ``drawGlyph(_:color:buff:gamma:)`` covers, generously).
    func reachesImage(_ q: PlacedLabel.Quad) -> Bool {
        let g = q.glyph
        let r = (abs(q.corner.x) + abs(q.corner.y) + Double(g.width + 8) + Double(g.height + 8)) * abs(q.scale) + 1
        return q.origin.x + r >= 0 && q.origin.x - r <= Double(canvas.width) && q.origin.y + r >= 0 && q.origin.y - r <= Double(canvas.height)
    }

    /// One glyph quad shaded as MapLibre's `symbol_sdf` fragment shader: the distance field
    /// sampled bilinearly, alpha `smoothstep(buff − gamma, buff + gamma, distance)`.
    mutating func drawGlyph(_ q: PlacedLabel.Quad, color: Color, buff: Double, gamma: Double) {
        let g = q.glyph
        let bw = g.width + 6, bh = g.height + 6
        guard color.alpha > 0, g.bitmap.count == bw * bh, q.scale > 0 else { return }
        let tw = Double(bw + 2), th = Double(bh + 2)
        let cosA = cos(q.angle), sinA = sin(q.angle)
        // The quad's screen corners: local (corner + (u, v)) · scale, turned, about the origin.
        func screen(_ u: Double, _ v: Double) -> Point {
            let x = (q.corner.x + u) * q.scale, y = (q.corner.y + v) * q.scale
            return Point(x: q.origin.x + x * cosA - y * sinA, y: q.origin.y + x * sinA + y * cosA)
        }
        let c0 = screen(0, 0), c1 = screen(tw, 0), c2 = screen(0, th), c3 = screen(tw, th)
        let x0 = max(0, Int(min(c0.x, c1.x, c2.x, c3.x).rounded(.down))), x1 = min(canvas.width, Int(max(c0.x, c1.x, c2.x, c3.x).rounded(.up)))
        let y0 = max(0, Int(min(c0.y, c1.y, c2.y, c3.y).rounded(.down))), y1 = min(canvas.height, Int(max(c0.y, c1.y, c2.y, c3.y).rounded(.up)))
        guard x0 < x1, y0 < y1 else { return }
        // One row's coverage, on the stack when it is small (a glyph's width).
        withUnsafeTemporaryAllocation(of: Float.self, capacity: x1 - x0) { row in
            canvas.withPixmap { image in g.bitmap.withUnsafeBufferPointer { bitmap in
                // The texel at (x, y), 0 … 1, transparent outside the bitmap (checked above: bw · bh texels).
                func texel(_ x: Int, _ y: Int) -> Double {
                    guard x >= 0, y >= 0, x < bw, y < bh else { return 0 }
                    return Double(bitmap[y * bw + x]) / 255
                }
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let dx = Double(x) + 0.5 - q.origin.x, dy = Double(y) + 0.5 - q.origin.y
                        // Back to texels: unturn, unscale, then the bitmap starts one texel in.
                        let u = (dx * cosA + dy * sinA) / q.scale - q.corner.x - 1
                        let v = (-dx * sinA + dy * cosA) / q.scale - q.corner.y - 1
                        var a = 0.0
                        if u > -1, v > -1, u < Double(bw) + 1, v < Double(bh) + 1 {
                            let fx = u - 0.5, fy = v - 0.5
                            let ix = LineShading.floor(fx), iy = LineShading.floor(fy)
                            let tx = fx - Double(ix), ty = fy - Double(iy)
                            // The four texels around the sample, read at one offset where all lie in the bitmap.
                            let t00, t10, t01, t11: Double
                            // (ix and iy lie within a texel or two of the bitmap, its offsets inside it:
                            // worked out without overflow checks.)
                            if ix >= 0, iy >= 0, ix &+ 1 < bw, iy &+ 1 < bh {
                                let k = iy &* bw &+ ix
                                (t00, t10) = (Double(bitmap[k]) / 255, Double(bitmap[k &+ 1]) / 255)
                                (t01, t11) = (Double(bitmap[k &+ bw]) / 255, Double(bitmap[k &+ bw &+ 1]) / 255)
                            } else {
                                (t00, t10, t01, t11) = (texel(ix, iy), texel(ix + 1, iy), texel(ix, iy + 1), texel(ix + 1, iy + 1))
                            }
                            let d = (t00 * (1 - tx) + t10 * tx) * (1 - ty) + (t01 * (1 - tx) + t11 * tx) * ty
                            a = Self.smoothstep(buff - gamma, buff + gamma, d)
                        }
                        row[x &- x0] = Float(a)
                    }
                    image.composite(color, row: y, x: x0, coverage: UnsafeBufferPointer(row))
                }
            } }
        }
    }

    /// The label text of a feature: `text-field` (a string with `{property}` tokens or a
    /// `format`ted value) in sections, `text-transform` applied.
    func labelText(_ layer: StyleLayer, _ f: RenderFeature, fontStack: String) -> (chars: [TextCharacter], colors: [StyleColor?]) {
        var sections: [(String, Double, String, StyleColor?)] = []
        switch value(layer, "text-field", f, paint: false) {
        case .formatted(let formatted):
            for s in formatted.sections where s.image == nil {
                sections.append((s.text, s.scale ?? 1, s.fontStack ?? fontStack, s.textColor))
            }
        case .string(let s): sections.append((Self.replacingTokens(s, f), 1, fontStack, nil))
        case .null: return ([], [])
        case let other: sections.append((other.stringValue ?? "\(other)", 1, fontStack, nil))
        }
        let transform = value(layer, "text-transform", f, paint: false).stringValue
        var chars: [TextCharacter] = []
        for (i, (string, scale, stack, _)) in sections.enumerated() {
            let text = transform == "uppercase" ? string.uppercased() : transform == "lowercase" ? string.lowercased() : string
            // At most a scalar per UTF-8 byte: the list grown once, not per scalar.
            chars.reserveCapacity(chars.count + text.utf8.count)
            for scalar in text.unicodeScalars { chars.append(TextCharacter(scalar: scalar, section: i, scale: scale, fontStack: stack)) }
        }
        return (chars, sections.map(\.3))
    }

    /// `{name}` tokens replaced by the feature's property (empty when it has none).
    static func replacingTokens(_ s: String, _ f: RenderFeature) -> String {
        guard s.contains("{") else { return s }
        var out = "", rest = s[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let key = String(rest[rest.index(after: open)..<close])
            if let v = f.expressionFeature.properties[key] { out += v.stringValue ?? v.numberValue.map(ShortestDecimal.string) ?? "" }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}
