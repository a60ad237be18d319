import GeoCore
import MapRenderer
import MapStyle
import Platform

/// Raster layers: each tile's image resampled onto the view and its colours adjusted as
/// MapLibre's raster shader adjusts them (hue rotation, saturation, contrast, brightness range,
/// opacity; `raster.fragment.glsl`).
extension StylePainter {
    mutating func drawRaster(_ layer: StyleLayer) {
        guard let name = layer.source, let source = style.sources[name] else { return }
        guard source.type == "raster" || source.type == "image" else {
            warnings.append("layer \(layer.id): \(source.type) sources are not drawn by raster layers")
            return
        }
        let tiles = source.type == "raster" ? rasterTiles(name, source) : []
        let picture = source.type == "image" ? image(name, source) : nil
        let opacity = number(layer, "raster-opacity")
        guard opacity > 0 else { return }
        let adjust = RasterAdjustment(hueRotate: number(layer, "raster-hue-rotate"), saturation: number(layer, "raster-saturation"),
                                      contrast: number(layer, "raster-contrast"), brightnessMin: number(layer, "raster-brightness-min"),
                                      brightnessMax: number(layer, "raster-brightness-max"), opacity: opacity)
        let nearest = value(layer, "raster-resampling").stringValue == "nearest"
        let screen = self.screen
        canvas.withPixmap { image in
            for (t, tile) in tiles { Self.draw(tile, t, into: &image, screen: screen, adjust: adjust, nearest: nearest) }
            if let (picture, corners) = picture { Self.draw(picture, corners: corners, into: &image, adjust: adjust, nearest: nearest) }
        }
    }

    /// An image source's picture and its corners on screen (top left, top right, bottom right, bottom left).
    private mutating func image(_ name: String, _ source: StyleSource) -> (Pixmap, [Point])? {
        guard let url = source.url, source.coordinates.count == 4, source.coordinates.allSatisfy({ $0.count == 2 }) else { return nil }
        do {
            let picture = try PNG.decode(try load(url))
            let corners = source.coordinates.map { c -> Point in
                let lat = min(max(c[1], -85.051129), 85.051129)
                let w = WebMercator.worldPoint(Coordinate(uncheckedLatitude: lat, longitude: c[0]))
                return screen.point(w.x, w.y)
            }
            return (picture, corners)
        } catch {
            warnings.append("source \(name): \(url): \(error)")
            return nil
        }
    }

