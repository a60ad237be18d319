/// A rectangle in normalised Web Mercator world units (`MapPoint`'s frame: `x` east, `y`
/// south, the world in [0, 1]²), edges included: the region a view shows, the data a tile
/// holds, a feature's bounding box. Empty when `minX > maxX` or `minY > maxY`.
public struct WorldRect: Hashable, Sendable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The whole world, [0, 1]².
    public static let world = WorldRect(minX: 0, minY: 0, maxX: 1, maxY: 1)

    /// A rectangle that meets nothing (no rectangle, no point).
    public static let empty = WorldRect(minX: 1, minY: 1, maxX: 0, maxY: 0)

    /// The square of XYZ tile `x`/`y` at zoom `z` ([x, x + 1] / 2^z × [y, y + 1] / 2^z).
    public init(tileZoom z: Int, x: Int, y: Int) {
        let n = Double(1 << z)
        self.init(minX: Double(x) / n, minY: Double(y) / n, maxX: Double(x + 1) / n, maxY: Double(y + 1) / n)
    }

    /// The smallest rectangle holding every point; nil for none.
    public init?(enclosing points: some Sequence<MapPoint>) {
        var r = WorldRect(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for p in points {
            r.minX = min(r.minX, p.x); r.maxX = max(r.maxX, p.x)
            r.minY = min(r.minY, p.y); r.maxY = max(r.maxY, p.y)
        }
        guard !r.isEmpty else { return nil }
        self = r
    }

    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }
    public var isEmpty: Bool { minX > maxX || minY > maxY }

    /// Whether the two share a point (touching edges count).
    public func intersects(_ other: WorldRect) -> Bool {
        maxX >= other.minX && minX <= other.maxX && maxY >= other.minY && minY <= other.maxY
    }

    /// Whether the point lies inside or on an edge.
    public func contains(_ p: MapPoint) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }

    /// Whether `other` lies wholly inside this rectangle (edges included).
    public func contains(_ other: WorldRect) -> Bool {
        minX <= other.minX && minY <= other.minY && maxX >= other.maxX && maxY >= other.maxY
    }

    /// The smallest rectangle holding both (the other one where one is empty).
    public func union(_ other: WorldRect) -> WorldRect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        return WorldRect(minX: min(minX, other.minX), minY: min(minY, other.minY), maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
    }

    /// The rectangle grown by `dx` on its west and east sides and by `dy` on its north and
    /// south sides (shrunk where they are negative).
    public func expanded(dx: Double, dy: Double) -> WorldRect {
        WorldRect(minX: minX - dx, minY: minY - dy, maxX: maxX + dx, maxY: maxY + dy)
    }
}
