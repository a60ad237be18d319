#if canImport(CFreeType) && canImport(CHarfBuzz)
import CFreeType
public import MapData

/// Signed distance fields of a face's glyphs, made as MapLibre's node-fontnik makes the glyph
/// PBFs its styles name (sdf-glyph-foundry): the outline loaded unhinted at 24 px per em, its
/// curves flattened by adaptive subdivision (Shemanarev's, tolerance 0.5 px), the ink box
/// rounded to whole pixels and bordered by 3 px; each pixel centre's distance to the outline
/// scaled by 256 / radius (radius 8 px), negated inside (even-odd), shifted by cutoff · 256
/// (cutoff 0.25) and stored inverted: 192 on the outline, 255 two pixels inside, 0 six outside.
extension FontFace {
    /// The distance-field parameters: radius in pixels, cutoff as a share of 256.
    public static let sdfRadius = 8.0
    public static let sdfCutoff = 0.25

    /// FreeType's own metrics of `scalar`'s glyph, unhinted at `size` pixels per em, in pixels:
    /// the ink box (width, height, bearings; control points included, as FreeType measures
    /// it), the advance, and the face's ascender at that size. Nil when the face lacks it.
    public func freeTypeMetrics(_ scalar: Unicode.Scalar, size: Double) -> (width: Double, height: Double, bearingX: Double, bearingY: Double, advance: Double, ascender: Double)? {
        guard let slot = loadScaled(scalar, size: size), let face else { return nil }
        let m = slot.pointee.metrics
        return (Double(m.width) / 64, Double(m.height) / 64, Double(m.horiBearingX) / 64, Double(m.horiBearingY) / 64,
                Double(m.horiAdvance) / 64, Double(face.pointee.size.pointee.metrics.ascender) / 64)
    }

