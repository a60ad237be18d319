import MapRenderer

/// A line mesh (``LineMesh``) filled as MapLibre GL's `line` and `line_sdf` shaders fill it:
/// each pixel whose centre falls in a triangle gets the line colour times an alpha from its
/// distance to the line's middle (antialiased over `1 + blur` device pixels at both edges,
/// the inside edge only when there is a gap), times the dash pattern's coverage; triangles
/// blend one after another, as GL blends them. All lengths are device pixels.
struct LineShading {
    /// Premultiplied RGBA, 0 … 1, opacity applied.
    var color: (Double, Double, Double, Double)
    /// Outer and inner half widths with their antialiasing margins (the shader's `v_width2`).
    var outset: Double, inset: Double
    /// Blur plus one pixel of antialiasing.
    var blur: Double
    /// `line-offset`, positive to the right of the line's direction.
    var offset: Double
    /// The dash pattern in line widths (MapLibre's odd-length patterns join their first and
    /// last dash), empty for a solid line.
    var dashes: [Double] = []
    /// Device pixels per dash unit along the line (floor-zoom width · pixel ratio · zoom scale).
    var dashScale = 1.0
    /// The dash signed-distance field's smoothing half width in field units (`u_sdfgamma / floorwidth`).
    var dashGamma = 0.0
    /// Round-capped dashes (the 2-D distance field).
    var roundDashes = false
    /// A `line-pattern` image drawn instead of the colour (whose alpha is then the opacity):
    /// repeated every ``patternLength`` pixels along the line, its middle row on the line's
    /// middle, one image pixel per ``patternPixel`` device pixels across.
    var pattern: SpriteImage? = nil
    var patternLength = 1.0
    var patternPixel = 1.0
    /// Two CSS pixels in device pixels (the margin the pattern may show beyond its height).
    var patternPad = 2.0
    /// Under a tilted camera, the view the mesh (drawn on the ground, `groundCenter` the
    /// image's centre on it) is seen through: the antialiasing and blur widen by how much
    /// the tilt shrinks each vertex's extrusion on the image, so an edge still fades over
    /// about one image pixel (the `line` shaders' `v_gamma_scale`).
    var perspective: Perspective? = nil
    var groundCenter = Point(x: 0, y: 0)

    /// MapLibre's shader parameters for a line `width` wide with `gap` between two halves.
    init(color: (Double, Double, Double, Double), width: Double, gap: Double, blur: Double, offset: Double) {
        self.color = color
        let g = gap / 2, half = width / 2, aa = 0.5
        inset = g + (g > 0 ? aa : 0)
        outset = g + half * (g > 0 ? 2 : 1) + (half == 0 ? 0 : aa)
        self.blur = blur + 1
        self.offset = offset
    }

