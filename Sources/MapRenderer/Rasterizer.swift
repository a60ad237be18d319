/// Which points a filled outline covers (PostScript / SVG `fill-rule`).
public enum FillRule: Sendable {
    /// Covered where the winding number is not zero.
    case nonZero
    /// Covered where the winding number is odd.
    case evenOdd
}

/// Per-pixel coverage, 0…1, of a filled outline over a rectangle of the image plane.
public struct CoverageMask: Sendable {
    /// The mask's top-left pixel on the image plane.
    public var originX: Int, originY: Int
    public var width: Int, height: Int
    /// Row-major coverage, `width × height` values in 0…1.
    public var values: [Float]

    public static let empty = CoverageMask(originX: 0, originY: 0, width: 0, height: 0, values: [])

    /// The coverage of pixel (x, y) of the image plane; 0 outside the mask.
    public func coverage(x: Int, y: Int) -> Float {
        let (i, j) = (x - originX, y - originY)
        guard i >= 0, j >= 0, i < width, j < height else { return 0 }
        return values[j * width + i]
    }

    /// The same mask moved by whole pixels.
    public func offset(x: Int, y: Int) -> CoverageMask {
        var m = self
        m.originX += x
        m.originY += y
        return m
    }
}

/// Anti-aliased scanline rasterization by signed-area coverage accumulation.
///
/// Every line segment adds, to the cells of each row it crosses, the signed area it sweeps
/// to its right; a running sum along the row then gives each pixel's exact fractional winding
/// number (the accumulation of Levien's font-rs and of stb_truetype v2, after FreeType's
/// "gray" raster). The fill rule is applied to the accumulated value: `min(1, |w|)` for
/// non-zero, the distance to the nearest even number for even-odd. Pixels crossed by one edge
/// get their exact covered area; where several edges cross one pixel the areas add, as in
/// those rasterizers.
public struct Rasterizer: Sendable {
    /// Row-major accumulation cells of the current fill, `(width + 2) × height`.
    private var cells: [Float] = []

    public init() {}

    /// The coverage of `path`, flattened with `tolerance` pixels, inside the clip rectangle
    /// `[0, clipWidth) × [0, clipHeight)`.
    /// - Complexity: O(edge length in rows + mask area).
    public mutating func coverage(of path: Path, rule: FillRule, clipWidth: Int, clipHeight: Int, tolerance: Double = 0.2) -> CoverageMask {
        coverage(of: path.flattened(tolerance: tolerance), rule: rule, clipWidth: clipWidth, clipHeight: clipHeight)
    }

    /// The coverage of flattened contours (each treated as closed).
    public mutating func coverage(of contours: [Path.Contour], rule: FillRule, clipWidth: Int, clipHeight: Int) -> CoverageMask {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for c in contours {
            for p in c.points where p.x.isFinite && p.y.isFinite {
                minX = min(minX, p.x); maxX = max(maxX, p.x)
                minY = min(minY, p.y); maxY = max(maxY, p.y)
            }
        }
        guard minX <= maxX else { return .empty }
        // Clamped before conversion: coordinates may be far outside the clip (or beyond Int).
        func clamped(_ v: Double, _ limit: Int) -> Int { Int(min(max(v, 0), Double(limit))) }
        let x0 = clamped(minX.rounded(.down), clipWidth), y0 = clamped(minY.rounded(.down), clipHeight)
        let x1 = clamped(maxX.rounded(.up), clipWidth), y1 = clamped(maxY.rounded(.up), clipHeight)
        let left = x0
        guard x1 > left, y1 > y0 else { return .empty }
        let width = x1 - left, height = y1 - y0
        let stride = width + 2
        cells.removeAll(keepingCapacity: true)
        cells.append(contentsOf: repeatElement(0, count: stride * height))
        let origin = Point(x: Double(left), y: Double(y0))
        cells.withUnsafeMutableBufferPointer { acc in
            for c in contours where c.points.count > 1 {
                var previous = c.points[c.points.count - 1] - origin
                for p in c.points {
                    let q = p - origin
                    Self.addClipped(from: previous, to: q, width: Double(width), height: height, stride: stride, into: acc)
                    previous = q
                }
            }
        }
        var values = [Float](repeating: 0, count: width * height)
        values.withUnsafeMutableBufferPointer { out in
            cells.withUnsafeBufferPointer { acc in
                for row in 0..<height {
                    var sum: Float = 0
                    let a = row * stride, o = row * width
                    for i in 0..<width {
                        sum += acc[a + i]
                        let w = abs(sum)
                        switch rule {
                        case .nonZero: out[o + i] = min(1, w)
                        case .evenOdd:
                            let m = w - 2 * (w * 0.5).rounded(.down)
                            out[o + i] = m > 1 ? 2 - m : m
                        }
                    }
                }
            }
        }
        return CoverageMask(originX: left, originY: y0, width: width, height: height, values: values)
    }

