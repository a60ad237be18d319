/// Which points a filled outline covers (PostScript / SVG `fill-rule`).
public enum FillRule: Sendable {
    /// Covered where the winding number is not zero.
    case nonZero
    /// Covered where the winding number is odd.
    case evenOdd
}

/// Per-pixel coverage, 0…1, of a filled outline: one run of values per row it touches.
public struct CoverageMask: Sendable {
    /// One row's run: `count` values from column `x` of row `y` (relative to the origin), at
    /// `offset` in `values`.
    struct Span: Sendable {
        var y: Int32, x: Int32, offset: Int32, count: Int32
    }

    /// Where the mask's (0, 0) lies on the image plane.
    public var originX = 0, originY = 0
    var spans: [Span] = []
    /// The coverage values of every span, in order.
    public var values: [Float] = []

    public static let empty = CoverageMask()

    /// The coverage of pixel (x, y) of the image plane; 0 outside the mask.
    public func coverage(x: Int, y: Int) -> Float {
        let (i, j) = (x - originX, y - originY)
        for s in spans where Int(s.y) == j && i >= Int(s.x) && i < Int(s.x + s.count) { return values[Int(s.offset) + i - Int(s.x)] }
        return 0
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
    /// Row-major accumulation cells, `(width + 2) × height` of the current fill; all zero
    /// between fills (each row is cleared over the range it touched).
    private var cells: [Float] = []
    /// Per row of the current fill, the first and last cell an edge touched.
    private var rowMin: [Int] = [], rowMax: [Int] = []
    /// Per row, one bit per run of 16 cells that an edge touched (`chunkWords` words a row;
    /// zero between fills): the running sum is constant across an untouched run, so it is
    /// skipped when empty and filled as one value when not (sparse cells, solid spans).
    private var chunks: [UInt64] = []
    /// One row's coverage, handed to the visitor.
    private var row: [Float] = []

    public init() {}

    /// The coverage of `path`, flattened with `tolerance` pixels, inside the clip rectangle
    /// `[0, clipWidth) × [0, clipHeight)`.
    /// - Complexity: O(edge length in rows + covered pixels).
    public mutating func coverage(of path: Path, rule: FillRule, clipWidth: Int, clipHeight: Int, tolerance: Double = 0.2) -> CoverageMask {
        coverage(of: path.flattened(tolerance: tolerance), rule: rule, clipWidth: clipWidth, clipHeight: clipHeight)
    }

    /// The coverage of flattened contours (each treated as closed).
    public mutating func coverage(of contours: [Path.Contour], rule: FillRule, clipWidth: Int, clipHeight: Int) -> CoverageMask {
        var mask = CoverageMask()
        rasterize(contours, rule: rule, clipWidth: clipWidth, clipHeight: clipHeight) { y, x, run in
            mask.spans.append(.init(y: Int32(y), x: Int32(x), offset: Int32(mask.values.count), count: Int32(run.count)))
            mask.values.append(contentsOf: run)
        }
        return mask
    }

    /// Rasterizes contours (each treated as closed) and hands each row's covered run to
    /// `visit(y, x, coverage)`, in image coordinates, top to bottom. Only the cells between a
    /// row's first and last edge are summed (and the rest of the row when the winding there is
    /// not zero, for shapes cut by the right edge of the clip), so a thin diagonal line costs
    /// its own pixels, not its bounding box.
    /// - Complexity: O(edge length in rows + covered pixels).
    /// With `shift`, every point is first moved up and left by that many pixels (`x − shift`,
    /// `y − shift`, as if the contours were made so), without a moved copy of them.
    public mutating func rasterize(_ contours: [Path.Contour], rule: FillRule, clipWidth: Int, clipHeight: Int, shift: Double = 0,
                                   _ visit: (_ y: Int, _ x: Int, _ coverage: UnsafeBufferPointer<Float>) -> Void) {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for c in contours {
            for point in c.points {
                let p = Point(x: point.x - shift, y: point.y - shift)
                guard p.x.isFinite && p.y.isFinite else { continue }
                minX = min(minX, p.x); maxX = max(maxX, p.x)
                minY = min(minY, p.y); maxY = max(maxY, p.y)
            }
        }
        guard minX <= maxX else { return }
        // Clamped before conversion: coordinates may be far outside the clip (or beyond Int).
        func clamped(_ v: Double, _ limit: Int) -> Int { Int(min(max(v, 0), Double(limit))) }
        let left = clamped(minX.rounded(.down), clipWidth), y0 = clamped(minY.rounded(.down), clipHeight)
        let x1 = clamped(maxX.rounded(.up), clipWidth), y1 = clamped(maxY.rounded(.up), clipHeight)
        guard x1 > left, y1 > y0 else { return }
        let width = x1 - left, height = y1 - y0
        let stride = width + 2
        if cells.count < stride * height { cells.append(contentsOf: repeatElement(0, count: stride * height - cells.count)) }
        if rowMin.count < height {
            rowMin.append(contentsOf: repeatElement(0, count: height - rowMin.count))
            rowMax.append(contentsOf: repeatElement(0, count: height - rowMax.count))
        }
        for j in 0..<height { rowMin[j] = Int.max; rowMax[j] = -1 }
        let words = (stride + Self.cellsPerWord - 1) / Self.cellsPerWord
        if chunks.count < words * height { chunks.append(contentsOf: repeatElement(0, count: words * height - chunks.count)) }
        if row.count < width { row.append(contentsOf: repeatElement(0, count: width - row.count)) }
        let origin = Point(x: Double(left), y: Double(y0))
        cells.withUnsafeMutableBufferPointer { acc in
            chunks.withUnsafeMutableBufferPointer { chunkBits in
                rowMin.withUnsafeMutableBufferPointer { lo in
                    rowMax.withUnsafeMutableBufferPointer { hi in
                        let touched = Touched(lo: lo, hi: hi, chunks: chunkBits, words: words)
                        for c in contours where c.points.count > 1 {
                            let last = c.points[c.points.count - 1]
                            var previous = Point(x: last.x - shift, y: last.y - shift) - origin
                            for p in c.points {
                                let q = Point(x: p.x - shift, y: p.y - shift) - origin
                                Self.addClipped(from: previous, to: q, width: Double(width), height: height, stride: stride, into: acc, touched: touched)
                                previous = q
                            }
                        }
                    }
                }
                row.withUnsafeMutableBufferPointer { out in
                    for j in 0..<height {
                        let first = rowMin[j], last = rowMax[j]
                        guard first <= last else { continue }
                        Self.sweep(row: j, first: first, last: last, width: width, stride: stride, words: words, rule: rule,
                                   acc: acc, chunks: chunkBits, out: out) { x, run in visit(y0 + j, left + x, run) }
                    }
                }
            }
        }
    }

    /// Cells a word of `chunks` stands for: 64 runs of 16.
    private static let cellsPerWord = 64 * 16

    /// Sums one row's cells from `first` to `last` into coverage and hands each run of
    /// non-zero coverage to `emit(x, coverage)` (x from the fill's left edge); clears the
    /// row's cells and chunk bits. Untouched runs of 16 cells are skipped when the winding
    /// there is zero and filled with its one value when not.
    @inline(__always)
    private static func sweep(row j: Int, first: Int, last: Int, width: Int, stride: Int, words: Int, rule: FillRule,
                              acc: UnsafeMutableBufferPointer<Float>, chunks: UnsafeMutableBufferPointer<UInt64>,
                              out: UnsafeMutableBufferPointer<Float>, _ emit: (Int, UnsafeBufferPointer<Float>) -> Void) {
        // Every index below lies in the row's cells and chunk words (i from `first` to `last`,
        // inside the fill's width): worked out without overflow checks.
        let a = j &* stride, bits = j &* words
        var sum: Float = 0
        let end = min(last, width - 1)
        var runStart = -1
        var i = first
        func flush(to stop: Int) {
            if runStart >= 0, stop > runStart { emit(runStart, UnsafeBufferPointer(rebasing: out[(runStart &- first)..<(stop &- first)])) }
            runStart = -1
        }
        while i <= end {
            let chunk = i >> 4
            let chunkEnd = min((chunk << 4) + 15, end)
            if chunks[bits &+ chunk >> 6] & (1 << UInt64(chunk & 63)) != 0 {
                if runStart < 0 { runStart = i }
                while i <= chunkEnd {
                    sum += acc[a &+ i]
                    acc[a &+ i] = 0
                    out[i &- first] = apply(rule, sum)
                    i &+= 1
                }
            } else {
                let c = apply(rule, sum)
                if c > 1.0 / 512 {
                    if runStart < 0 { runStart = i }
                    for k in i...chunkEnd { out[k &- first] = c }
                } else {
                    flush(to: i)
                }
                i = chunkEnd + 1
            }
        }
        // Past the last edge the winding stays what it is: zero for a shape inside the clip,
        // not zero for one cut off by the clip's right edge.
        while i <= last { sum += acc[a &+ i]; acc[a &+ i] = 0; i &+= 1 }
        let trailing = apply(rule, sum)
        if trailing > 1.0 / 512, last < width - 1 {
            if runStart < 0 { runStart = end + 1 }
            for k in (end + 1)..<width { out[k - first] = trailing }
            flush(to: width)
        } else {
            flush(to: end + 1)
        }
        for w in 0..<words { chunks[bits + w] = 0 }
    }

    /// The coverage of an accumulated winding value under a fill rule.
    @inline(__always)
    private static func apply(_ rule: FillRule, _ sum: Float) -> Float {
        let w = abs(sum)
        switch rule {
        case .nonZero: return min(1, w)
        case .evenOdd:
            let m = w - 2 * (w * 0.5).rounded(.down)
            return m > 1 ? 2 - m : m
        }
    }

    /// The per-row touched range of the current fill.
    private struct Touched {
        let lo: UnsafeMutableBufferPointer<Int>
        let hi: UnsafeMutableBufferPointer<Int>
        let chunks: UnsafeMutableBufferPointer<UInt64>
        let words: Int
        @inline(__always)
        func mark(_ row: Int, _ a: Int, _ b: Int) {
            if a < lo[row] { lo[row] = a }
            if b > hi[row] { hi[row] = b }
            // The row's chunk words, inside the buffer: indices without overflow checks.
            for chunk in (a >> 4)...(b >> 4) { chunks[row &* words &+ chunk >> 6] |= 1 << UInt64(chunk & 63) }
        }
    }

    /// Adds a segment after clipping it to `0 ≤ x ≤ width`: parts left of the clip become
    /// vertical segments on its left edge (they still wind every pixel to their right), parts
    /// right of it are dropped (they wind no pixel inside). No allocation: at most three pieces,
    /// split where the segment crosses x = 0 and x = width.
    @inline(__always)
    private static func addClipped(from p0: Point, to p1: Point, width: Double, height: Int, stride: Int, into acc: UnsafeMutableBufferPointer<Float>, touched: Touched) {
        guard p0.y != p1.y, p0.y.isFinite, p1.y.isFinite, p0.x.isFinite, p1.x.isFinite else { return }
        // Wholly above or below the rows: it winds nothing here.
        if p0.y <= 0 && p1.y <= 0 || p0.y >= Double(height) && p1.y >= Double(height) { return }
        if p0.x >= 0, p1.x >= 0, p0.x <= width, p1.x <= width {
            addLine(from: p0, to: p1, height: height, stride: stride, into: acc, touched: touched)
            return
        }
        // The parameters along the segment where it crosses the two bounds, in order.
        func crossing(_ bound: Double) -> Double? {
            (p0.x < bound) != (p1.x < bound) && p0.x != bound && p1.x != bound ? (bound - p0.x) / (p1.x - p0.x) : nil
        }
        var t1 = crossing(0) ?? 2, t2 = crossing(width) ?? 2
        if t2 < t1 { swap(&t1, &t2) }
        func at(_ t: Double, _ boundX: Double?) -> Point { Point(x: boundX ?? p0.x + (p1.x - p0.x) * t, y: p0.y + (p1.y - p0.y) * t) }
        func boundX(_ t: Double) -> Double { abs(p0.x + (p1.x - p0.x) * t) < abs(p0.x + (p1.x - p0.x) * t - width) ? 0 : width }
        func piece(_ a: Point, _ b: Point) {
            if a.x >= width && b.x >= width { return }
            if a.x <= 0 && b.x <= 0 {
                addLine(from: Point(x: 0, y: a.y), to: Point(x: 0, y: b.y), height: height, stride: stride, into: acc, touched: touched)
            } else {
                addLine(from: a, to: b, height: height, stride: stride, into: acc, touched: touched)
            }
        }
        var a = p0
        if t1 < 2 { let m = at(t1, boundX(t1)); piece(a, m); a = m }
        if t2 < 2 { let m = at(t2, boundX(t2)); piece(a, m); a = m }
        piece(a, p1)
    }

    /// Accumulates the signed area one segment (inside `0 ≤ x ≤ width`) sweeps in each row.
    private static func addLine(from a: Point, to b: Point, height: Int, stride: Int, into acc: UnsafeMutableBufferPointer<Float>, touched: Touched) {
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
            // Floor and ceiling by conversion (both are ≥ 0 here): no libm call per row.
            let ia = Int(xa), ib = Double(Int(xb)) < xb ? Int(xb) + 1 : Int(xb)
            let xaFloor = Double(ia), xbCeil = Double(ib)
            touched.mark(y, ia, max(ib, ia + 1))
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