    /// The glyph of `scalar` as a glyph PBF holds it (24 px, 3 px border); nil when the
    /// face's cmap does not map `scalar` or the scalar is past U+FFFF.
    public func sdfGlyph(_ scalar: Unicode.Scalar) -> SDFGlyph? {
        guard scalar.value <= 0xFFFF, let slot = loadScaled(scalar, size: Double(GlyphPBF.size)), let face else { return nil }
        // Integer pixels, truncated, as fontnik's `/ 64` on FreeType's 26.6 values.
        let advance = Int(slot.pointee.metrics.horiAdvance / 64)
        let ascender = Int(face.pointee.size.pointee.metrics.ascender / 64)
        var empty = SDFGlyph(id: scalar.value, bitmap: [], width: 0, height: 0, left: 0, top: -ascender, advance: advance)
        var rings = OutlineRings()
        var funcs = FT_Outline_Funcs(
            move_to: { to, user in user!.assumingMemoryBound(to: OutlineRings.self).pointee.move(to!.pointee); return 0 },
            line_to: { to, user in user!.assumingMemoryBound(to: OutlineRings.self).pointee.line(to!.pointee); return 0 },
            conic_to: { c, to, user in user!.assumingMemoryBound(to: OutlineRings.self).pointee.quad(c!.pointee, to!.pointee); return 0 },
            cubic_to: { c1, c2, to, user in user!.assumingMemoryBound(to: OutlineRings.self).pointee.cubic(c1!.pointee, c2!.pointee, to!.pointee); return 0 },
            shift: 0, delta: 0)
        guard slot.pointee.outline.n_points > 0 else { return empty }
        let status = withUnsafeMutablePointer(to: &rings) { ft.FT_Outline_Decompose(&slot.pointee.outline, &funcs, $0) }
        rings.finish()
        guard status == 0, !rings.rings.isEmpty else { return empty }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for ring in rings.rings {
            for p in ring { minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y) }
        }
        (minX, minY, maxX, maxY) = (minX.rounded(), minY.rounded(), maxX.rounded(), maxY.rounded())
        let width = Int(maxX - minX), height = Int(maxY - minY)
        guard width > 0, height > 0, width <= GlyphPBF.maximumSide, height <= GlyphPBF.maximumSide else { return empty }
        let b = Double(GlyphPBF.border)
        let shifted = rings.rings.map { $0.map { Point(x: $0.x - minX + b, y: $0.y - minY + b) } }
        empty.width = width
        empty.height = height
        empty.left = Int(minX)
        empty.top = Int(maxY) - ascender
        empty.bitmap = Self.distanceField(shifted, width: width + 2 * GlyphPBF.border, height: height + 2 * GlyphPBF.border)
        return empty
    }

    /// Loads `scalar`'s glyph unhinted at `size` pixels per em.
    private func loadScaled(_ scalar: Unicode.Scalar, size: Double) -> FT_GlyphSlot? {
        guard let face else { return nil }
        let index = ft.FT_Get_Char_Index(face, FT_ULong(scalar.value))
        guard index != 0 || scalar.value == 0,
              ft.FT_Set_Char_Size(face, 0, FT_F26Dot6((size * 64).rounded()), 0, 0) == 0,
              ft.FT_Load_Glyph(face, index, Int32(FT_LOAD_NO_HINTING)) == 0 else { return nil }
        return face.pointee.glyph
    }

    /// The 8-bit field of `rings` (pixels, y up, already offset into the bordered box) over a
    /// `width` × `height` bitmap, row 0 at the top.
    static func distanceField(_ rings: [[Point]], width: Int, height: Int) -> [UInt8] {
        let radius = sdfRadius
        // Squared distance from each pixel centre to the nearest segment within `radius`.
        var nearest = [Double](repeating: .infinity, count: width * height)
        for ring in rings where ring.count >= 2 {
            for i in 0..<(ring.count - 1) {
                let a = ring[i], c = ring[i + 1]
                let x0 = max(0, Int((min(a.x, c.x) - radius - 0.5).rounded(.down))), x1 = min(width - 1, Int((max(a.x, c.x) + radius).rounded(.up)))
                let y0 = max(0, Int((min(a.y, c.y) - radius - 0.5).rounded(.down))), y1 = min(height - 1, Int((max(a.y, c.y) + radius).rounded(.up)))
                guard x0 <= x1, y0 <= y1 else { continue }
                let vx = c.x - a.x, vy = c.y - a.y, l2 = vx * vx + vy * vy
                for y in y0...y1 {
                    let py = Double(y) + 0.5
                    for x in x0...x1 {
                        let px = Double(x) + 0.5
                        var t = l2 > 0 ? ((px - a.x) * vx + (py - a.y) * vy) / l2 : 0
                        t = min(max(t, 0), 1)
                        let dx = px - (a.x + vx * t), dy = py - (a.y + vy * t)
                        let d2 = dx * dx + dy * dy
                        if d2 < nearest[y * width + x] { nearest[y * width + x] = d2 }
                    }
                }
            }
        }
        var bitmap = [UInt8](repeating: 0, count: width * height)
        var crossings: [Double] = []
        for y in 0..<height {
            // Even-odd inside test along the row through the pixel centres.
            let py = Double(y) + 0.5
            crossings.removeAll(keepingCapacity: true)
            for ring in rings where ring.count >= 2 {
                for i in 0..<(ring.count - 1) {
                    let a = ring[i], c = ring[i + 1]
                    if (a.y > py) != (c.y > py) { crossings.append((c.x - a.x) * (py - a.y) / (c.y - a.y) + a.x) }
                }
            }
            crossings.sort()
            var k = 0
            for x in 0..<width {
                let px = Double(x) + 0.5
                while k < crossings.count, crossings[k] <= px { k += 1 }
                // A pixel is inside when an odd number of crossings lie to its right.
                let inside = (crossings.count - k) % 2 == 1
                var d = nearest[y * width + x].squareRoot() * (256 / radius)
                if inside { d = -d }
                d += sdfCutoff * 256
                let n = d > 255 ? 255 : d < 0 ? 0 : Int(d)
                bitmap[(height - y - 1) * width + x] = UInt8(255 - n)
            }
        }
        return bitmap
    }
}

/// FreeType's outline callbacks gathered into closed rings of points in pixels (y up), curves
/// flattened by adaptive subdivision: a piece is cut in half until its control points lie
/// within 0.5 px of its chord, then its midpoint stands for it (Shemanarev, "Adaptive
/// Subdivision of Bezier Curves", 2005, with angle tolerance off).
private struct OutlineRings {
    var rings: [[Point]] = []
    var ring: [Point] = []
    static let toleranceSquared = 0.25
    static let collinear = 1e-30
    static let recursionLimit = 32

    func point(_ v: FT_Vector) -> Point { Point(x: Double(v.x) / 64, y: Double(v.y) / 64) }

    mutating func finish() {
        guard let first = ring.first else { return }
        if ring.last != first { ring.append(first) }
        rings.append(ring)
        ring = []
    }

