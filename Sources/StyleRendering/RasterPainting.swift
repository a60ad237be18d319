import GeoCore
import MapRenderer
import MapStyle
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Raster layers: each tile's image resampled onto the view and its colours adjusted as
/// MapLibre's raster shader adjusts them (hue rotation, saturation, contrast, brightness range,
/// opacity; `raster.fragment.glsl`).
extension StylePainter {
    mutating func drawRaster(_ layer: StyleLayer) {
        guard let name = layer.source, let source = style.sources[name] else { return }
        guard source.type == "raster" else {
            warnings.append("layer \(layer.id): \(source.type) sources are not drawn by raster layers")
            return
        }
        let tiles = rasterTiles(name, source)
        let opacity = number(layer, "raster-opacity")
        guard opacity > 0 else { return }
        let adjust = RasterAdjustment(hueRotate: number(layer, "raster-hue-rotate"), saturation: number(layer, "raster-saturation"),
                                      contrast: number(layer, "raster-contrast"), brightnessMin: number(layer, "raster-brightness-min"),
                                      brightnessMax: number(layer, "raster-brightness-max"), opacity: opacity)
        let nearest = value(layer, "raster-resampling").stringValue == "nearest"
        let screen = self.screen
        canvas.withPixmap { image in
            for (t, tile) in tiles { Self.draw(tile, t, into: &image, screen: screen, adjust: adjust, nearest: nearest) }
        }
    }

    private static func draw(_ tile: Pixmap, _ t: CanonicalTile, into image: inout Pixmap, screen: ScreenTransform,
                             adjust: RasterAdjustment, nearest: Bool) {
        let n = Double(1 << t.z)
        let corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].map { screen.point((Double(t.x) + $0.0) / n, (Double(t.y) + $0.1) / n) }
        let x0 = max(0, Int(corners.map(\.x).min()!.rounded(.down))), x1 = min(image.width - 1, Int(corners.map(\.x).max()!.rounded(.up)))
        let y0 = max(0, Int(corners.map(\.y).min()!.rounded(.down))), y1 = min(image.height - 1, Int(corners.map(\.y).max()!.rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        let tw = tile.width, th = tile.height
        let src = tile.bytes
        let w = image.width
        image.withUnsafeMutableBytes { px in
            for y in y0...y1 {
                for x in x0...x1 {
                    // The pixel centre back in the world, then in the tile's pixels.
                    let sx = Double(x) + 0.5 - screen.halfWidth, sy = Double(y) + 0.5 - screen.halfHeight
                    let dx = sx * screen.cosB - sy * screen.sinB, dy = sx * screen.sinB + sy * screen.cosB
                    let u = ((screen.centerX + dx / screen.scale) * n - Double(t.x)), v = ((screen.centerY + dy / screen.scale) * n - Double(t.y))
                    guard u >= 0, u < 1, v >= 0, v < 1 else { continue }
                    let fx = u * Double(tw) - 0.5, fy = v * Double(th) - 0.5
                    var c = [0.0, 0.0, 0.0, 0.0]
                    if nearest {
                        let i = (min(th - 1, max(0, Int(fy + 0.5))) * tw + min(tw - 1, max(0, Int(fx + 0.5)))) * 4
                        for ch in 0..<4 { c[ch] = Double(src[i + ch]) / 255 }
                    } else {
                        let ix = Int(fx.rounded(.down)), iy = Int(fy.rounded(.down))
                        let ax = fx - Double(ix), ay = fy - Double(iy)
                        for (ox, oy, wgt) in [(0, 0, (1 - ax) * (1 - ay)), (1, 0, ax * (1 - ay)), (0, 1, (1 - ax) * ay), (1, 1, ax * ay)] where wgt > 0 {
                            let i = (min(th - 1, max(0, iy + oy)) * tw + min(tw - 1, max(0, ix + ox))) * 4
                            for ch in 0..<4 { c[ch] += Double(src[i + ch]) / 255 * wgt }
                        }
                    }
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
