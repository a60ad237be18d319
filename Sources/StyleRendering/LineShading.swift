import MapRenderer

/// A line mesh (``LineMesh``) filled as MapLibre GL's `line` and `line_sdf` shaders fill it:
/// each pixel whose centre falls in a triangle gets the line colour times an alpha from its
/// distance to the line's middle (antialiased over `1 + blur` device pixels at both edges,
/// the inside edge only when there is a gap), times the dash pattern's coverage; triangles
/// blend one after another, as GL blends them. All lengths are device pixels. Under a tilted
/// camera the mesh lies on the ground and is drawn on the image through the tilt (see
/// ``perspective``).
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
    /// Under a tilted camera, the view the mesh is seen through: its points are ground
    /// offsets from the image's centre (seen from above), each extruded vertex is projected
    /// onto the image (`imageCenter` its centre) and the varyings are interpolated
    /// perspective-correctly, as GL rasterizes the line's triangles; the antialiasing and blur
    /// widen by how much the tilt shrinks each vertex's extrusion on the image, so an edge
    /// still fades over about one image pixel (the `line` shaders' `v_gamma_scale`).
    var perspective: Perspective? = nil
    var imageCenter = Point(x: 0, y: 0)
    /// Tilted, the tile's square on the ground (offsets from the image's centre) the mesh is
    /// drawn within: the pixels whose centres show it, as GL's stencil clips a tile.
    var groundClip: (minX: Double, minY: Double, maxX: Double, maxY: Double)? = nil

    /// Whether lines of this shading may be gathered with others into one mesh
    /// (``PendingLines``): not dashed, patterned or tilted.
    var joinable: Bool { dashes.isEmpty && pattern == nil && perspective == nil }

    /// The colour's RGBA bytes where it is opaque (what a pixel it fully covers becomes), else
    /// nil: one word, red in its lowest byte, for ``store(_:at:in:)``.
    var opaqueWord: UInt32? {
        color.3 == 1 ? UInt32(Self.byte(color.0 * 255)) | UInt32(Self.byte(color.1 * 255)) << 8
            | UInt32(Self.byte(color.2 * 255)) << 16 | UInt32(Self.byte(color.3 * 255)) << 24 : nil
    }

    /// Writes the RGBA bytes `word` (``opaqueWord``) to the pixel at byte `i` of `bytes`, red
    /// first, in one store. `i` is a pixel's first byte, inside the image.
    @inline(__always) static func store(_ word: UInt32, at i: Int, in bytes: UnsafeMutableBufferPointer<UInt8>) {
        UnsafeMutableRawPointer(bytes.baseAddress.unsafelyUnwrapped).storeBytes(of: word.littleEndian, toByteOffset: i, as: UInt32.self)
    }

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
                           nx: v.round ? 1 : 0, ny: side, dist: v.distance, gamma: 1, q: 1)
            if let perspective {
                // The extrusion as the vertex shader projects it: its direction through the
                // tilt's linear part, over the extruded vertex's w (which it leaves as is).
                let ex = v.ex * outset, ey = v.ey * outset
                let onImage = abs(perspective.scale(s.y)) * (ex * ex + ey * ey * perspective.cosP * perspective.cosP).squareRoot()
                if onImage > 1e-9 { s.gamma = (ex * ex + ey * ey).squareRoot() / onImage }
            }
            shaded.append(s)
        }
        // Tilted: triangles reaching nearer than ``Perspective/nearLimit`` clipped on the ground, then
        // every vertex projected, its varyings divided by w for perspective-correct interpolation.
        var triangleList = mesh.triangles
        if let perspective {
            let onGround = shaded
            triangleList = Self.clipNear(onGround, mesh.triangles, &shaded, below: perspective.nearLimit)
            for i in shaded.indices {
                var s = shaded[i]
                let q = perspective.scale(s.y), p = perspective.project(s.x, s.y)
                s.x = p.x + imageCenter.x; s.y = p.y + imageCenter.y
                s.nx *= q; s.ny *= q; s.dist *= q; s.gamma *= q; s.q = q
                shaded[i] = s
            }
        }
        let vertexCount = shaded.count
        let w = image.width
        let dashed = !dashes.isEmpty
        let tex = pattern?.image
        // Across the line the pattern's rows are one image pixel per ``patternPixel`` from its middle row.
        let texture = tex.map { PatternTexels(bytes: $0.bytes, width: $0.width, height: $0.height, across: outset / (Double($0.height) * patternPixel)) }
        // A pixel at full coverage of an opaque colour takes the colour's bytes (what the blend
        // below gives when nothing of the pixel is kept).
        let solid = !dashed && tex == nil ? opaqueWord : nil
        // Every index was made for this mesh's vertices (``LineMesh``) or the clipped ones: checked once here.
        precondition(triangleList.allSatisfy { $0 >= 0 && Int($0) < vertexCount }, "line mesh triangle index out of range")
        // Looking straight down every vertex's gamma and w are 1: the blur is the same
        // everywhere and the varyings need no division by the interpolated 1 / w.
        let flat = perspective == nil
        // Neither tilted, dashed nor patterned: the pixel loop's common kind (``StraightPixels``, ``RoundPixels``).
        let plainFlat = flat && !dashed && tex == nil
        // Tilted, the tile's square on the ground and the view it is seen through, read once.
        let ground: (clip: (minX: Double, minY: Double, maxX: Double, maxY: Double), view: Perspective)? =
            if let groundClip, let perspective { (groundClip, perspective) } else { nil }
        // The clip's first and last pixel columns and rows, as doubles.
        let clipMinX = Double(clip.minX), clipMaxX = Double(clip.maxX - 1), clipMinY = Double(clip.minY), clipMaxY = Double(clip.maxY - 1)
        image.withUnsafeMutableBytes { bytes in
            shaded.withUnsafeBufferPointer { vertex in
                triangleList.withUnsafeBufferPointer { triangles in
                    var k = 0
                    while k + 2 < triangles.count {
                        var a = Int(triangles[k]), b = Int(triangles[k + 1]), c = Int(triangles[k + 2])
                        k += 3
                        var va = vertex[a], vb = vertex[b], vc = vertex[c]
                        // A triangle wholly beyond a side of the clip (most of a mesh that runs
                        // off the image) is dropped before its set-up: these are the triangles
                        // whose columns or rows below would be empty for the clip alone (for a
                        // whole m, ⌊v⌋ < m exactly when v < m, and ⌈v⌉ > m when v > m).
                        if max(va.x, vb.x, vc.x) - 0.5 < clipMinX || min(va.x, vb.x, vc.x) - 0.5 > clipMaxX
                            || max(va.y, vb.y, vc.y) - 0.5 < clipMinY || min(va.y, vb.y, vc.y) - 0.5 > clipMaxY { continue }
                        var area = (vb.x - va.x) * (vc.y - va.y) - (vb.y - va.y) * (vc.x - va.x)
                        if abs(area) < 1e-12 { continue }
                        if area < 0 { swap(&b, &c); swap(&vb, &vc); area = -area }
                        // The triangle's vertices and varyings, read once.
                        let ax = va.x, ay = va.y, bx = vb.x, by = vb.y, cx = vc.x, cy = vc.y
                        let nxa = va.nx, nxb = vb.nx, nxc = vc.nx, nya = va.ny, nyb = vb.ny, nyc = vc.ny
                        let ga = va.gamma, gb = vb.gamma, gc = vc.gamma, da = va.dist, db = vb.dist, dc = vc.dist
                        let qa = va.q, qb = vb.q, qc = vc.q
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
                        // Each varying is linear across the triangle: its gradient comes from the
                        // barycentric weights' derivatives (−bc.dy, −ca.dy, −ab.dy along x and bc.dx,
                        // ca.dx, ab.dx along y, over twice the area). A row's first pixel takes the
                        // value at its centre from vertex a's, the pixels after it step along x. Only
                        // positions relative to the vertices enter, so a triangle shades the same
                        // wherever on the image it lies (a tile is the same in any metatile).
                        func gradient(_ fa: Double, _ fb: Double, _ fc: Double) -> (x: Double, y: Double) {
                            (-(fa * bc.dy + fb * ca.dy + fc * ab.dy) * inv, (fa * bc.dx + fb * ca.dx + fc * ab.dx) * inv)
                        }
                        let vyGradient = gradient(nya, nyb, nyc)
                        let vxGradient = straight ? (x: 0, y: 0) : gradient(nxa, nxb, nxc)
                        let distGradient = dashed || tex != nil ? gradient(da, db, dc) : (x: 0, y: 0)
                        let blurGradient = flat ? (x: 0, y: 0) : gradient(ga * self.blur, gb * self.blur, gc * self.blur)
                        let qGradient = flat ? (x: 0, y: 0) : gradient(qa, qb, qc)
                        // The varyings at vertex a and their gradients, for ``shade``.
                        let origin = Varyings(vy: nya, vx: nxa, dist: da, blur: flat ? self.blur : self.blur * ga, q: qa)
                        let alongX = Varyings(vy: vyGradient.x, vx: vxGradient.x, dist: distGradient.x, blur: blurGradient.x, q: qGradient.x)
                        let alongY = Varyings(vy: vyGradient.y, vx: vxGradient.y, dist: distGradient.y, blur: blurGradient.y, q: qGradient.y)
                        // The rows' spans by walking the edges, as the scanline polygon fill does
                        // (Foley, van Dam, Feiner & Hughes, Computer Graphics: Principles and Practice,
                        // 2nd ed., §3.6): with the corners sorted by y, a row crosses the long edge (top
                        // to bottom) and the short edge beside it (top to middle above the middle
                        // corner, middle to bottom from there). Each crossing is its edge's upper corner
                        // plus the edge's x per unit of y times the row's drop, not a running sum: the
                        // same whichever row the clip starts at.
                        let (top, mid, bottom) = Self.sortedByY((ax, ay), (bx, by), (cx, cy))
                        let longRun = (bottom.x - top.x) / (bottom.y - top.y)
                        let upperRun = mid.y == top.y ? 0 : (mid.x - top.x) / (mid.y - top.y)
                        let lowerRun = bottom.y == mid.y ? 0 : (bottom.x - mid.x) / (bottom.y - mid.y)
                        for y in y0...y1 {
                            let sy = Double(y) + 0.5
                            // The row's span within the triangle, so long thin triangles cost their
                            // area, not their bounds: the pixels whose centres lie in it, give or take
                            // ``spanSlack`` (far more than the rounding of the span or of the edge tests
                            // below, which decide at its ends).
                            let long = top.x + (sy - top.y) * longRun
                            let short = sy < mid.y ? top.x + (sy - top.y) * upperRun : mid.x + (sy - mid.y) * lowerRun
                            let lo = min(long, short), hi = max(long, short)
                            var xa = max(x0, Self.ceil(lo - 0.5 - Self.spanSlack)), xb = min(x1, Self.floor(hi - 0.5 + Self.spanSlack))
                            if let ground {
                                // The row's pixel centres whose ground lies in the tile: ground x is
                                // the offset from the centre column over the row's magnification.
                                let gy = ground.view.unproject(0, sy - imageCenter.y).y
                                guard gy >= ground.clip.minY, gy < ground.clip.maxY else { continue }
                                let k = ground.view.scale(gy)
                                xa = max(xa, Self.ceil(ground.clip.minX * k + imageCenter.x - 0.5))
                                xb = min(xb, Self.ceil(ground.clip.maxX * k + imageCenter.x - 0.5) - 1)
                            }
                            guard xa <= xb else { continue }
                            // Whether the pixel centre at column x is in the triangle. Each edge
                            // function is monotone in x as computed (every rounded operation is), so
                            // the pixels that pass form one run: found from the row's ends, the pixels
                            // between are shaded without the test. On a row strictly between the top
                            // and bottom corners, an end whose centre lies more than ``spanSlack``
                            // inside the span is inside all three edges (each edge's line crosses the
                            // row outside the span, and the tests' rounding moves a crossing by far
                            // less), so only ends near the span's are tested there. (A top or bottom
                            // row may run along a horizontal edge, where the top-left rule decides.)
                            let sureFrom = sy > top.y && sy < bottom.y ? lo + Self.spanSlack : .infinity, sureTo = hi - Self.spanSlack
                            func inside(_ x: Int) -> Bool {
                                let sx = Double(x) + 0.5
                                if sx > sureFrom && sx < sureTo { return true }
                                let wa = bc.dx * (sy - by) - bc.dy * (sx - bx)
                                let wb = ca.dx * (sy - cy) - ca.dy * (sx - cx)
                                let wc = ab.dx * (sy - ay) - ab.dy * (sx - ax)
                                return (wa > 0 || (wa == 0 && tlBC)) && (wb > 0 || (wb == 0 && tlCA)) && (wc > 0 || (wc == 0 && tlAB))
                            }
                            var runStart = xa
                            while runStart <= xb, !inside(runStart) { runStart += 1 }
                            guard runStart <= xb else { continue }
                            var runEnd = xb
                            while runEnd > runStart, !inside(runEnd) { runEnd -= 1 }
                            // The run's first pixel centre from vertex a.
                            let dx = Double(runStart) + 0.5 - ax, dy = sy - ay
                            // The row's first byte; x and y lie in the clip, inside the image, so the
                            // pixel offsets below are worked out without overflow checks.
                            let rowStart = y &* w &* 4
                            // The loop specialised for the common kinds of triangle, chosen here.
                            if !plainFlat {
                                shade(AnyPixels(flat: flat, straight: straight, dashed: dashed, patterned: tex != nil),
                                      runStart...runEnd, rowStart, (dx, dy), origin, alongX, alongY, solid, texture, bytes)
                            } else if straight {
                                shade(StraightPixels(), runStart...runEnd, rowStart, (dx, dy), origin, alongX, alongY, solid, texture, bytes)
                            } else {
                                shade(RoundPixels(), runStart...runEnd, rowStart, (dx, dy), origin, alongX, alongY, solid, texture, bytes)
                            }
                        }
                    }
                }
            }
        }
    }

    /// One row's run of pixels (`columns`, each centre inside the triangle) shaded: the
    /// varyings `origin` at vertex a, plus `alongX` and `alongY` per pixel across and down, give
    /// those at the first pixel's centre, `offset` (dx, dy) pixels from vertex a; `rowStart` is
    /// the row's first byte in `bytes`. Generic over the checks that hold for a whole triangle
    /// (``PixelKind``), so that the common kinds get a loop, and the varyings, without them.
    @inline(__always) private func shade<Kind: PixelKind>(
        _ kind: Kind, _ columns: ClosedRange<Int>, _ rowStart: Int, _ offset: (dx: Double, dy: Double),
        _ origin: Varyings, _ alongX: Varyings, _ alongY: Varyings,
        _ solid: UInt32?, _ texture: PatternTexels?, _ bytes: UnsafeMutableBufferPointer<UInt8>
    ) {
        let (dx, dy) = offset
        // The varyings at the run's first pixel (those the kind does not use are left 0);
        // looking straight down the blur and 1 / w are the same everywhere.
        let start = Varyings(vy: origin.vy + alongX.vy * dx + alongY.vy * dy,
                             vx: kind.straight ? 0 : origin.vx + alongX.vx * dx + alongY.vx * dy,
                             dist: kind.dashed || kind.patterned ? origin.dist + alongX.dist * dx + alongY.dist * dy : 0,
                             blur: kind.flat ? origin.blur : origin.blur + alongX.blur * dx + alongY.blur * dy,
                             q: kind.flat ? 1 : origin.q + alongX.q * dx + alongY.q * dy)
        let slope = alongX
        let runStart = columns.lowerBound
        for x in columns {
            let step = Double(x &- runStart)
            // Looking straight down the blur's slope is 0: the blur is the row's.
            var vy = start.vy + slope.vy * step, blur = kind.flat ? start.blur : start.blur + slope.blur * step
            // Tilted, the varyings over the interpolated 1 / w (times w at the pixel).
            var depth = 1.0
            if !kind.flat {
                depth = 1 / (start.q + slope.q * step)
                vy *= depth
                blur *= depth
            }
            let d: Double
            if kind.straight {
                d = abs(vy) * outset
            } else {
                let vx = (start.vx + slope.vx * step) * depth
                d = (vx * vx + vy * vy).squareRoot() * outset
            }
            let edge = min(d - (inset - blur), outset - d)
            let i = rowStart &+ x &* 4
            // `blur` is positive: the alpha below is 1 or more exactly when `edge` ≥ `blur`.
            if edge >= blur, let solid {
                Self.store(solid, at: i, in: bytes)
                continue
            }
            var alpha = edge / blur
            if alpha <= 0 { continue }
            if alpha > 1 { alpha = 1 }
            if kind.dashed {
                alpha *= dashCoverage((start.dist + slope.dist * step) * depth, vy)
                if alpha <= 0 { continue }
            }
            if kind.patterned, let texture {
                // The pattern's texel, bilinear, half a texel back, as GL samples the
                // atlas: the image with its wrapped padding, transparent beyond.
                let t = texture.bytes, tw = texture.width, th = texture.height
                var along = (start.dist + slope.dist * step) * depth / patternLength
                along -= along.rounded(.down)
                let u = along * Double(tw) - 0.5, v = (0.5 + vy * texture.across) * Double(th) - 0.5
                let iu = Int(u.rounded(.down)), iv = Int(v.rounded(.down))
                let fu = u - Double(iu), fv = v - Double(iv)
                var texel = (0.0, 0.0, 0.0, 0.0)
                func add(_ col: Int, _ row: Int, _ weight: Double) {
                    guard weight > 0, let p = Self.patternTexel(col, row, tw, th) else { return }
                    texel = (texel.0 + Double(t[p]) * weight, texel.1 + Double(t[p + 1]) * weight,
                             texel.2 + Double(t[p + 2]) * weight, texel.3 + Double(t[p + 3]) * weight)
                }
                add(iu, iv, (1 - fu) * (1 - fv)); add(iu + 1, iv, fu * (1 - fv))
                add(iu, iv + 1, (1 - fu) * fv); add(iu + 1, iv + 1, fu * fv)
                let k = alpha * color.3 / 255
                let keep = 1 - texel.3 * k
                bytes[i] = Self.byte(texel.0 * k * 255 + Double(bytes[i]) * keep)
                bytes[i + 1] = Self.byte(texel.1 * k * 255 + Double(bytes[i + 1]) * keep)
                bytes[i + 2] = Self.byte(texel.2 * k * 255 + Double(bytes[i + 2]) * keep)
                bytes[i + 3] = Self.byte(texel.3 * k * 255 + Double(bytes[i + 3]) * keep)
                continue
            }
            blend(alpha, at: i, in: bytes)
        }
    }

    /// The varyings the pixel loop interpolates (``Shaded``'s, blur in place of gamma): the
    /// side (−1 … 1 across), the round-join x, the distance along the line (device pixels),
    /// the antialiasing width (device pixels) and 1 / w.
    private struct Varyings {
        var vy: Double, vx: Double, dist: Double, blur: Double, q: Double
    }

    /// A `line-pattern` image as the pixel loop samples it: its RGBA bytes and size (image
    /// pixels), and its rows per unit of the side varying (``patternPixel`` applied).
    private struct PatternTexels {
        var bytes: [UInt8], width: Int, height: Int, across: Double
    }

    /// The checks of ``shade(_:_:_:_:_:_:_:_:)`` that hold for a whole triangle: looking
    /// straight down (no 1 / w), no round vertex (the distance is |side| · outset), dashed,
    /// patterned. The common kinds are types whose answers are constants, so the loop is
    /// specialised for them; ``AnyPixels`` answers at run time.
    private protocol PixelKind {
        var flat: Bool { get }
        var straight: Bool { get }
        var dashed: Bool { get }
        var patterned: Bool { get }
    }

    /// Looking straight down at a solid undashed line, no round vertex in the triangle.
    private struct StraightPixels: PixelKind {
        var flat: Bool { true }
        var straight: Bool { true }
        var dashed: Bool { false }
        var patterned: Bool { false }
    }

    /// Looking straight down at a solid undashed line, a round vertex in the triangle.
    private struct RoundPixels: PixelKind {
        var flat: Bool { true }
        var straight: Bool { false }
        var dashed: Bool { false }
        var patterned: Bool { false }
    }

    /// Any triangle: the checks answered at run time.
    private struct AnyPixels: PixelKind {
        var flat: Bool, straight: Bool, dashed: Bool, patterned: Bool
    }

    /// A vertex as the shader sees it: its place on the image (extruded and offset, device
    /// pixels), its varyings (1 at a round join or cap, the side ±1, the distance along the
    /// line), how much the tilt widens its antialiasing and its 1 / w (both 1 looking straight
    /// down; tilted, the varyings are divided by w).
    private struct Shaded {
        var x: Double, y: Double, nx: Double, ny: Double, dist: Double, gamma: Double, q: Double
    }

    /// The triangles of `triangles` (indices into `vertices`, on the ground) with the parts
    /// whose ground y exceeds `limit` cut off: whole triangles kept, those wholly beyond
    /// dropped, the others cut along y = `limit` into one or two triangles whose new vertices,
    /// their varyings interpolated along the cut edges, are appended to `out`.
    private static func clipNear(_ vertices: [Shaded], _ triangles: [Int32], _ out: inout [Shaded], below limit: Double) -> [Int32] {
        var kept: [Int32] = []
        kept.reserveCapacity(triangles.count)
        var k = 0
        while k + 2 < triangles.count {
            let corners = [triangles[k], triangles[k + 1], triangles[k + 2]]
            k += 3
            if !corners.contains(where: { vertices[Int($0)].y > limit }) { kept += corners; continue }
            if !corners.contains(where: { vertices[Int($0)].y <= limit }) { continue }
            // The polygon's corners within the limit, in order, with the cuts where edges cross it.
            var polygon: [Int32] = []
            Perspective.clipNear(count: 3, below: limit, y: { vertices[Int(corners[$0])].y }, corner: { polygon.append(corners[$0]) }, cut: { i, j, t in
                let va = vertices[Int(corners[i])], vb = vertices[Int(corners[j])]
                func mix(_ p: Double, _ q: Double) -> Double { p + (q - p) * t }
                out.append(Shaded(x: mix(va.x, vb.x), y: limit, nx: mix(va.nx, vb.nx), ny: mix(va.ny, vb.ny),
                                  dist: mix(va.dist, vb.dist), gamma: mix(va.gamma, vb.gamma), q: 1))
                polygon.append(Int32(out.count - 1))
            })
            for i in 1..<(polygon.count - 1) { kept += [polygon[0], polygon[i], polygon[i + 1]] }
        }
        return kept
    }

    /// The byte offset of texel (`col`, `row`) of a `width × height` pattern as GL JS's sprite
    /// atlas held it when it drew the render suite's images (2017 `SpriteAtlas`): the image with
    /// one texel of wrapped padding around it (each edge's opposite edge), nil (transparent) beyond.
    @inline(__always) static func patternTexel(_ col: Int, _ row: Int, _ width: Int, _ height: Int) -> Int? {
        guard col >= -1, col <= width, row >= -1, row <= height else { return nil }
        return (((row + height) % height) * width + (col + width) % width) * 4
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

    /// The three points ordered by y, the first topmost (ties in the order given).
    @inline(__always) static func sortedByY(_ p: (x: Double, y: Double), _ q: (x: Double, y: Double), _ r: (x: Double, y: Double))
        -> (top: (x: Double, y: Double), mid: (x: Double, y: Double), bottom: (x: Double, y: Double)) {
        var (a, b, c) = (p, q, r)
        if b.y < a.y { swap(&a, &b) }
        if c.y < b.y { swap(&b, &c) }
        if b.y < a.y { swap(&a, &b) }
        return (a, b, c)
    }

    /// How far past a row's computed span pixel centres are still tested, pixels.
    static let spanSlack = 1e-3

    /// ⌊v⌋ and ⌈v⌉ as integers, without libm's `floor`/`ceil`. Where |v| < 2³⁰ (every pixel
    /// coordinate drawn) by the float unit's own rounding: v + 1.5 · 2⁵² is exact to the whole
    /// number, so its low 32 bits hold v rounded to the nearest integer (Lua 5.1's
    /// `lua_number2int`, luaconf.h), one off where that rounding went up (floor) or down (ceil);
    /// no range check or trap on the way. Beyond (or NaN), by Swift's checked truncation.
    @inline(__always) static func floor(_ v: Double) -> Int {
        guard abs(v) < Self.roundingRange else { return Self.truncatingFloor(v) }
        let shifted = v + Self.roundingShift, nearest = Int(Int32(truncatingIfNeeded: shifted.bitPattern))
        return shifted - Self.roundingShift > v ? nearest &- 1 : nearest
    }
    @inline(__always) static func ceil(_ v: Double) -> Int {
        guard abs(v) < Self.roundingRange else { return -Self.truncatingFloor(-v) }
        let shifted = v + Self.roundingShift, nearest = Int(Int32(truncatingIfNeeded: shifted.bitPattern))
        return shifted - Self.roundingShift < v ? nearest &+ 1 : nearest
    }

    /// ⌊v⌋ for |v| < 2⁶³ by truncation (traps beyond, as Swift's conversion does).
    private static func truncatingFloor(_ v: Double) -> Int {
        let t = Int(v)
        return Double(t) > v ? t - 1 : t
    }

    /// 1.5 · 2⁵²: a sum with it is rounded to the whole number, its low bits that number.
    private static let roundingShift = 6_755_399_441_055_744.0
    /// 2³⁰: below it the shifted sum's low 32 bits hold the rounded number with its sign.
    private static let roundingRange = 1_073_741_824.0

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
    /// blends premultiplied colour (`ONE, ONE_MINUS_SRC_ALPHA`). `i` is a pixel's first byte,
    /// inside the image: its channels' offsets are worked out without overflow checks.
    @inline(__always) func blend(_ alpha: Double, at i: Int, in bytes: UnsafeMutableBufferPointer<UInt8>) {
        let keep = 1 - color.3 * alpha, a255 = alpha * 255
        bytes[i] = Self.nearByte(color.0 * a255 + Double(bytes[i]) * keep)
        bytes[i &+ 1] = Self.nearByte(color.1 * a255 + Double(bytes[i &+ 1]) * keep)
        bytes[i &+ 2] = Self.nearByte(color.2 * a255 + Double(bytes[i &+ 2]) * keep)
        bytes[i &+ 3] = Self.nearByte(color.3 * a255 + Double(bytes[i &+ 3]) * keep)
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
