import GeoCore
import MapRenderer
import MapStyle
import Platform

/// One image of a style's sprite, cut from its sheet: premultiplied pixels and how many of
/// them make one CSS pixel.
struct SpriteImage {
    let image: Pixmap
    let pixelRatio: Double
    /// A signed-distance-field icon: its alpha is the distance, recoloured by `icon-color`.
    var sdf = false
}

/// `background-pattern` and `fill-pattern`: sprite images repeated over the map as MapLibre
/// GL repeats them, anchored at the world's top-left corner in pixels of the integer zoom
/// below the camera's (so a pattern grows with the zoom's fraction), sampled bilinearly within
/// each repeat (edges extended), times the layer's opacity.
extension StylePainter {
    /// The sprite's images by name (prefixed `id:` for sprite arrays), loaded on first use at
    /// the camera's pixel ratio (`@2x` sheets above 1) or kept by the snapshot's
    /// ``StyleResources``; a sheet that does not load is warned about.
    mutating func spriteImage(_ name: String) -> SpriteImage? {
        if sprites == nil {
            let highResolution = camera.pixelRatio > 1
            let loaded: (images: [String: SpriteImage], warnings: [String]) = resources.sprites[highResolution] ?? {
                var images: [String: SpriteImage] = [:], problems: [String] = []
                for sheet in SpriteIndex.sheets(style.sprite) {
                    let jsonURL = SpriteIndex.url(sheet, pixelRatio: camera.pixelRatio, ext: "json")
                    do {
                        let json = try JSONValue(parsing: try load(jsonURL))
                        let png = try PNG.decode(try load(SpriteIndex.url(sheet, pixelRatio: camera.pixelRatio, ext: "png")))
                        let (entries, outside) = SpriteIndex.entries(json, prefix: sheet.prefix, sheetWidth: png.width, sheetHeight: png.height)
                        problems += outside.map { "sprite \(jsonURL): \($0)" }
                        for (name, e) in entries { images[name] = SpriteImage(image: try Self.crop(png, e), pixelRatio: e.pixelRatio, sdf: e.sdf) }
                    } catch {
                        problems.append("sprite \(sheet.url): \(error)")
                    }
                }
                return (images, problems)
            }()
            resources.sprites[highResolution] = loaded
            warnings += loaded.warnings
            sprites = loaded.images
        }
        return sprites?[name]
    }

    private static func crop(_ sheet: Pixmap, _ e: SpriteIndex.Entry) throws(RenderError) -> Pixmap {
        var out = try Pixmap(width: e.width, height: e.height)
        out.withUnsafeMutableBytes { dst in
            sheet.bytes.withUnsafeBufferPointer { src in
                for y in 0..<e.height {
                    let from = ((e.y + y) * sheet.width + e.x) * 4, to = y * e.width * 4
                    for i in 0..<(e.width * 4) { dst[to + i] = src[from + i] }
                }
            }
        }
        return out
    }

    /// The pattern a layer names, or nil with a warning when the sprite lacks it.
    mutating func pattern(_ layer: StyleLayer, _ property: String, _ f: RenderFeature? = nil) -> SpriteImage? {
        let name: String
        switch value(layer, property, f) {
        case .string(let s): name = s
        case .resolvedImage(let r): name = r.name
        default: return nil
        }
        if let image = spriteImage(name) { return image }
        warnings.append("layer \(layer.id): no sprite image \"\(name)\"")
        return nil
    }

