import MapRenderer
import MapStyle
import Platform

/// `fill-extrusion` layers as MapLibre GL draws them: each polygon stands from
/// `fill-extrusion-base` to `fill-extrusion-height` (metres, in the pixels a metre spans at the
/// camera's latitude) as a roof and a wall per ring edge, seen through the camera's
/// ``Perspective``, nearest face in front per pixel (a depth test at pixel centres, without
/// antialiasing), lit as its `fill_extrusion` shader lights them with the spec's default light
/// (anchor viewport, position [1.15, 210, 30], white, intensity 0.5); the whole layer then
/// composited with `fill-extrusion-opacity`.
extension StylePainter {
    /// The Earth's radius a metre of height is measured with, metres: WGS 84's equatorial
    /// radius, as in the render suite's reference images (GL JS's `pixelsPerMeter`; with
    /// today's 6,371,008.8 m mean radius fill-extrusion-translate/default is a row off).
    static let earthRadius = 6_378_137.0

    mutating func drawExtrusions(_ layer: StyleLayer) {
        let width = canvas.width, height = canvas.height
        var buffer = ExtrusionBuffer(width: width, height: height)
        let view = screen.perspective ?? Perspective(pitch: 0, imageHeight: camera.pixelHeight)
        let metre = screen.scale / (2 * .pi * Self.earthRadius * cos(camera.latitude.clamped(-85.051129, 85.051129) * .pi / 180))
        var opacity = 1.0
        for (tile, group) in features(of: layer) {
            let matching = group.filter(passesFilter(of: layer))
            let center = screen.centerX
            for wrap in tile == nil ? worldCopies() : [0] {
                screen.centerX = center - Double(wrap)
                for f in matching where f.kind == .polygon {
                    opacity = number(layer, "fill-extrusion-opacity", f).clamped(0, 1)
                    let top = max(0, number(layer, "fill-extrusion-height", f)), base = max(0, number(layer, "fill-extrusion-base", f))
                    let shading = ExtrusionShading(color: color(layer, "fill-extrusion-color", f), base: base, height: top,
                                                   verticalGradient: value(layer, "fill-extrusion-vertical-gradient", f) != .boolean(false))
                    let shift = translation(layer, "fill-extrusion", f)
                    for polygon in f.polygons {
                        let rings = polygon.map { ring in ring.map { p -> Point in let g = screen.groundOffset(p.x, p.y); return Point(x: g.x + shift.x, y: g.y + shift.y) } }
                        let roof = rings.map { $0.map { view.project($0.x, $0.y, top * metre) } }
                        buffer.fill(roof, view: view, normal: (0, 0, 1), top * metre) { _ in shading.roof }
                        for (r, ring) in rings.enumerated() where ring.count >= 2 {
                            for i in 1..<ring.count {
                                let a = ring[i - 1], b = ring[i]
                                if let t = f.tile, Self.onTileBoundary(polygon[r][i - 1], polygon[r][i], t) { continue }
                                // MapLibre's wall normal: the edge (previous → current point) turned a quarter.
                                let e = Point(x: b.x - a.x, y: b.y - a.y), l = (e.x * e.x + e.y * e.y).squareRoot()
                                guard l > 0 else { continue }
                                let n = (-e.y / l, e.x / l, 0.0)
                                let quad = [[view.project(a.x, a.y, base * metre), view.project(b.x, b.y, base * metre),
                                             view.project(b.x, b.y, top * metre), view.project(a.x, a.y, top * metre)]]
                                let wall = shading.wall(normal: (n.0, n.1))
                                let span = max(1e-9, (top - base) * metre)
                                buffer.fill(quad, view: view, normal: n, n.0 * a.x + n.1 * a.y) { z in
                                    let t = ((z - base * metre) / span).clamped(0, 1)
                                    return (wall.bottom.0 + (wall.top.0 - wall.bottom.0) * t, wall.bottom.1 + (wall.top.1 - wall.bottom.1) * t,
                                            wall.bottom.2 + (wall.top.2 - wall.bottom.2) * t)
                                }
                            }
                        }
                    }
                }
            }
            screen.centerX = center
        }
        buffer.composite(onto: &canvas, opacity: opacity)
    }

    /// Whether an edge runs along a tile's buffer outside its square (MapLibre's
    /// `isBoundaryEdge`: a cut, not a wall), in the tile's 8192 units.
    static func onTileBoundary(_ a: WorldPoint, _ b: WorldPoint, _ t: CanonicalTile) -> Bool {
        let n = Double(1 << t.z)
        func unit(_ v: Double, _ o: Int) -> Double { ((v * n - Double(o)) * 8192).rounded() }
        let ax = unit(a.x, t.x), bx = unit(b.x, t.x), ay = unit(a.y, t.y), by = unit(b.y, t.y)
        return (ax == bx && (ax < 0 || ax > 8192)) || (ay == by && (ay < 0 || ay > 8192))
    }
}

/// The colours of one extrusion's faces by MapLibre's `fill_extrusion` vertex shader: relative
/// luminance, 0.03 of ambient light, the light's direction against the face's normal, and on
/// walls a vertical gradient from base to top. RGB 0 … 1, premultiplied by the colour's alpha.
struct ExtrusionShading {
    /// The default light: `sphericalToCartesian([1.15, 210 + 90 °, 30 °])`, in viewport axes.
    static let light = (1.15 * cos(300 * Double.pi / 180) * sin(Double.pi / 6), 1.15 * sin(300 * Double.pi / 180) * sin(Double.pi / 6), 1.15 * cos(Double.pi / 6))
    static let intensity = 0.5
    let color: (Double, Double, Double)
    let luminance: Double
    let base: Double, height: Double
    let verticalGradient: Bool

