import GeoCore
import MapData
import MapRenderer
import MapStyle
import Platform

/// An icon laid out round its anchor as MapLibre GL's `shapeIcon` and `fitIconToText` lay it
/// out: the box the sprite image fills, in CSS pixels at `icon-size` 1, y down, (0, 0) at the anchor.
struct ShapedIcon {
    var image: SpriteImage
    var left, top, right, bottom: Double

    /// The image's box for `icon-anchor` `anchor`, moved by `icon-offset` (CSS pixels): its
    /// size is the image's pixels over its pixel ratio.
    init(_ image: SpriteImage, offset: [Double], anchor: String) {
        self.image = image
        let w = Double(image.image.width) / image.pixelRatio, h = Double(image.image.height) / image.pixelRatio
        let (horizontal, vertical) = SymbolShaping.alignment(anchor)
        let dx = offset.count == 2 ? offset[0] : 0, dy = offset.count == 2 ? offset[1] : 0
        left = dx - w * horizontal
        top = dy - h * vertical
        right = left + w
        bottom = top + h
    }

    /// `icon-text-fit` (`width`, `height`, `both`): the box stretched round the text's block
    /// (`text` in em units, `fontScale` CSS pixels per em unit) plus `padding` (top, right,
    /// bottom, left, CSS pixels). A side not fitted keeps the image's size with its atlas
    /// border (a texel each side), centred on the text, and is padded too, as the render
    /// suite's `icon-text-fit` expectations draw it (GL JS's original quads).
    func fitted(to text: ShapedText, fit: String, padding: [Double], offset: [Double], fontScale: Double) -> ShapedIcon {
        var out = self
        let p = padding.count == 4 ? padding : [0, 0, 0, 0]
        let dx = offset.count == 2 ? offset[0] : 0, dy = offset.count == 2 ? offset[1] : 0
        let textLeft = text.left * fontScale, textRight = text.right * fontScale
        let textTop = text.top * fontScale, textBottom = text.bottom * fontScale
        let border = 2 / image.pixelRatio
        if fit == "width" || fit == "both" {
            out.left = dx + textLeft - p[3]
            out.right = dx + textRight + p[1]
        } else {
            let w = right - left + border
            out.left = dx + (textLeft + textRight - w) / 2 - p[3]
            out.right = out.left + p[3] + w + p[1]
        }
        if fit == "height" || fit == "both" {
            out.top = dy + textTop - p[0]
            out.bottom = dy + textBottom + p[2]
        } else {
            let h = bottom - top + border
            out.top = dy + (textTop + textBottom - h) / 2 - p[0]
            out.bottom = out.top + p[0] + h + p[2]
        }
        return out
    }
}

/// An icon that won its place: the image stretched over a box (device pixels from `origin`
/// before turning `angle` radians clockwise about it).
struct PlacedIcon {
    var image: SpriteImage
    var origin: Point
    var angle: Double
    var minX, minY, maxX, maxY: Double
    /// Sampled bilinearly (MapLibre's LINEAR atlas filter) rather than from the nearest texel.
    var linear: Bool
    /// The box holds the image and the atlas's one transparent texel round it (an icon
    /// stretched by `icon-text-fit`), rather than the image alone.
    var bordered = false
}

extension StylePainter {
    /// The sprite image `icon-image` names for a feature (`{property}` tokens replaced), nil
    /// when it names none; a name the sprite lacks is warned about once.
    mutating func iconImage(_ layer: StyleLayer, _ f: RenderFeature) -> SpriteImage? {
        guard layer.layoutValues["icon-image"] != nil else { return nil }
        let name: String
        switch value(layer, "icon-image", f, paint: false) {
        case .string(let s): name = Self.replacingTokens(s, f)
        case .resolvedImage(let r): name = Self.replacingTokens(r.name, f)
        default: return nil
        }
        guard !name.isEmpty else { return nil }
        if let image = spriteImage(name) { return image }
        if symbols.missingImages.insert(layer.id + "\u{0}" + name).inserted {
            warnings.append("layer \(layer.id): no sprite image \"\(name)\"")
        }
        return nil
    }

    /// A `padding` property (1 to 4 values, CSS order) as top, right, bottom, left.
    static func padding(_ v: ExpressionValue) -> [Double] {
        let n = v.numbersValue ?? v.numberValue.map { [$0] } ?? [0]
        switch n.count {
        case 1: return [n[0], n[0], n[0], n[0]]
        case 2: return [n[0], n[1], n[0], n[1]]
        case 3: return [n[0], n[1], n[2], n[1]]
        case 4: return n
        default: return [0, 0, 0, 0]
        }
    }

    /// The collision box of an icon at `p`: its box scaled by `scale` device pixels per CSS
    /// pixel, padded by `padding` (device pixels), turned `rotate` radians (its bounds then).
    static func iconBox(_ icon: ShapedIcon, at p: Point, scale: Double, padding: [Double], rotate: Double) -> Box {
        let x1 = icon.left * scale - padding[3], x2 = icon.right * scale + padding[1]
        let y1 = icon.top * scale - padding[0], y2 = icon.bottom * scale + padding[2]
        let c = cos(rotate), s = sin(rotate)
        let corners = [(x1, y1), (x2, y1), (x1, y2), (x2, y2)].map { Point(x: p.x + $0.0 * c - $0.1 * s, y: p.y + $0.0 * s + $0.1 * c) }
        return Box(minX: corners.map(\.x).min()!, minY: corners.map(\.y).min()!, maxX: corners.map(\.x).max()!, maxY: corners.map(\.y).max()!)
    }