    /// Composites `pattern` times `opacity` through `coverage` (`width` values a row, its
    /// first at pixel (x0, y0); the slice's indices from 0), inside the canvas clip.
    mutating func compositePattern(_ pattern: SpriteImage, opacity: Double, coverage: ArraySlice<Float>, x0: Int, y0: Int, width: Int) {
        guard opacity > 0, width > 0 else { return }
        let height = coverage.count / width
        let floorZoom = zoom.rounded(.down)
        // Pattern pixels per world unit, and the screen-to-world mapping.
        let tex = pattern.image, tw = tex.width, th = tex.height
        let worldPixels = 512 * pow(2, floorZoom) * pattern.pixelRatio
        let s = screen
        let clip = canvas.clip ?? (0, 0, canvas.width, canvas.height)
        let xa = max(x0, clip.minX, 0), xb = min(x0 + width, clip.maxX, canvas.width)
        let ya = max(y0, clip.minY, 0), yb = min(y0 + height, clip.maxY, canvas.height)
        guard xa < xb, ya < yb else { return }
        canvas.withPixmap { image in
            let w = image.width
            tex.bytes.withUnsafeBufferPointer { t in
                image.withUnsafeMutableBytes { px in
                    for y in ya..<yb {
                        for x in xa..<xb {
                            let cov = Double(coverage[(y - y0) * width + (x - x0)]) * opacity
                            guard cov > 0 else { continue }
                            // Texel coordinates within one repeat, half a texel back for linear
                            // filtering; the edges extend past the image (the atlas's padding).
                            let world = s.world(Double(x) + 0.5, Double(y) + 0.5)
                            var u = world.x * worldPixels, v = world.y * worldPixels
                            u -= (u / Double(tw)).rounded(.down) * Double(tw) + 0.5
                            v -= (v / Double(th)).rounded(.down) * Double(th) + 0.5
                            let iu = max(0, min(Int(u.rounded(.down)), tw - 1)), iv = max(0, min(Int(v.rounded(.down)), th - 1))
                            let fu = max(0, min(1, u - Double(iu))), fv = max(0, min(1, v - Double(iv)))
                            let iu1 = min(iu + 1, tw - 1), iv1 = min(iv + 1, th - 1)
                            let p00 = (iv * tw + iu) * 4, p10 = (iv * tw + iu1) * 4, p01 = (iv1 * tw + iu) * 4, p11 = (iv1 * tw + iu1) * 4
                            let w00 = (1 - fu) * (1 - fv), w10 = fu * (1 - fv), w01 = (1 - fu) * fv, w11 = fu * fv
                            let i = (y * w + x) * 4
                            let a = (Double(t[p00 + 3]) * w00 + Double(t[p10 + 3]) * w10 + Double(t[p01 + 3]) * w01 + Double(t[p11 + 3]) * w11) * cov
                            let keep = 1 - a / 255
                            for c in 0..<4 {
                                let src = (Double(t[p00 + c]) * w00 + Double(t[p10 + c]) * w10 + Double(t[p01 + c]) * w01 + Double(t[p11 + c]) * w11) * cov
                                px[i + c] = UInt8(min(255, max(0, (src + Double(px[i + c]) * keep).rounded())))
                            }
                        }
                    }
                }
            }
        }
    }

    /// A background pattern over the whole image.
    mutating func drawBackgroundPattern(_ pattern: SpriteImage, opacity: Double) {
        let coverage = [Float](repeating: 1, count: canvas.width * canvas.height)
        compositePattern(pattern, opacity: opacity, coverage: coverage[...], x0: 0, y0: 0, width: canvas.width)
    }

    /// A polygon filled with a pattern: its pixels found as the aliased fill finds them
    /// (MapLibre fills triangles without antialiasing), within its bounds on screen.
    mutating func drawFillPattern(_ pattern: SpriteImage, rings: [[Point]], opacity: Double) {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for r in rings { for p in r { minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y) } }
        // No point: every ring lay beyond the near limit of a tilted camera (``ScreenTransform/ring(_:moved:)``).
        guard minX <= maxX, minY <= maxY else { return }
        let x0 = max(0, Int(minX.rounded(.down))), y0 = max(0, Int(minY.rounded(.down)))
        let x1 = min(canvas.width, Int(maxX.rounded(.up)) + 1), y1 = min(canvas.height, Int(maxY.rounded(.up)) + 1)
        guard x0 < x1, y0 < y1, var scratch = try? Canvas(width: x1 - x0, height: y1 - y0, background: .transparent) else { return }
        var path = Path()
        for r in rings where r.count >= 3 {
            path.append(Path(polyline: r.map { Point(x: $0.x - Double(x0), y: $0.y - Double(y0)) }, closed: true))
        }
        scratch.aliased = true
        scratch.fill(path, color: Color(red: 255, green: 255, blue: 255, alpha: 255), rule: .evenOdd)
        let coverage = scratch.pixmap.bytes.withUnsafeBufferPointer { b in (0..<(b.count / 4)).map { Float(b[$0 * 4 + 3]) / 255 } }
        compositePattern(pattern, opacity: opacity, coverage: coverage[...], x0: x0, y0: y0, width: x1 - x0)
    }
}