    /// Fills the mesh into `image`, only inside `clip` (device pixels, max exclusive).
    func fill(_ mesh: LineMesh, into image: inout Pixmap, clip: (minX: Int, minY: Int, maxX: Int, maxY: Int)) {
        let n = mesh.vertices.count
        guard n >= 3, !mesh.triangles.isEmpty else { return }
        // Screen positions and varyings per vertex, together: a triangle reads its three
        // vertices' from one place each, without a bounds check per value.
        var shaded = [Shaded]()
        shaded.reserveCapacity(n)
        for v in mesh.vertices {
            let side: Double = v.up ? 1 : -1
            let u = 0.5 * v.direction, t = 1 - abs(u)
            let ox = -offset * v.ex * side, oy = -offset * v.ey * side
            var s = Shaded(x: v.x + ox * t - oy * u + v.ex * outset, y: v.y + ox * u + oy * t + v.ey * outset,
                           nx: v.round ? 1 : 0, ny: side, dist: v.distance, gamma: 1)
            if let perspective {
                let ex = v.ex * outset, ey = v.ey * outset
                let a = perspective.project(s.x - ex - groundCenter.x, s.y - ey - groundCenter.y)
                let b = perspective.project(s.x - groundCenter.x, s.y - groundCenter.y)
                let onImage = (b - a).length
                if onImage > 1e-9 { s.gamma = (ex * ex + ey * ey).squareRoot() / onImage }
            }
            shaded.append(s)
        }
        let w = image.width
        let dashed = !dashes.isEmpty
        let tex = pattern?.image, tw = tex?.width ?? 1, th = tex?.height ?? 1
        // Across the line the pattern shows at most its own height plus a pixel each side.
        let across = pattern.map { _ in min(outset, (Double(th) * patternPixel + patternPad) / 2) / (Double(th) * patternPixel) } ?? 0
        let t = tex?.bytes ?? [0, 0, 0, 0]
        // A pixel at full coverage of an opaque colour takes the colour's bytes (what the blend
        // below gives when nothing of the pixel is kept).
        let solid: (UInt8, UInt8, UInt8, UInt8)? = color.3 == 1 && !dashed && tex == nil
            ? (Self.byte(color.0 * 255), Self.byte(color.1 * 255), Self.byte(color.2 * 255), Self.byte(color.3 * 255)) : nil
        // Every index was made for this mesh's vertices (``LineMesh``): checked once here.
        precondition(mesh.triangles.allSatisfy { $0 >= 0 && Int($0) < n }, "line mesh triangle index out of range")
        image.withUnsafeMutableBytes { bytes in
            shaded.withUnsafeBufferPointer { vertex in
                mesh.triangles.withUnsafeBufferPointer { triangles in
                    var k = 0
                    while k + 2 < triangles.count {
                        var a = Int(triangles[k]), b = Int(triangles[k + 1]), c = Int(triangles[k + 2])
                        k += 3
                        var va = vertex[a], vb = vertex[b], vc = vertex[c]
                        var area = (vb.x - va.x) * (vc.y - va.y) - (vb.y - va.y) * (vc.x - va.x)
                        if abs(area) < 1e-12 { continue }
                        if area < 0 { swap(&b, &c); swap(&vb, &vc); area = -area }
                        // The triangle's vertices and varyings, read once.
                        let ax = va.x, ay = va.y, bx = vb.x, by = vb.y, cx = vc.x, cy = vc.y
                        let nxa = va.nx, nxb = vb.nx, nxc = vc.nx, nya = va.ny, nyb = vb.ny, nyc = vc.ny
                        let ga = va.gamma, gb = vb.gamma, gc = vc.gamma, da = va.dist, db = vb.dist, dc = vc.dist
                        // Without a round vertex the varying's x is 0: the distance is |y| · outset.
                        let straight = nxa == 0 && nxb == 0 && nxc == 0
                        let x0 = max(clip.minX, Self.ceil(min(ax, bx, cx) - 0.5))
                        let x1 = min(clip.maxX - 1, Self.floor(max(ax, bx, cx) - 0.5))
                        let y0 = max(clip.minY, Self.ceil(min(ay, by, cy) - 0.5))
                        let y1 = min(clip.maxY - 1, Self.floor(max(ay, by, cy) - 0.5))
                        guard x0 <= x1, y0 <= y1 else { continue }
                        // Edge functions, and whether a pixel centre exactly on an edge counts (a rule
                        // that gives a shared edge to exactly one of its two triangles).
                        let ab = (dx: bx - ax, dy: by - ay), bc = (dx: cx - bx, dy: cy - by), ca = (dx: ax - cx, dy: ay - cy)
                        let tlAB = ab.dy > 0 || (ab.dy == 0 && ab.dx < 0), tlBC = bc.dy > 0 || (bc.dy == 0 && bc.dx < 0), tlCA = ca.dy > 0 || (ca.dy == 0 && ca.dx < 0)
                        let inv = 1 / area
                        // Each varying is linear across the triangle: worked out from the barycentric
                        // weights at a row's first pixel, then stepped by its change per pixel (the
                        // weights' x-derivatives are −bc.dy, −ca.dy, −ab.dy over twice the area).
                        // Only positions relative to the vertices enter, so a triangle shades the same
                        // wherever on the image it lies (a tile is the same in any metatile).
                        func slope(_ fa: Double, _ fb: Double, _ fc: Double) -> Double { -(fa * bc.dy + fb * ca.dy + fc * ab.dy) * inv }
                        let vySlope = slope(nya, nyb, nyc), vxSlope = slope(nxa, nxb, nxc), distSlope = slope(da, db, dc)
                        // Looking straight down every vertex's gamma is 1: the blur is the same everywhere.
                        let flatBlur = perspective == nil
                        let blurSlope = flatBlur ? 0 : self.blur * slope(ga, gb, gc)
                        // The three edges' x per unit of y, for the rows' spans.
                        let abRun = ab.dy == 0 ? 0 : ab.dx / ab.dy, bcRun = bc.dy == 0 ? 0 : bc.dx / bc.dy, caRun = ca.dy == 0 ? 0 : ca.dx / ca.dy
                        for y in y0...y1 {
                            let sy = Double(y) + 0.5
                            // The row's span within the triangle, so long thin triangles cost their
                            // area, not their bounds: the pixels whose centres lie in it, give or take
                            // ``spanSlack`` (far more than the rounding of the span or of the edge tests
                            // below, which decide).
                            var lo = Double.infinity, hi = -Double.infinity
                            Self.span(ax, ay, bx, by, abRun, sy, &lo, &hi)
                            Self.span(bx, by, cx, cy, bcRun, sy, &lo, &hi)
                            Self.span(cx, cy, ax, ay, caRun, sy, &lo, &hi)
                            guard lo <= hi else { continue }
                            let xa = max(x0, Self.ceil(lo - 0.5 - Self.spanSlack)), xb = min(x1, Self.floor(hi - 0.5 + Self.spanSlack))
                            guard xa <= xb else { continue }
                            let rowA = bc.dx * (sy - by), rowB = ca.dx * (sy - cy), rowC = ab.dx * (sy - ay)
                            // Whether the pixel centre at column x is in the triangle. Each edge
                            // function is monotone in x as computed (every rounded operation is), so
                            // the pixels that pass form one run: found from the row's ends, the pixels
                            // between are shaded without the test.
                            func inside(_ x: Int) -> Bool {
                                let sx = Double(x) + 0.5
                                let wa = rowA - bc.dy * (sx - bx)
                                let wb = rowB - ca.dy * (sx - cx)
                                let wc = rowC - ab.dy * (sx - ax)
                                return (wa > 0 || (wa == 0 && tlBC)) && (wb > 0 || (wb == 0 && tlCA)) && (wc > 0 || (wc == 0 && tlAB))
                            }
                            var runStart = xa
                            while runStart <= xb, !inside(runStart) { runStart += 1 }
                            guard runStart <= xb else { continue }
                            var runEnd = xb
                            while runEnd > runStart, !inside(runEnd) { runEnd -= 1 }
                            // The varyings at the row's first pixel.
                            let first = Double(xa) + 0.5
                            let ka = (rowA - bc.dy * (first - bx)) * inv, kb = (rowB - ca.dy * (first - cx)) * inv, kc = (rowC - ab.dy * (first - ax)) * inv
                            let vyRow = ka * nya + kb * nyb + kc * nyc, vxRow = ka * nxa + kb * nxb + kc * nxc
                            let distRow = ka * da + kb * db + kc * dc
                            let blurRow = flatBlur ? self.blur : self.blur * (ka * ga + kb * gb + kc * gc)
                            for x in runStart...runEnd {
                                let step = Double(x - xa)
                                let vy = vyRow + vySlope * step
                                let d: Double
                                if straight {
                                    d = abs(vy) * outset
                                } else {
                                    let vx = vxRow + vxSlope * step
                                    d = (vx * vx + vy * vy).squareRoot() * outset
                                }
                                let blur = blurRow + blurSlope * step
                                let edge = min(d - (inset - blur), outset - d)
                                let i = (y * w + x) * 4
                                // `blur` is positive: the alpha below is 1 or more exactly when `edge` ≥ `blur`.
                                if edge >= blur, let solid {
                                    bytes[i] = solid.0; bytes[i + 1] = solid.1; bytes[i + 2] = solid.2; bytes[i + 3] = solid.3
                                    continue
                                }
                                var alpha = edge / blur
                                if alpha <= 0 { continue }
                                if alpha > 1 { alpha = 1 }
                                if dashed {
                                    alpha *= dashCoverage(distRow + distSlope * step, vy)
                                    if alpha <= 0 { continue }
                                }
                                if tex != nil {
                                    // The pattern's texel, bilinear within one repeat (edges extended, as
                                    // the atlas pads images), half a texel back.
                                    var along = (distRow + distSlope * step) / patternLength
                                    along -= along.rounded(.down)
                                    let u = along * Double(tw) - 0.5, v = (0.5 + vy * across) * Double(th) - 0.5
                                    let iu = max(0, min(Int(u.rounded(.down)), tw - 1)), iv = max(0, min(Int(v.rounded(.down)), th - 1))
                                    let fu = max(0, min(1, u - Double(iu))), fv = max(0, min(1, v - Double(iv)))
                                    let iu1 = min(iu + 1, tw - 1), iv1 = min(iv + 1, th - 1)
                                    let p00 = (iv * tw + iu) * 4, p10 = (iv * tw + iu1) * 4, p01 = (iv1 * tw + iu) * 4, p11 = (iv1 * tw + iu1) * 4
                                    let w00 = (1 - fu) * (1 - fv), w10 = fu * (1 - fv), w01 = (1 - fu) * fv, w11 = fu * fv
                                    let k = alpha * color.3 / 255
                                    let sa = (Double(t[p00 + 3]) * w00 + Double(t[p10 + 3]) * w10 + Double(t[p01 + 3]) * w01 + Double(t[p11 + 3]) * w11) * k
                                    let keep = 1 - sa
                                    for ch in 0..<4 {
                                        let src = (Double(t[p00 + ch]) * w00 + Double(t[p10 + ch]) * w10 + Double(t[p01 + ch]) * w01 + Double(t[p11 + ch]) * w11) * k
                                        bytes[i + ch] = Self.byte(src * 255 + Double(bytes[i + ch]) * keep)
                                    }
                                    continue
                                }
                                blend(alpha, at: i, in: bytes)
                            }
                        }
                    }
                }
            }
        }
    }

