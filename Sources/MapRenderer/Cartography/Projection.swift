public import GeoCore
public import MapData

import Platform

/// How map positions reach the image: the caller's camera (Mercator, a tilted perspective, a
/// globe) hands the renderer this point transform, so MapRenderer needs no camera of its own.
public protocol RenderProjection {
    /// The pixel position of a world point (normalised Web Mercator, `MapPoint`), or nil when
    /// it is not visible (behind the globe, behind the camera).
    func pixel(for world: MapPoint) -> Point?
    /// The world rectangle that can be visible (minX, minY, maxX, maxY), for skipping features
    /// early; nil when the projection cannot say (then every feature is tried).
    var visibleWorldBounds: WorldRect? { get }
    /// The world rectangle whose geometry can reach the image, strokes included (inside
    /// `visibleWorldBounds`, which also holds features whose labels may reach it); features
    /// outside are not stroked or filled. Defaults to `visibleWorldBounds`.
    var geometryWorldBounds: WorldRect? { get }
}

extension RenderProjection {
    public var geometryWorldBounds: WorldRect? { visibleWorldBounds }
}

/// A flat Web Mercator view: a centre, a zoom (256 × 2^zoom pixels around the world), an
/// orientation (the compass direction at the top of the image, degrees clockwise from north)
/// and a size.
public struct MercatorViewport: RenderProjection, Sendable {
    public let center: MapPoint
    public let zoom: Double
    /// The compass direction at the top of the image, degrees clockwise from north, in [0, 360).
    public let orientation: Double
    public let width: Int
    public let height: Int
    /// Pixels per world unit: 256 × 2^zoom.
    public let pixelsPerWorldUnit: Double
    private let cosA: Double, sinA: Double

    /// - Throws: `RenderError.invalidStyle` for a zoom outside 0…24 or a non-finite orientation.
    public init(center: Coordinate, zoom: Double, orientation: Double = 0, width: Int, height: Int) throws(RenderError) {
        guard zoom.isFinite, (0...24).contains(zoom) else { throw RenderError(.invalidStyle, "zoom \(zoom) is outside 0…24") }
        guard orientation.isFinite else { throw RenderError(.invalidStyle, "orientation \(orientation) is not a number") }
        self.center = MapPoint(center)
        self.zoom = zoom
        // Wrapped into [0, 360) before it becomes radians: a finite 1e308 times π overflows to
        // infinity, whose sine is NaN.
        let heading = Bearing(degrees: orientation)
        self.orientation = heading.degrees
        self.width = width
        self.height = height
        pixelsPerWorldUnit = 256 * pow(2, zoom)
        // The map turns by −orientation so that the given heading points up.
        let a = -heading.radians
        cosA = cos(a)
        sinA = sin(a)
    }

    public func pixel(for world: MapPoint) -> Point? {
        // The nearer copy of the world across the antimeridian.
        var dx = world.x - center.x
        if dx > 0.5 { dx -= 1 } else if dx < -0.5 { dx += 1 }
        let x = dx * pixelsPerWorldUnit, y = (world.y - center.y) * pixelsPerWorldUnit
        return Point(x: Double(width) / 2 + cosA * x - sinA * y, y: Double(height) / 2 + sinA * x + cosA * y)
    }

    /// The world point under a pixel.
    public func world(at p: Point) -> MapPoint {
        let x = p.x - Double(width) / 2, y = p.y - Double(height) / 2
        // The inverse rotation.
        let wx = cosA * x + sinA * y, wy = -sinA * x + cosA * y
        return MapPoint(x: center.x + wx / pixelsPerWorldUnit, y: center.y + wy / pixelsPerWorldUnit)
    }

    public var visibleWorldBounds: WorldRect? {
        // Half a screen of margin: labels of features just outside still show.
        worldBounds(margin: Double(max(width, height)) / 2)
    }

    /// The image's world rectangle with a margin of half the widest road stroke (the day
    /// style's motorway, 12 px at zoom 16 with its casings, doubling per zoom level) and
    /// 32 px for joins and caps.
    public var geometryWorldBounds: WorldRect? {
        worldBounds(margin: min(32 + 8 * pow(2, zoom - 16), Double(max(width, height)) / 2))
    }

    /// The world rectangle around the image and `margin` pixels more on every side.
    private func worldBounds(margin: Double) -> WorldRect {
        let corners = [Point(x: 0, y: 0), Point(x: Double(width), y: 0), Point(x: 0, y: Double(height)), Point(x: Double(width), y: Double(height))].map(world(at:))
        let m = margin / pixelsPerWorldUnit
        return WorldRect(enclosing: corners)!.expanded(dx: m, dy: m)
    }

    /// Metres on the ground per pixel at the centre.
    public var metersPerPixel: Double {
        WebMercator.metersPerPixel(atLatitude: center.coordinate.latitude, zoom: zoom)
    }
}

extension RenderProjection {
    /// A world line as pixel lines: cut where it leaves the visible part, the cut placed by
    /// bisection between the last visible and first hidden point.
    public func pixelLines(_ line: [MapPoint]) -> [[Point]] {
        var out: [[Point]] = []
        var current: [Point] = []
        var previous: (MapPoint, Point?)?
        for w in line {
            let p = pixel(for: w)
            if let (pw, pp) = previous, (pp == nil) != (p == nil) {
                let edge = pp == nil ? boundary(hidden: pw, visible: w) : boundary(hidden: w, visible: pw)
                if let edge {
                    if p == nil { current.append(edge) } else { current = [edge] }
                }
            }
            if let p { current.append(p) } else if !current.isEmpty {
                if current.count > 1 { out.append(current) }
                current = []
            }
            previous = (w, p)
        }
        if current.count > 1 { out.append(current) }
        return out
    }

    /// A world ring as one pixel ring; hidden stretches are replaced by the straight line
    /// between their boundary points (exact for a flat view, an approximation on a globe).
    public func pixelRing(_ ring: [MapPoint]) -> [Point] {
        let lines = pixelLines(ring)
        return lines.count == 1 ? lines[0] : lines.flatMap { $0 }
    }

    /// The visible point nearest the hidden one along the segment, in 12 bisections.
    private func boundary(hidden: MapPoint, visible: MapPoint) -> Point? {
        var a = visible, b = hidden
        var best = pixel(for: visible)
        for _ in 0..<12 {
            let m = MapPoint(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
            if let p = pixel(for: m) { a = m; best = p } else { b = m }
        }
        return best
    }
}
