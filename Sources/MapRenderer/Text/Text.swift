#if (canImport(CFreeType) && canImport(CHarfBuzz)) || canImport(CoreText)
/// One glyph of shaped text: which face, which glyph, where (pixels from the text's origin on
/// its baseline, y down), and how far it moves the pen.
public struct ShapedGlyph: Sendable, Hashable {
    public var face: Int
    public var glyph: UInt32
    public var x: Double
    public var y: Double
    /// How far the pen moves past this glyph, pixels (HarfBuzz's `x_advance`; a space has one
    /// and no outline).
    public var advance: Double
}

/// A line of text after shaping: glyphs in visual order, left to right.
public struct ShapedText: Sendable {
    public var glyphs: [ShapedGlyph]
    /// Advance width, pixels.
    public var width: Double
    /// Pixels per em.
    public var size: Double
}

/// How a label's text looks.
public struct TextStyle: Sendable, Hashable {
    /// Pixels per em.
    public var size: Double
    public var color: Color
    /// A outline of `haloWidth` pixels around each glyph, drawn first, for legibility on any
    /// background; nil for none.
    public var halo: Color?
    public var haloWidth: Double

    public init(size: Double, color: Color, halo: Color? = .white, haloWidth: Double = 1.5) {
        self.size = size
        self.color = color
        self.halo = halo
        self.haloWidth = haloWidth
    }
}

/// Shapes and draws text with a fallback list of faces: each run of characters goes to the
/// first face that covers it (Latin, then Arabic, then CJK, …), each run is shaped by its face
/// (``GlyphFace``: HarfBuzz, or Core Text on Apple platforms) with its script and direction
/// guessed from its characters, and glyph masks are cached.
///
/// Bidirectional text is ordered by runs: when the first strong character is right-to-left
/// the runs are laid out right to left (each run's glyphs come from HarfBuzz in visual
/// order); the full Unicode bidi algorithm (UAX #9) with nested levels is not implemented.
public final class TextRenderer {
    public let faces: [any GlyphFace]
    private var masks: [GlyphKey: CoverageMask] = [:]
    private var outlines: [OutlineKey: Path] = [:]
    private var contours: [ContourKey: [Path.Contour]] = [:]
    private var shaped: [ShapeKey: ShapedText] = [:]
    private var rasterizer = Rasterizer()

    /// - Throws: `RenderError.font` for an empty list.
    public init(faces: [any GlyphFace]) throws(RenderError) {
        guard !faces.isEmpty else { throw RenderError(.font, "no font given for text") }
        self.faces = faces
    }

    /// `text` shaped at `size` pixels per em. Characters no face covers are drawn with the
    /// first face's missing-glyph box.
    public func shape(_ text: String, size: Double) -> ShapedText {
        let key = ShapeKey(text: text, size: size)
        if let cached = shaped[key] { return cached }
        let result = shapeUncached(text, size: size)
        if shaped.count > 20_000 { shaped.removeAll(keepingCapacity: true) }
        shaped[key] = result
        return result
    }

    private func shapeUncached(_ text: String, size: Double) -> ShapedText {
        let runs = self.runs(text)
        var glyphs: [ShapedGlyph] = []
        var pen = 0.0
        let ordered = Self.isRightToLeft(text) ? runs.reversed() : runs
        for run in ordered {
            for g in faces[run.face].shape(run.text, size: size) {
                glyphs.append(ShapedGlyph(face: run.face, glyph: g.glyph, x: pen + g.x, y: g.y, advance: g.advance))
                pen += g.advance
            }
        }
        return ShapedText(glyphs: glyphs, width: pen, size: size)
    }

    /// Draws `text` with its baseline's left end at `origin`.
    public func draw(_ text: ShapedText, at origin: Point, style: TextStyle, on canvas: inout Canvas) {
        for pass in style.halo == nil ? [false] : [true, false] {
            for g in text.glyphs {
                let pen = Point(x: origin.x + g.x, y: origin.y + g.y)
                // Quarter-pixel horizontal positions share a mask; a pen 7/8 px or more past a
                // pixel's edge rounds to the next pixel's first quarter.
                let quarters = (pen.x * 4).rounded()
                let ix = (quarters / 4).rounded(.down), iy = pen.y.rounded()
                let sub = Int(quarters - 4 * ix)
                let key = GlyphKey(face: g.face, glyph: g.glyph, size: Int((text.size * 4).rounded()), subpixel: sub,
                                   halo: pass ? Int((style.haloWidth * 4).rounded()) : 0)
                let mask: CoverageMask
                if let cached = masks[key] {
                    mask = cached
                } else {
                    var path = outline(face: g.face, glyph: g.glyph, size: text.size).applying(.translation(x: Double(sub) / 4, y: 0))
                    if pass {
                        // The halo is the glyph grown by its width, as along lines: the glyph plus
                        // its two-sided stroke could cancel windings under the ink.
                        let halo = Stroker.grown(path.flattened(), by: style.haloWidth)
                        path = Path()
                        for c in halo { path.append(Path(polyline: c.points, closed: true)) }
                    }
                    mask = localMask(path)
                    if masks.count > 20_000 { masks.removeAll(keepingCapacity: true) }
                    masks[key] = mask
                }
                canvas.draw(mask.offset(x: Int(ix), y: Int(iy)), color: pass ? style.halo! : style.color)
            }
        }
    }