    /// A vertex as the shader sees it: its place on the image (extruded and offset, device
    /// pixels), its varyings (1 at a round join or cap, the side ±1, the distance along the
    /// line) and how much the tilt widens its antialiasing (1 looking straight down).
    private struct Shaded {
        var x: Double, y: Double, nx: Double, ny: Double, dist: Double, gamma: Double
    }

    /// Widens `lo … hi` by where the edge (x0, y0)–(x1, y1) crosses the row at `y`.
    /// `run` is the edge's x per unit of y (unused when it is horizontal).
    @inline(__always) static func span(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ run: Double, _ y: Double, _ lo: inout Double, _ hi: inout Double) {
        guard (y0 - y) * (y1 - y) <= 0 else { return }
        if y0 == y1 {
            lo = min(lo, x0, x1); hi = max(hi, x0, x1)
        } else {
            let x = x0 + (y - y0) * run
            lo = min(lo, x); hi = max(hi, x)
        }
    }

    /// How far past a row's computed span pixel centres are still tested, pixels.
    static let spanSlack = 1e-3

    /// ⌊v⌋ and ⌈v⌉ as integers, for |v| < 2⁶³ (by truncation, without libm's `floor`/`ceil`).
    @inline(__always) static func floor(_ v: Double) -> Int {
        let t = Int(v)
        return Double(t) > v ? t - 1 : t
    }
    @inline(__always) static func ceil(_ v: Double) -> Int {
        let t = Int(v)
        return Double(t) < v ? t + 1 : t
    }