    mutating func move(_ v: FT_Vector) {
        finish()
        ring = [point(v)]
    }

    mutating func line(_ v: FT_Vector) { ring.append(point(v)) }

    mutating func quad(_ c: FT_Vector, _ v: FT_Vector) {
        guard let start = ring.last else { return }
        let to = point(v)
        subdivide(start, point(c), to, level: 0)
        ring.append(to)
    }

    mutating func cubic(_ c1: FT_Vector, _ c2: FT_Vector, _ v: FT_Vector) {
        guard let start = ring.last else { return }
        let to = point(v)
        subdivide(start, point(c1), point(c2), to, level: 0)
        ring.append(to)
    }

    private static func squaredDistance(_ a: Point, _ b: Point) -> Double { let d = a - b; return d.x * d.x + d.y * d.y }

    private mutating func subdivide(_ p1: Point, _ p2: Point, _ p3: Point, level: Int) {
        guard level <= Self.recursionLimit else { return }
        let p12 = (p1 + p2) * 0.5, p23 = (p2 + p3) * 0.5, p123 = (p12 + p23) * 0.5
        let dx = p3.x - p1.x, dy = p3.y - p1.y
        var d = abs((p2.x - p3.x) * dy - (p2.y - p3.y) * dx)
        if d > Self.collinear {
            if d * d <= Self.toleranceSquared * (dx * dx + dy * dy) { ring.append(p123); return }
        } else {
            let da = dx * dx + dy * dy
            if da == 0 {
                d = Self.squaredDistance(p1, p2)
            } else {
                let t = ((p2.x - p1.x) * dx + (p2.y - p1.y) * dy) / da
                if t > 0 && t < 1 { return }
                d = t <= 0 ? Self.squaredDistance(p2, p1) : Self.squaredDistance(p2, p3)
            }
            if d < Self.toleranceSquared { ring.append(p2); return }
        }
        subdivide(p1, p12, p123, level: level + 1)
        subdivide(p123, p23, p3, level: level + 1)
    }

    private mutating func subdivide(_ p1: Point, _ p2: Point, _ p3: Point, _ p4: Point, level: Int) {
        guard level <= Self.recursionLimit else { return }
        let p12 = (p1 + p2) * 0.5, p23 = (p2 + p3) * 0.5, p34 = (p3 + p4) * 0.5
        let p123 = (p12 + p23) * 0.5, p234 = (p23 + p34) * 0.5, p1234 = (p123 + p234) * 0.5
        let dx = p4.x - p1.x, dy = p4.y - p1.y
        var d2 = abs((p2.x - p4.x) * dy - (p2.y - p4.y) * dx)
        var d3 = abs((p3.x - p4.x) * dy - (p3.y - p4.y) * dx)
        let chord2 = dx * dx + dy * dy
        switch (d2 > Self.collinear, d3 > Self.collinear) {
        case (false, false):
            if chord2 == 0 {
                d2 = Self.squaredDistance(p1, p2)
                d3 = Self.squaredDistance(p4, p3)
            } else {
                func along(_ p: Point) -> Double { ((p.x - p1.x) * dx + (p.y - p1.y) * dy) / chord2 }
                let t2 = along(p2), t3 = along(p3)
                if t2 > 0 && t2 < 1 && t3 > 0 && t3 < 1 { return }
                func off(_ p: Point, _ t: Double) -> Double {
                    t <= 0 ? Self.squaredDistance(p, p1) : t >= 1 ? Self.squaredDistance(p, p4) : Self.squaredDistance(p, Point(x: p1.x + t * dx, y: p1.y + t * dy))
                }
                d2 = off(p2, t2)
                d3 = off(p3, t3)
            }
            if d2 > d3 {
                if d2 < Self.toleranceSquared { ring.append(p2); return }
            } else if d3 < Self.toleranceSquared { ring.append(p3); return }
        case (false, true):
            if d3 * d3 <= Self.toleranceSquared * chord2 { ring.append(p23); return }
        case (true, false):
            if d2 * d2 <= Self.toleranceSquared * chord2 { ring.append(p23); return }
        case (true, true):
            if (d2 + d3) * (d2 + d3) <= Self.toleranceSquared * chord2 { ring.append(p23); return }
        }
        subdivide(p1, p12, p123, p1234, level: level + 1)
        subdivide(p1234, p234, p34, p4, level: level + 1)
    }
}
#endif