    /// Draws `text` set along `line` (pixels) from `offset` pixels along it, each glyph on the
    /// chord its advance spans (``placements(of:along:offset:)``); draws nothing when the line
    /// is too short.
    public func draw(_ text: ShapedText, along line: [Point], offset: Double, style: TextStyle, on canvas: inout Canvas) {
        guard let placed = Self.placements(of: text, along: PolylineMeasure(line), offset: offset) else { return }
        draw(text, placed: placed, style: style, on: &canvas)
    }

    /// Draws each glyph of `text` through its transform from glyph space to the image (a
    /// rotation and a translation). Each glyph's flattened outline and halo outline are made
    /// once in glyph space and moved onto the image: flattening and stroking measure only
    /// lengths and angles, so they commute with a rigid transform.
    func draw(_ text: ShapedText, placed: [AffineTransform], style: TextStyle, on canvas: inout Canvas) {
        for pass in style.halo == nil ? [false] : [true, false] {
            for (g, transform) in zip(text.glyphs, placed) {
                if pass && 2 * style.haloWidth < 1 {
                    // A hairline halo is drawn along the outline, not filled.
                    canvas.stroke(outline(face: g.face, glyph: g.glyph, size: text.size).applying(transform), style: StrokeStyle(width: 2 * style.haloWidth, join: .round), color: style.halo!)
                    continue
                }
                let key = ContourKey(face: g.face, glyph: g.glyph, size: text.size, haloWidth: pass ? style.haloWidth : 0, tolerance: canvas.tolerance)
                let moved = contours(key).map { c in Path.Contour(points: c.points.map(transform.apply), isClosed: true) }
                canvas.fill(contours: moved, color: pass ? style.halo! : style.color)
            }
        }
    }

    /// A glyph's outline flattened with `tolerance`, or with a halo width the outline of its
    /// halo (the glyph grown by `haloWidth`, round corners), in glyph space; cached.
    private func contours(_ key: ContourKey) -> [Path.Contour] {
        if let cached = contours[key] { return cached }
        let flat = outline(face: key.face, glyph: key.glyph, size: key.size).flattened(tolerance: key.tolerance)
        let result = key.haloWidth > 0 ? Stroker.grown(flat, by: key.haloWidth, tolerance: key.tolerance) : flat
        if contours.count > 20_000 { contours.removeAll(keepingCapacity: true) }
        contours[key] = result
        return result
    }

    /// How far the baseline of text along a line sits below the line, in ems: the x-height
    /// then straddles the line.
    static let baselineBelowLine = 0.35

    /// Where each glyph of `text` goes when set along a line from `offset` pixels along it: a
    /// map from glyph space (pen on the baseline at the origin, y down) to the image, one per
    /// glyph. Each glyph lies on the chord between the point where the previous one ended and
    /// the first point farther along whose straight distance from it is the glyph's advance,
    /// turned to that chord (Mapnik's text-on-path placement): every advance, a space's too,
    /// stays its own length on the image, however the line bends under the text. Nil when the
    /// line ends first.
    /// - Complexity: O(glyphs + the line's vertices after `offset`).
    static func placements(of text: ShapedText, along measure: PolylineMeasure, offset: Double) -> [AffineTransform]? {
        let points = measure.points
        guard points.count > 1, var (at, angle) = measure.point(at: offset) else { return nil }
        // The segment the cursor is on: it runs from points[segment - 1] to points[segment].
        var segment = max(1, measure.lengths.firstIndex { $0 > offset } ?? points.count - 1)
        let drop = text.size * baselineBelowLine
        var out: [AffineTransform] = []
        out.reserveCapacity(text.glyphs.count)
        var pen = 0.0
        for g in text.glyphs {
            var end = at
            if g.advance > 0 {
                // The first point past `at` at distance `advance` from it: along the segments
                // until one leaves the circle, then where that segment crosses it.
                let r2 = g.advance * g.advance
                while segment < points.count, (points[segment] - at).lengthSquared < r2 { segment += 1 }
                guard segment < points.count else { return nil }
                let a = segment > 0 && (points[segment - 1] - at).lengthSquared <= r2 ? points[segment - 1] : at
                let d = points[segment] - a, f = a - at
                // |f + t·d|² = r², the root in 0…1.
                let qa = d.lengthSquared, qb = 2 * (f.x * d.x + f.y * d.y), qc = f.lengthSquared - r2
                let t = qa > 0 ? (-qb + (qb * qb - 4 * qa * qc).squareRoot()) / (2 * qa) : 0
                end = a + d * min(max(t, 0), 1)
                angle = atan2(end.y - at.y, end.x - at.x)
            }
            let local = AffineTransform.translation(x: g.x - pen, y: g.y + drop)
            out.append(local.then(.rotation(radians: angle)).then(.translation(x: at.x, y: at.y)))
            pen += g.advance
            at = end
        }
        return out
    }