    /// A picture mapped onto a quadrilateral as GL draws a textured quad: two triangles (top
    /// left, top right, bottom left) and (top right, bottom right, bottom left), the picture's
    /// coordinates interpolated linearly in each.
    private static func draw(_ picture: Pixmap, corners c: [Point], into image: inout Pixmap, adjust: RasterAdjustment, nearest: Bool) {
        let x0 = max(0, Int(c.map(\.x).min()!.rounded(.down))), x1 = min(image.width - 1, Int(c.map(\.x).max()!.rounded(.up)))
        let y0 = max(0, Int(c.map(\.y).min()!.rounded(.down))), y1 = min(image.height - 1, Int(c.map(\.y).max()!.rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        let triangles: [([Point], [(Double, Double)])] = [([c[0], c[1], c[3]], [(0, 0), (1, 0), (0, 1)]), ([c[1], c[2], c[3]], [(1, 0), (1, 1), (0, 1)])]
        let w = image.width
        image.withUnsafeMutableBytes { px in
            for y in y0...y1 {
                for x in x0...x1 {
                    let p = Point(x: Double(x) + 0.5, y: Double(y) + 0.5)
                    var uv: (Double, Double)?
                    for (t, tex) in triangles {
                        let d = (t[1].y - t[2].y) * (t[0].x - t[2].x) + (t[2].x - t[1].x) * (t[0].y - t[2].y)
                        guard abs(d) > 1e-12 else { continue }
                        let a = ((t[1].y - t[2].y) * (p.x - t[2].x) + (t[2].x - t[1].x) * (p.y - t[2].y)) / d
                        let b = ((t[2].y - t[0].y) * (p.x - t[2].x) + (t[0].x - t[2].x) * (p.y - t[2].y)) / d
                        let g = 1 - a - b
                        if a >= 0, b >= 0, g >= 0 {
                            uv = (a * tex[0].0 + b * tex[1].0 + g * tex[2].0, a * tex[0].1 + b * tex[1].1 + g * tex[2].1)
                            break
                        }
                    }
                    guard let (u, v) = uv else { continue }
                    let out = adjust.apply(sample(picture, u: u, v: v, nearest: nearest))
                    let i = (y * w + x) * 4
                    let k = 1 - out[3]
                    for ch in 0..<4 { px[i + ch] = UInt8(min(255, max(0, (out[ch] * 255 + Double(px[i + ch]) * k).rounded()))) }
                }
            }
        }
    }

    /// The premultiplied colour (0 … 1) of a picture at (u, v) ∈ [0, 1]², bilinear or nearest, clamped at the edges.
    static func sample(_ picture: Pixmap, u: Double, v: Double, nearest: Bool) -> [Double] {
        let tw = picture.width, th = picture.height
        let fx = u * Double(tw) - 0.5, fy = v * Double(th) - 0.5
        var c = [0.0, 0.0, 0.0, 0.0]
        picture.bytes.withUnsafeBufferPointer { src in
            if nearest {
                let i = (min(th - 1, max(0, Int((fy + 0.5).rounded(.down)))) * tw + min(tw - 1, max(0, Int((fx + 0.5).rounded(.down))))) * 4
                for ch in 0..<4 { c[ch] = Double(src[i + ch]) / 255 }
                return
            }
            let ix = Int(fx.rounded(.down)), iy = Int(fy.rounded(.down))
            let ax = fx - Double(ix), ay = fy - Double(iy)
            for (ox, oy, wgt) in [(0, 0, (1 - ax) * (1 - ay)), (1, 0, ax * (1 - ay)), (0, 1, (1 - ax) * ay), (1, 1, ax * ay)] where wgt > 0 {
                let i = (min(th - 1, max(0, iy + oy)) * tw + min(tw - 1, max(0, ix + ox))) * 4
                for ch in 0..<4 { c[ch] += Double(src[i + ch]) / 255 * wgt }
            }
        }
        return c
    }

    private static func draw(_ tile: Pixmap, _ t: CanonicalTile, into image: inout Pixmap, screen: ScreenTransform,
                             adjust: RasterAdjustment, nearest: Bool) {
        let n = Double(1 << t.z)
        let corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].map { screen.point((Double(t.x) + $0.0) / n, (Double(t.y) + $0.1) / n) }
        let x0 = max(0, Int(corners.map(\.x).min()!.rounded(.down))), x1 = min(image.width - 1, Int(corners.map(\.x).max()!.rounded(.up)))
        let y0 = max(0, Int(corners.map(\.y).min()!.rounded(.down))), y1 = min(image.height - 1, Int(corners.map(\.y).max()!.rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        let w = image.width
        image.withUnsafeMutableBytes { px in
            for y in y0...y1 {
                for x in x0...x1 {
                    // The pixel centre back in the world, then in the tile's pixels.
                    let world = screen.world(Double(x) + 0.5, Double(y) + 0.5)
                    let u = world.x * n - Double(t.x), v = world.y * n - Double(t.y)
                    guard u >= 0, u < 1, v >= 0, v < 1 else { continue }
                    let c = sample(tile, u: u, v: v, nearest: nearest)
                    let out = adjust.apply(c)
                    let i = (y * w + x) * 4
                    let k = 1 - out[3]
                    for ch in 0..<4 { px[i + ch] = UInt8(min(255, max(0, (out[ch] * 255 + Double(px[i + ch]) * k).rounded()))) }
                }
            }
        }
    }
}

/// The raster shader's colour operations, their factors computed as MapLibre's
/// `raster_program` computes its uniforms.
struct RasterAdjustment {
    let spin: (Double, Double, Double)
    let saturationFactor: Double, contrastFactor: Double
    let brightnessLow: Double, brightnessHigh: Double
    let opacity: Double

    init(hueRotate: Double, saturation: Double, contrast: Double, brightnessMin: Double, brightnessMax: Double, opacity: Double) {
        let angle = hueRotate * .pi / 180, s = sin(angle), c = cos(angle)
        spin = ((2 * c + 1) / 3, (-(3.0).squareRoot() * s - c + 1) / 3, ((3.0).squareRoot() * s - c + 1) / 3)
        saturationFactor = saturation > 0 ? 1 - 1 / (1.001 - saturation) : -saturation
        contrastFactor = contrast > 0 ? 1 / (1 - contrast) : 1 + contrast
        brightnessLow = brightnessMin
        brightnessHigh = brightnessMax
        self.opacity = opacity
    }

    /// A premultiplied sample (0 … 1) adjusted, premultiplied with the layer's opacity.
    func apply(_ p: [Double]) -> [Double] {
        let a = p[3] * opacity
        guard p[3] > 0 else { return [0, 0, 0, 0] }
        let r = p[0] / p[3], g = p[1] / p[3], b = p[2] / p[3]
        var rgb = [r * spin.0 + g * spin.1 + b * spin.2, r * spin.2 + g * spin.0 + b * spin.1, r * spin.1 + g * spin.2 + b * spin.0]
        let average = (r + g + b) / 3
        rgb = rgb.map { $0 + (average - $0) * saturationFactor }
        rgb = rgb.map { ($0 - 0.5) * contrastFactor + 0.5 }
        rgb = rgb.map { brightnessHigh * $0 + brightnessLow * (1 - $0) }
        return rgb.map { min(max($0, 0), 1) * a } + [a]
    }
}