    /// Draws a symbol layer's icons as MapLibre's `symbol_icon` and `symbol_sdf` shaders do:
    /// a plain image times `icon-opacity`; an SDF image as its halo (all halos first) then
    /// its fill in `icon-color`, with `icon-size` as the SDF's font scale.
    mutating func drawIcons(_ layer: StyleLayer, _ labels: [PlacedLabel]) {
        let edgeGamma = 0.105 / camera.pixelRatio
        for halo in [true, false] {
            for label in labels {
                guard let icon = label.icon else { continue }
                let f = label.feature
                let opacity = number(layer, "icon-opacity", f).clamped(0, 1)
                guard opacity > 0 else { continue }
                guard icon.image.sdf else {
                    if !halo { drawIcon(icon, opacity: opacity) }
                    continue
                }
                let fontScale = max(number(layer, "icon-size", f, paint: false), 1e-6)
                if halo {
                    let width = number(layer, "icon-halo-width", f)
                    let haloColor = color(layer, "icon-halo-color", f)
                    guard width > 0, haloColor.alpha > 0 else { continue }
                    let gamma = (number(layer, "icon-halo-blur", f) * 1.19 / 8 + edgeGamma) / fontScale
                    drawIcon(icon, opacity: opacity, sdf: (Self.rgba(haloColor, opacity: opacity), (6 - width / fontScale) / 8, gamma))
                } else {
                    let fill = color(layer, "icon-color", f)
                    drawIcon(icon, opacity: opacity, sdf: (Self.rgba(fill, opacity: opacity), 0.75, edgeGamma / fontScale))
                }
            }
        }
    }

    /// One icon quad: each device pixel whose centre falls inside the turned box takes the
    /// image's texel there (nearest, or bilinear with transparent texels round the image,
    /// as the atlas pads it). With `sdf`, the texel's alpha is a distance and the pixel gets
    /// `smoothstep(buff − gamma, buff + gamma, distance)` of the colour.
    mutating func drawIcon(_ icon: PlacedIcon, opacity: Double, sdf: (color: Color, buff: Double, gamma: Double)? = nil) {
        let tex = icon.image.image, tw = tex.width, th = tex.height
        let boxW = icon.maxX - icon.minX, boxH = icon.maxY - icon.minY
        guard tw > 0, th > 0, boxW > 0, boxH > 0 else { return }
        let cosA = cos(icon.angle), sinA = sin(icon.angle)
        let corners = [(icon.minX, icon.minY), (icon.maxX, icon.minY), (icon.minX, icon.maxY), (icon.maxX, icon.maxY)].map {
            Point(x: icon.origin.x + $0.0 * cosA - $0.1 * sinA, y: icon.origin.y + $0.0 * sinA + $0.1 * cosA)
        }
        let x0 = max(0, Int(corners.map(\.x).min()!.rounded(.down))), x1 = min(canvas.width, Int(corners.map(\.x).max()!.rounded(.up)))
        let y0 = max(0, Int(corners.map(\.y).min()!.rounded(.down))), y1 = min(canvas.height, Int(corners.map(\.y).max()!.rounded(.up)))
        guard x0 < x1, y0 < y1 else { return }
        let linear = icon.linear || sdf != nil
        tex.bytes.withUnsafeBufferPointer { t in
            /// Channel `c` of texel (x, y), 0 outside the image.
            func texel(_ x: Int, _ y: Int, _ c: Int) -> Double {
                guard x >= 0, y >= 0, x < tw, y < th else { return 0 }
                return Double(t[(y * tw + x) * 4 + c])
            }
            func sample(_ u: Double, _ v: Double, _ c: Int) -> Double {
                guard linear else { return texel(Int(u.rounded(.down)), Int(v.rounded(.down)), c) }
                let fx = u - 0.5, fy = v - 0.5
                let ix = Int(fx.rounded(.down)), iy = Int(fy.rounded(.down))
                let ax = fx - Double(ix), ay = fy - Double(iy)
                return (texel(ix, iy, c) * (1 - ax) + texel(ix + 1, iy, c) * ax) * (1 - ay) + (texel(ix, iy + 1, c) * (1 - ax) + texel(ix + 1, iy + 1, c) * ax) * ay
            }
            var row = [Float](repeating: 0, count: x1 - x0)
            canvas.withPixmap { image in
                let w = image.width
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        row[x - x0] = 0
                        let dx = Double(x) + 0.5 - icon.origin.x, dy = Double(y) + 0.5 - icon.origin.y
                        let lx = dx * cosA + dy * sinA, ly = -dx * sinA + dy * cosA
                        guard lx >= icon.minX, lx < icon.maxX, ly >= icon.minY, ly < icon.maxY else { continue }
                        let border = icon.bordered ? 1.0 : 0
                        let u = (lx - icon.minX) / boxW * (Double(tw) + 2 * border) - border
                        let v = (ly - icon.minY) / boxH * (Double(th) + 2 * border) - border
                        if let sdf {
                            row[x - x0] = Float(Self.smoothstep(sdf.buff - sdf.gamma, sdf.buff + sdf.gamma, sample(u, v, 3) / 255))
                            continue
                        }
                        let a = sample(u, v, 3) * opacity
                        guard a > 0 else { continue }
                        let keep = 1 - a / 255
                        image.withUnsafeMutableBytes { px in
                            let i = (y * w + x) * 4
                            for c in 0..<4 {
                                let src = c == 3 ? a : sample(u, v, c) * opacity
                                px[i + c] = UInt8(min(255, max(0, (src + Double(px[i + c]) * keep).rounded())))
                            }
                        }
                    }
                    if let sdf { row.withUnsafeBufferPointer { image.composite(sdf.color, row: y, x: x0, coverage: $0) } }
                }
            }
        }
    }
}
