/// A vector outline on the image plane: contours of lines and Bézier curves, in pixels.
/// A value; the rasterizer flattens curves into lines when it fills.
public struct Path: Sendable {
    enum Element: Sendable {
        case move(Point)
        case line(Point)
        case quad(Point, Point)
        case cubic(Point, Point, Point)
        case close
    }

    private(set) var elements: [Element] = []

    public init() {}

    /// A closed contour through `points`, or an open one when `closed` is false.
    public init(polyline points: [Point], closed: Bool = false) {
        guard let first = points.first else { return }
        elements.reserveCapacity(points.count + 1)
        elements.append(.move(first))
        for p in points.dropFirst() { elements.append(.line(p)) }
        if closed { elements.append(.close) }
    }

    /// An axis-aligned rectangle, clockwise on screen.
    public init(rectX x: Double, y: Double, width: Double, height: Double) {
        self.init(polyline: [Point(x: x, y: y), Point(x: x + width, y: y), Point(x: x + width, y: y + height), Point(x: x, y: y + height)], closed: true)
    }

    /// A circle of `radius` pixels around `center`, as four cubic Béziers (the usual
    /// κ = 4(√2 − 1)/3 ≈ 0.5523 approximation, radial error below 0.03 %).
    public init(circleAt center: Point, radius r: Double) {
        let k = 0.552_284_749_831 * r
        let (cx, cy) = (center.x, center.y)
        move(to: Point(x: cx + r, y: cy))
        cubic(to: Point(x: cx, y: cy + r), control1: Point(x: cx + r, y: cy + k), control2: Point(x: cx + k, y: cy + r))
        cubic(to: Point(x: cx - r, y: cy), control1: Point(x: cx - k, y: cy + r), control2: Point(x: cx - r, y: cy + k))
        cubic(to: Point(x: cx, y: cy - r), control1: Point(x: cx - r, y: cy - k), control2: Point(x: cx - k, y: cy - r))
        cubic(to: Point(x: cx + r, y: cy), control1: Point(x: cx + k, y: cy - r), control2: Point(x: cx + r, y: cy - k))
        close()
    }

    public var isEmpty: Bool { elements.isEmpty }

    public mutating func move(to p: Point) { elements.append(.move(p)) }
    public mutating func line(to p: Point) { elements.append(.line(p)) }
    public mutating func quad(to p: Point, control: Point) { elements.append(.quad(control, p)) }
    public mutating func cubic(to p: Point, control1: Point, control2: Point) { elements.append(.cubic(control1, control2, p)) }
    public mutating func close() { elements.append(.close) }

    /// Appends every contour of `other`.
    public mutating func append(_ other: Path) { elements += other.elements }

    /// The path with `transform` applied to every point.
    public func applying(_ transform: AffineTransform) -> Path {
        var out = Path()
        out.elements = elements.map { e in
            switch e {
            case .move(let p): .move(transform.apply(p))
            case .line(let p): .line(transform.apply(p))
            case .quad(let c, let p): .quad(transform.apply(c), transform.apply(p))
            case .cubic(let c1, let c2, let p): .cubic(transform.apply(c1), transform.apply(c2), transform.apply(p))
            case .close: .close
            }
        }
        return out
    }

    /// One contour of straight lines.
    public struct Contour: Sendable {
        public var points: [Point]
        public var isClosed: Bool

        public init(points: [Point], isClosed: Bool) {
            self.points = points
            self.isClosed = isClosed
        }
    }

    /// The contours with curves replaced by lines no farther than `tolerance` pixels from them
    /// (the subdivision count from the second-difference bound of the control polygon, as in
    /// Sederberg's "Computer Aided Geometric Design" §10.6).
    public func flattened(tolerance: Double = 0.2) -> [Contour] {
        var contours: [Contour] = []
        var current: [Point] = []
        var start = Point(x: 0, y: 0)
        func finish(closed: Bool) {
            if current.count > 1 { contours.append(Contour(points: current, isClosed: closed)) }
            current = []
        }
        for e in elements {
            switch e {
            case .move(let p):
                finish(closed: false)
                current = [p]
                start = p
            case .line(let p):
                if current.isEmpty { current = [start] }
                current.append(p)
            case .quad(let c, let p):
                if current.isEmpty { current = [start] }
                let p0 = current[current.count - 1]
                let dd = (p0 - c * 2 + p).length
                let n = max(1, min(100, Int((dd / (4 * tolerance)).squareRoot().rounded(.up))))
                for i in 1...n {
                    let t = Double(i) / Double(n), u = 1 - t
                    current.append(Point(x: u * u * p0.x + 2 * u * t * c.x + t * t * p.x, y: u * u * p0.y + 2 * u * t * c.y + t * t * p.y))
                }
            case .cubic(let c1, let c2, let p):
                if current.isEmpty { current = [start] }
                let p0 = current[current.count - 1]
                let dd = max((p0 - c1 * 2 + c2).length, (c1 - c2 * 2 + p).length)
                let n = max(1, min(100, Int((3 * dd / (4 * tolerance)).squareRoot().rounded(.up))))
                for i in 1...n {
                    let t = Double(i) / Double(n), u = 1 - t
                    let a = u * u * u, b = 3 * u * u * t, cc = 3 * u * t * t, d = t * t * t
                    current.append(Point(x: a * p0.x + b * c1.x + cc * c2.x + d * p.x, y: a * p0.y + b * c1.y + cc * c2.y + d * p.y))
                }
            case .close:
                let last = current.last
                finish(closed: true)
                if let last { start = contours.last?.points.first ?? last }
            }
        }
        finish(closed: false)
        return contours
    }
}