    /// `v` rounded half away from zero into 0 … 255 (as `v.rounded()` clamped, without
    /// libm's `round`: the whole part by truncation, then the fraction compared with ½).
    @inline(__always) static func byte(_ v: Double) -> UInt8 {
        let c = min(255, max(0, v))
        let whole = UInt8(c)
        return c - Double(whole) >= 0.5 ? whole + 1 : whole
    }

    /// `v` (0 or more, finite) rounded to the nearest byte, ties to even, at most 255: the
    /// float unit's own rounding when 2⁵² is added (the sum's low bits are the integer), with
    /// no clamping below, conversion check or comparison per channel. Differs from ``byte(_:)``
    /// only on exact halves, by one.
    @inline(__always) static func nearByte(_ v: Double) -> UInt8 {
        UInt8(truncatingIfNeeded: (min(255, v) + 4_503_599_627_370_496).bitPattern)
    }

    /// The colour at `alpha` (0 … 1) blended over the pixel at byte `i` of `bytes`, as GL
    /// blends premultiplied colour (`ONE, ONE_MINUS_SRC_ALPHA`).
    @inline(__always) func blend(_ alpha: Double, at i: Int, in bytes: UnsafeMutableBufferPointer<UInt8>) {
        let keep = 1 - color.3 * alpha, a255 = alpha * 255
        bytes[i] = Self.nearByte(color.0 * a255 + Double(bytes[i]) * keep)
        bytes[i + 1] = Self.nearByte(color.1 * a255 + Double(bytes[i + 1]) * keep)
        bytes[i + 2] = Self.nearByte(color.2 * a255 + Double(bytes[i + 2]) * keep)
        bytes[i + 3] = Self.nearByte(color.3 * a255 + Double(bytes[i + 3]) * keep)
    }