    /// Adds a segment after clipping it to `0 ≤ x ≤ width`: parts left of the clip become
    /// vertical segments on its left edge (they still wind every pixel to their right), parts
    /// right of it are dropped (they wind no pixel inside).
    private static func addClipped(from p0: Point, to p1: Point, width: Double, height: Int, stride: Int, into acc: UnsafeMutableBufferPointer<Float>) {
        guard p0.y != p1.y, p0.y.isFinite, p1.y.isFinite, p0.x.isFinite, p1.x.isFinite else { return }
        var pieces: [(Point, Point)] = [(p0, p1)]
        for bound in [0.0, width] {
            var next: [(Point, Point)] = []
            for (a, b) in pieces {
                if (a.x < bound) != (b.x < bound), a.x != bound, b.x != bound {
                    let t = (bound - a.x) / (b.x - a.x)
                    let m = Point(x: bound, y: a.y + (b.y - a.y) * t)
                    next.append((a, m))
                    next.append((m, b))
                } else {
                    next.append((a, b))
                }
            }
            pieces = next
        }
        for (a, b) in pieces {
            if a.x >= width && b.x >= width { continue }
            if a.x <= 0 && b.x <= 0 {
                addLine(from: Point(x: 0, y: a.y), to: Point(x: 0, y: b.y), height: height, stride: stride, into: acc)
            } else {
                addLine(from: a, to: b, height: height, stride: stride, into: acc)
            }
        }
    }

    /// Accumulates the signed area one segment (inside `0 ≤ x ≤ width`) sweeps in each row.
    private static func addLine(from a: Point, to b: Point, height: Int, stride: Int, into acc: UnsafeMutableBufferPointer<Float>) {
        guard a.y != b.y else { return }
        let (dir, p0, p1): (Double, Point, Point) = a.y < b.y ? (1, a, b) : (-1, b, a)
        let top = max(p0.y, 0), bottom = min(p1.y, Double(height))
        guard top < bottom else { return }
        let dxdy = (p1.x - p0.x) / (p1.y - p0.y)
        let maxX = Double(stride - 2)
        var x = min(max(p0.x + (top - p0.y) * dxdy, 0), maxX)
        var y = Int(top.rounded(.down))
        let lastRow = Int(bottom.rounded(.up))
        while y < lastRow {
            let rowTop = max(Double(y), top), rowBottom = min(Double(y + 1), bottom)
            let dy = rowBottom - rowTop
            // Clamped: stepping may drift a rounding error outside the clipped segment.
            let xNext = min(max(x + dxdy * dy, 0), maxX)
            let d = dy * dir
            let line = y * stride
            let (xa, xb) = x < xNext ? (x, xNext) : (xNext, x)
            let xaFloor = xa.rounded(.down), xbCeil = xb.rounded(.up)
            let ia = Int(xaFloor), ib = Int(xbCeil)
            if ib <= ia + 1 {
                // Within one pixel column: a trapezoid split at the mean x.
                let xm = 0.5 * (x + xNext) - xaFloor
                acc[line + ia] += Float(d - d * xm)
                acc[line + ia + 1] += Float(d * xm)
            } else {
                let s = 1 / (xb - xa)
                let fa = xa - xaFloor
                let a0 = 0.5 * s * (1 - fa) * (1 - fa)
                let fb = xb - xbCeil + 1
                let am = 0.5 * s * fb * fb
                acc[line + ia] += Float(d * a0)
                if ib == ia + 2 {
                    acc[line + ia + 1] += Float(d * (1 - a0 - am))
                } else {
                    let a1 = s * (1.5 - fa)
                    acc[line + ia + 1] += Float(d * (a1 - a0))
                    for i in (ia + 2)..<(ib - 1) { acc[line + i] += Float(d * s) }
                    let a2 = a1 + Double(ib - ia - 3) * s
                    acc[line + ib - 1] += Float(d * (1 - a2 - am))
                }
                acc[line + ib] += Float(d * am)
            }
            x = xNext
            y += 1
        }
    }
}
