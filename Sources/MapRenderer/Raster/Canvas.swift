/// Drawing onto a `Pixmap`: fills and strokes of paths in one colour each, anti-aliased.
public struct Canvas: Sendable {
    public private(set) var pixmap: Pixmap
    private var rasterizer = Rasterizer()
    /// Coverage 1, as long as the widest run drawn so far: what an aliased fill's runs are
    /// composited through.
    private var fullCoverage: [Float] = []
    /// Flattening tolerance of curves, joins and caps, pixels.
    public var tolerance = 0.2
    /// Fills and strokes of at least one pixel's width draw only inside this rectangle of
    /// pixels `[minX, maxX) × [minY, maxY)` when set (a tile's square, as MapLibre clips a
    /// tile's buffer away); nil draws everywhere.
    public var clip: (minX: Int, minY: Int, maxX: Int, maxY: Int)?
    /// Fills draw whole pixels only, those at least half covered (≈ the pixels whose centre is
    /// inside, as a GL triangle without multisampling covers them); false antialiases. A centre
    /// exactly on an edge counts only for the edges on a shape's left or top (GL's top-left
    /// rule: of two shapes sharing the edge, one pixel goes to exactly one of them).
    public var aliased = false

    public init(_ pixmap: Pixmap) { self.pixmap = pixmap }

    /// A canvas over a new image filled with `background`.
    public init(width: Int, height: Int, background: Color) throws(RenderError) {
        var p = try Pixmap(width: width, height: height)
        // A new image is transparent already (every byte 0, as any colour of alpha 0 premultiplied).
        if background.alpha != 0 { p.clear(to: background) }
        self.init(p)
    }

    /// The image's rectangle, pixels.
    private var bounds: Stroker.Rectangle { Stroker.Rectangle(minX: 0, minY: 0, maxX: Double(pixmap.width), maxY: Double(pixmap.height)) }

    public var width: Int { pixmap.width }
    public var height: Int { pixmap.height }

    /// Fills `path` (every contour closed) with `color`.
    public mutating func fill(_ path: Path, color: Color, rule: FillRule = .nonZero) {
        paint(path.flattened(tolerance: tolerance), rule: rule, color: color)
    }

    /// Fills straight-line contours (each closed): the map painter's and the style's polygons,
    /// built point by point with no curves to flatten.
    public mutating func fill(contours: [Path.Contour], color: Color, rule: FillRule = .nonZero) {
        paint(contours, rule: rule, color: color)
    }

    /// Composites `color` through the coverage of `contours`, row by row, with no mask kept.
    private mutating func paint(_ contours: [Path.Contour], rule: FillRule, color: Color) {
        guard color.alpha > 0 else { return }
        var image = pixmap
        // The pixmap leaves `self` while it is drawn on, so its storage stays uniquely referenced.
        pixmap = Self.placeholder
        if clip != nil || aliased {
            // The top-left rule: moved up and left by a 256th of a pixel (GL's subpixel step),
            // a centre on a left or top edge is more than half covered, one on a right or
            // bottom edge less.
            let shift = aliased ? Self.edgeNudge : 0
            let clip = self.clip ?? (0, 0, image.width, image.height)
            let aliased = self.aliased, opaque = color.alpha == 255
            if aliased, fullCoverage.count < image.width { fullCoverage = [Float](repeating: 1, count: image.width) }
            let full = fullCoverage
            rasterizer.rasterize(contours, rule: rule, clipWidth: image.width, clipHeight: image.height, shift: shift) { y, x, run in
                guard y >= clip.minY, y < clip.maxY else { return }
                let start = max(x, clip.minX), end = min(x + run.count, clip.maxX)
                guard start < end else { return }
                let part = UnsafeBufferPointer(rebasing: run[(start - x)..<(end - x)])
                guard aliased else { return image.composite(color, row: y, x: start, coverage: part) }
                // Aliased: each run of pixels at least half covered, composited at full coverage
                // (an opaque colour's run is the colour: its pixels replaced, not blended).
                full.withUnsafeBufferPointer { ones in
                    var i = 0
                    while i < part.count {
                        guard part[i] >= 0.5 else { i += 1; continue }
                        var j = i + 1
                        while j < part.count, part[j] >= 0.5 { j += 1 }
                        if opaque {
                            image.replace(row: y, x: start + i, count: j - i, with: color)
                        } else {
                            image.composite(color, row: y, x: start + i, coverage: UnsafeBufferPointer(rebasing: ones[0..<(j - i)]))
                        }
                        i = j
                    }
                }
            }
        } else {
            rasterizer.rasterize(contours, rule: rule, clipWidth: image.width, clipHeight: image.height) { y, x, run in
                image.composite(color, row: y, x: x, coverage: run)
            }
        }
        pixmap = image
    }

    /// Hands the image to `body` to change pixel by pixel (shading a canvas cannot express).
    public mutating func withPixmap<R>(_ body: (inout Pixmap) throws -> R) rethrows -> R {
        var image = pixmap
        pixmap = Self.placeholder
        defer { pixmap = image }
        return try body(&image)
    }

    /// Replaces every pixel with `color`.
    public mutating func clear(to color: Color) {
        var image = pixmap
        pixmap = Self.placeholder
        image.clear(to: color)
        pixmap = image
    }

    /// How far aliased fills move their edges up and left, pixels.
    private static let edgeNudge = 1.0 / 256

    /// A 1×1 image that holds `pixmap`'s place while it is drawn on.
    private static let placeholder = Pixmap(width: 1, height: 1, premultiplied: [0, 0, 0, 0])

    /// The coverage of `path` stroked with `style`, without drawing it.
    public mutating func strokeCoverage(of path: Path, style: StrokeStyle) -> CoverageMask {
        var s = style
        s.width = max(1, style.width)
        let outline = Stroker.outline(of: path.flattened(tolerance: tolerance), style: s, tolerance: tolerance, clip: bounds)
        return rasterizer.coverage(of: outline, rule: .nonZero, clipWidth: pixmap.width, clipHeight: pixmap.height)
    }

    /// Strokes `path` with `style` in `color`. A width below one pixel draws a one-pixel line
    /// at `width` times the opacity (a hairline).
    public mutating func stroke(_ path: Path, style: StrokeStyle, color: Color) {
        stroke(contours: path.flattened(tolerance: tolerance), style: style, color: color)
    }

    /// Strokes straight-line contours (the map painter's lines, built point by point).
    mutating func stroke(contours: [Path.Contour], style: StrokeStyle, color: Color) {
        guard style.width > 0, style.width.isFinite else { return }
        if style.width < 1 {
            // A hairline: one pixel wide, drawn along the line without an outline to fill.
            var lines: [Path.Contour] = []
            for c in contours {
                if style.dashes.isEmpty { lines.append(c) } else { lines += Stroker.dashed(c.points, closed: c.isClosed, dashes: style.dashes, phase: style.dashPhase) }
            }
            pixmap.drawHairlines(lines, color: color.withOpacity(style.width))
            return
        }
        var s = style
        s.width = max(1, style.width)
        let outline = Stroker.outline(of: contours, style: s, tolerance: tolerance, clip: bounds)
        paint(outline, rule: .nonZero, color: color)
    }

    /// Composites `color` through a mask made earlier (a cached glyph).
    public mutating func draw(_ mask: CoverageMask, color: Color) {
        pixmap.composite(color, through: mask)
    }
}