    init(color c: StyleColor, base: Double, height: Double, verticalGradient: Bool) {
        let p = c.premultiplied
        luminance = p[0] * 0.2126 + p[1] * 0.7152 + p[2] * 0.0722
        color = (p[0] + 0.03, p[1] + 0.03, p[2] + 0.03)
        self.base = base
        self.height = height
        self.verticalGradient = verticalGradient
    }

    private func lit(_ directional: Double) -> (Double, Double, Double) {
        (min(1, max(0, color.0 * directional)), min(1, max(0, color.1 * directional)), min(1, max(0, color.2 * directional)))
    }

    private func directional(_ n: (Double, Double, Double)) -> Double {
        let d = (n.0 * Self.light.0 + n.1 * Self.light.1 + n.2 * Self.light.2).clamped(0, 1)
        let lo = 1 - Self.intensity, hi = max(1 - luminance + Self.intensity, 1)
        return lo + (hi - lo) * d
    }

    var roof: (Double, Double, Double) { lit(directional((0, 0, 1))) }

    /// A wall's colours at its base and top; `normal` in the image's axes (the light's).
    func wall(normal n: (Double, Double)) -> (bottom: (Double, Double, Double), top: (Double, Double, Double)) {
        let d = directional((n.0, n.1, 0))
        guard verticalGradient else { return (lit(d), lit(d)) }
        let lo = 0.7 + (0.98 - 0.7) * (1 - Self.intensity), k = (height / 150).squareRoot()
        return (lit(d * (base * k).clamped(lo, 1)), lit(d * ((1 + base) * k).clamped(lo, 1)))
    }
}

/// The faces of one extrusion layer drawn so far: colour and the depth of the nearest face per pixel.
struct ExtrusionBuffer {
    let width: Int, height: Int
    var rgb: [Double]
    var depth: [Double]
    var covered: [Bool]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        rgb = [Double](repeating: 0, count: width * height * 3)
        depth = [Double](repeating: .infinity, count: width * height)
        covered = [Bool](repeating: false, count: width * height)
    }

    /// Draws the face bounded by `rings` (image offsets from its centre, device pixels, even–odd) lying in the plane
    /// n · P = c: each pixel whose centre is inside and whose ray meets the plane nearer than
    /// what is there takes `shade(height)`.
    mutating func fill(_ rings: [[Point]], view: Perspective, normal: (Double, Double, Double), _ c: Double,
                       shade: (Double) -> (Double, Double, Double)) {
        let cx = Double(width) / 2, cy = Double(height) / 2
        let rings = rings.map { $0.map { Point(x: $0.x + cx, y: $0.y + cy) } }
        var minY = Double.infinity, maxY = -Double.infinity
        for r in rings { for p in r { minY = min(minY, p.y); maxY = max(maxY, p.y) } }
        guard minY.isFinite else { return }
        let y0 = max(0, Int((minY - 0.5).rounded(.up))), y1 = min(height - 1, Int((maxY - 0.5).rounded(.down)))
        guard y0 <= y1 else { return }
        var xs: [Double] = []
        for y in y0...y1 {
            let sy = Double(y) + 0.5
            xs.removeAll(keepingCapacity: true)
            for r in rings where r.count >= 2 {
                for i in 0..<r.count {
                    let a = r[i], b = r[(i + 1) % r.count]
                    // Half-open in y so a vertex on the row counts once.
                    if (a.y <= sy) != (b.y <= sy) { xs.append(a.x + (sy - a.y) / (b.y - a.y) * (b.x - a.x)) }
                }
            }
            xs.sort()
            var k = 0
            while k + 1 < xs.count {
                let xa = max(0, Int((xs[k] - 0.5).rounded(.up))), xb = min(width - 1, Int((xs[k + 1] - 0.5).rounded(.up)) - 1)
                k += 2
                guard xa <= xb else { continue }
                for x in xa...xb {
                    guard let hit = view.hit(Double(x) + 0.5 - cx, sy - cy, normal: normal, c) else { continue }
                    let i = y * width + x
                    guard hit.depth < depth[i] else { continue }
                    depth[i] = hit.depth
                    covered[i] = true
                    let s = shade(hit.z)
                    rgb[i * 3] = s.0
                    rgb[i * 3 + 1] = s.1
                    rgb[i * 3 + 2] = s.2
                }
            }
        }
    }

    /// Composites the faces (opaque) times `opacity` over the canvas.
    func composite(onto canvas: inout Canvas, opacity: Double) {
        guard opacity > 0, covered.contains(true) else { return }
        canvas.withPixmap { image in
            image.withUnsafeMutableBytes { px in
                for i in 0..<(width * height) where covered[i] {
                    let keep = 1 - opacity
                    for ch in 0..<3 { px[i * 4 + ch] = UInt8(min(255, max(0, (rgb[i * 3 + ch] * opacity * 255 + Double(px[i * 4 + ch]) * keep).rounded()))) }
                    px[i * 4 + 3] = UInt8(min(255, max(0, (opacity * 255 + Double(px[i * 4 + 3]) * keep).rounded())))
                }
            }
        }
    }
}