    /// The share of a pixel `along` pixels down the line, at `across` (−1 … 1 from one edge
    /// to the other) that the dash pattern covers, as MapLibre samples its 256-texel dash
    /// distance field: signed distance to the nearest dash end in texels (round dashes: to the
    /// dash's end circle), smoothed over ``dashGamma``.
    private func dashCoverage(_ along: Double, _ across: Double) -> Double {
        let total = dashes.reduce(0, +)
        let stretch = 256 / total
        // Linear filtering samples half a texel back.
        var texel = (along / dashScale) * stretch - 0.5
        texel -= (texel / 256).rounded(.down) * 256
        let pos = texel / stretch
        let odd = dashes.count % 2 == 1
        var left = 0.0, right = dashes[0], part = 0
        while right < pos && part + 1 < dashes.count {
            part += 1
            left = right
            right += dashes[part]
        }
        if odd && part == 0 { left = -dashes[dashes.count - 1] }
        if odd && part == dashes.count - 1 { right += dashes[0] }
        let inside = part % 2 == 0
        let dist = min(abs(texel - left * stretch), abs(texel - right * stretch))
        var signed: Double
        if roundDashes {
            let halfWidth = stretch / 2
            let row = min(7, max(-7, across * 7.5))
            let middle = row / 7 * (halfWidth + 1)
            if inside {
                let edge = halfWidth - abs(middle)
                signed = (dist * dist + edge * edge).squareRoot()
            } else {
                signed = halfWidth - (dist * dist + middle * middle).squareRoot()
            }
        } else {
            signed = inside ? dist : -dist
        }
        let v = min(255, max(0, signed + 128)) / 255
        return StylePainter.smoothstep(0.5 - dashGamma, 0.5 + dashGamma, v)
    }
}