    /// The outline of a glyph at `size`, cached.
    func outline(face: Int, glyph: UInt32, size: Double) -> Path {
        let key = OutlineKey(face: face, glyph: glyph, size: Int((size * 4).rounded()))
        if let p = outlines[key] { return p }
        let p = faces[face].outline(glyph: glyph, size: size)
        if outlines.count > 20_000 { outlines.removeAll(keepingCapacity: true) }
        outlines[key] = p
        return p
    }

    /// The coverage of a path around the origin, with the mask's origin relative to it.
    private func localMask(_ path: Path) -> CoverageMask {
        let contours = path.flattened()
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for c in contours { for p in c.points { minX = min(minX, p.x); minY = min(minY, p.y); maxX = max(maxX, p.x); maxY = max(maxY, p.y) } }
        guard minX.isFinite, maxX.isFinite else { return .empty }
        let ox = Int(minX.rounded(.down)), oy = Int(minY.rounded(.down))
        let shift = Point(x: Double(-ox), y: Double(-oy))
        let moved = contours.map { Path.Contour(points: $0.points.map { $0 + shift }, isClosed: true) }
        let m = rasterizer.coverage(of: moved, rule: .nonZero, clipWidth: Int(maxX.rounded(.up)) - ox + 1, clipHeight: Int(maxY.rounded(.up)) - oy + 1)
        return m.offset(x: ox, y: oy)
    }

    /// Splits `text` into runs of one face each. Marks, joiners, spaces and punctuation stay
    /// with the run before them, so shaping sees whole words.
    private func runs(_ text: String) -> [(face: Int, text: String)] {
        var out: [(face: Int, text: String)] = []
        var current: (face: Int, scalars: String.UnicodeScalarView)? = nil
        for s in text.unicodeScalars {
            let face: Int
            if s.properties.generalCategory.isNeutral, let c = current, faces[c.face].covers(s) {
                face = c.face
            } else {
                face = faces.firstIndex { $0.covers(s) } ?? current?.face ?? 0
            }
            if current?.face == face {
                current!.scalars.append(s)
            } else {
                if let c = current { out.append((c.face, String(c.scalars))) }
                current = (face, String.UnicodeScalarView([s]))
            }
        }
        if let c = current { out.append((c.face, String(c.scalars))) }
        return out
    }

    /// Whether the first strong character is right-to-left (Hebrew, Arabic, Syriac, Thaana,
    /// N'Ko and their presentation forms).
    static func isRightToLeft(_ text: String) -> Bool {
        for s in text.unicodeScalars {
            let v = s.value
            if (0x0590...0x08FF).contains(v) || (0xFB1D...0xFDFF).contains(v) || (0xFE70...0xFEFF).contains(v) { return true }
            if s.properties.isAlphabetic { return false }
        }
        return false
    }

    private struct GlyphKey: Hashable { let face: Int, glyph: UInt32, size: Int, subpixel: Int, halo: Int }
    private struct OutlineKey: Hashable { let face: Int, glyph: UInt32, size: Int }
    private struct ContourKey: Hashable { let face: Int, glyph: UInt32, size: Double, haloWidth: Double, tolerance: Double }
    private struct ShapeKey: Hashable { let text: String, size: Double }
}

private extension Unicode.GeneralCategory {
    /// Characters that take the face of the text around them.
    var isNeutral: Bool {
        switch self {
        case .spaceSeparator, .nonspacingMark, .spacingMark, .enclosingMark, .format, .control,
             .otherPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .connectorPunctuation,
             .initialPunctuation, .finalPunctuation:
            true
        default: false
        }
    }
}
#endif

/// Arc-length positions along a polyline.
struct PolylineMeasure {
    let points: [Point]
    /// Cumulative length at each point, pixels.
    let lengths: [Double]

    init(_ points: [Point]) {
        self.points = points
        var acc = [0.0]
        for i in points.indices.dropFirst() { acc.append(acc[acc.count - 1] + (points[i] - points[i - 1]).length) }
        lengths = acc
    }

    var total: Double { lengths.last ?? 0 }

    /// The point `s` pixels along, and the direction there (radians, clockwise from +x on screen).
    func point(at s: Double) -> (Point, Double)? {
        guard points.count > 1, s >= 0, s <= total else { return nil }
        var lo = 0, hi = lengths.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if lengths[mid] <= s { lo = mid } else { hi = mid }
        }
        let a = points[lo], b = points[hi]
        let seg = lengths[hi] - lengths[lo]
        let t = seg > 0 ? (s - lengths[lo]) / seg : 0
        return (a.interpolated(to: b, t), atan2(b.y - a.y, b.x - a.x))
    }
}

import Platform
