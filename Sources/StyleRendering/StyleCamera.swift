public import GeoCore
import MapData
public import MapStyle
public import MapRenderer

/// Where a style is looked at from, in MapLibre's conventions: zoom in a 512-pixel world at
/// zoom 0, bearing in degrees clockwise (the compass direction at the top of the image), an
/// image of `width × height` CSS pixels drawn at `pixelRatio` device pixels each.
public struct StyleCamera: Sendable, Equatable {
    public var longitude: Double, latitude: Double
    public var zoom: Double
    public var bearing: Double
    /// Degrees from straight down, drawn up to MapLibre's default maximum of 60° (``Perspective``).
    public var pitch: Double
    public var width: Int, height: Int
    public var pixelRatio: Double

    public init(longitude: Double = 0, latitude: Double = 0, zoom: Double = 0, bearing: Double = 0, pitch: Double = 0,
                width: Int = 512, height: Int = 512, pixelRatio: Double = 1) {
        self.longitude = longitude
        self.latitude = latitude
        self.zoom = zoom
        self.bearing = bearing
        self.pitch = pitch
        self.width = width
        self.height = height
        self.pixelRatio = pixelRatio
    }

    /// The style's own camera (`center`, `zoom`, `bearing`, `pitch`; 0 where absent), for an image of the given size.
    public init(style: StyleDocument, width: Int, height: Int, pixelRatio: Double) {
        self.init(longitude: style.center?.longitude ?? 0, latitude: style.center?.latitude ?? 0, zoom: style.zoom ?? 0,
                  bearing: style.bearing, pitch: style.pitch, width: width, height: height, pixelRatio: pixelRatio)
    }

    /// The style's camera with what the caller gives in place of the style's (`geo snapshot
    /// --center`, `--zoom`, `--bearing`, `--pitch`): nil keeps the style's value.
    public init(style: StyleDocument, width: Int, height: Int, pixelRatio: Double,
                center: Coordinate?, zoom: Double?, bearing: Double?, pitch: Double?) {
        self.init(style: style, width: width, height: height, pixelRatio: pixelRatio)
        if let center { (latitude, longitude) = (center.latitude, center.longitude) }
        if let zoom { self.zoom = zoom }
        if let bearing { self.bearing = bearing }
        if let pitch { self.pitch = pitch }
    }

    /// The camera that draws a metatile `block` of 256-pixel raster tiles (`geo tiles render
    /// --style`, `geo serve`'s raster tiles): its centre, looking straight down, at MapLibre
    /// zoom z − 1 (a 256-pixel tile of zoom z covers what 256 pixels of MapLibre's 512-pixel
    /// world at zoom z − 1 do), the block's size, `pixelRatio` device pixels per tile pixel.
    public init(block: Metatile, pixelRatio: Int) {
        self.init(longitude: block.center.longitude, latitude: block.center.latitude, zoom: Double(block.zoom) - 1,
                  width: block.columns.count * Metatile.tileSize, height: block.rows.count * Metatile.tileSize, pixelRatio: Double(pixelRatio))
    }

    /// Image side in device pixels.
    public var pixelWidth: Int { Int((Double(width) * pixelRatio).rounded()) }
    public var pixelHeight: Int { Int((Double(height) * pixelRatio).rounded()) }
}

/// The camera as a map from normalised world positions (Web Mercator, [0, 1]², y south) to
/// device pixels.
struct ScreenTransform {
    /// The world point at the image's centre; `centerX` moves by whole worlds to draw a copy
    /// (and both to place a tile's labels about its own centre).
    var centerX: Double
    var centerY: Double
    /// Device pixels per world unit: 512 · 2^zoom · pixel ratio.
    let scale: Double
    let cosB: Double, sinB: Double
    /// Device pixels from the image's corner to its centre (0 to place a tile's labels about its centre).
    var halfWidth: Double, halfHeight: Double
    let pixelRatio: Double
    /// The camera's tilt, nil looking straight down (then the ground is the image).
    var perspective: Perspective?

    init(_ camera: StyleCamera) {
        let lat = min(max(camera.latitude, -85.051129), 85.051129)
        let c = WebMercator.worldPoint(Coordinate(uncheckedLatitude: lat, longitude: camera.longitude))
        centerX = c.x
        centerY = c.y
        pixelRatio = camera.pixelRatio
        scale = 512 * pow(2, camera.zoom) * camera.pixelRatio
        let b = camera.bearing * .pi / 180
        cosB = cos(b)
        sinB = sin(b)
        halfWidth = Double(camera.pixelWidth) / 2
        halfHeight = Double(camera.pixelHeight) / 2
        perspective = Perspective(camera)
    }

    /// Whether the map is turned (tiles are then not clipped to axis-aligned squares).
    var isRotated: Bool { abs(sinB) > 1e-12 }

    /// The device pixel of a world position; `wrap` adds whole worlds (−1, 0, 1) for the copies either side.
    func point(_ x: Double, _ y: Double) -> Point {
        let g = groundOffset(x, y)
        guard let perspective else { return Point(x: g.x + halfWidth, y: g.y + halfHeight) }
        let p = perspective.project(g.x, g.y)
        return Point(x: p.x + halfWidth, y: p.y + halfHeight)
    }

    /// A world position on the ground seen from above: device pixels from the image's centre, turned with the bearing.
    func groundOffset(_ x: Double, _ y: Double) -> Point {
        let dx = (x - centerX) * scale, dy = (y - centerY) * scale
        return Point(x: dx * cosB + dy * sinB, y: -dx * sinB + dy * cosB)
    }

    /// How much larger than at the image's centre a length on the ground at a world position
    /// shows (1 without tilt).
    func depthScale(_ x: Double, _ y: Double) -> Double {
        guard let perspective else { return 1 }
        return perspective.scale(groundOffset(x, y).y)
    }

    /// The device pixels of world positions (``point(_:_:)``), each moved by `offset`.
    func points(_ ps: [WorldPoint], moved offset: Point) -> [Point] {
        ps.map { let p = point($0.x, $0.y); return Point(x: p.x + offset.x, y: p.y + offset.y) }
    }

    /// A polygon ring's device pixels (``point(_:_:)``), each moved by `offset`, and under a
    /// tilt each point's depth (GL's clip-space `w`, 1 at the image's centre). Tilted, the ring
    /// is first cut on the ground where it comes nearer the eye than ``Perspective/nearScale``
    /// magnifies (``clippedNear(_:below:)``), as GL clips a fill's triangles at its near plane:
    /// projected whole, the points of a ring reaching behind the eye (a z14 tile's land cover
    /// under a camera pitched 45° at z15, OSM Bright over Andorra) came out mirrored at the top
    /// of the image, and the fill drew wedges across it.
    func ring(_ ps: [WorldPoint], moved offset: Point) -> (points: [Point], depths: [Double]?) {
        guard let perspective else { return (points(ps, moved: offset), nil) }
        let limit = perspective.nearLimit
        var ground = ps.map { groundOffset($0.x, $0.y) }
        if ground.contains(where: { $0.y > limit }) { ground = Self.clippedNear(ground, below: limit) }
        var out: [Point] = [], depths: [Double] = []
        out.reserveCapacity(ground.count)
        depths.reserveCapacity(ground.count)
        for g in ground {
            let p = perspective.project(g.x, g.y)
            out.append(Point(x: p.x + halfWidth + offset.x, y: p.y + halfHeight + offset.y))
            depths.append(1 / perspective.scale(g.y))
        }
        return (out, depths)
    }

    /// The part of a closed ring (ground offsets) whose y is at most `limit`
    /// (``Perspective/clipNear(count:below:y:corner:cut:)``).
    static func clippedNear(_ ring: [Point], below limit: Double) -> [Point] {
        var out: [Point] = []
        Perspective.clipNear(count: ring.count, below: limit, y: { ring[$0].y }, corner: { out.append(ring[$0]) }, cut: { i, j, t in
            out.append(Point(x: ring[i].x + (ring[j].x - ring[i].x) * t, y: limit))
        })
        return out
    }

    /// World positions on the ground seen from above (``groundOffset(_:_:)``), each moved by `offset`.
    func groundOffsets(_ ps: [WorldPoint], moved offset: Point) -> [Point] {
        ps.map { let p = groundOffset($0.x, $0.y); return Point(x: p.x + offset.x, y: p.y + offset.y) }
    }

    /// The offset in device pixels of a `*-translate` value `t` (CSS pixels), `anchor` giving
    /// its `*-translate-anchor` (asked only when the offset is not zero): as it is on the
    /// screen for `viewport`, else in map axes turned with the map (``mapOffset(_:_:)``).
    func translation(_ t: ExpressionValue, anchor: () -> ExpressionValue) -> Point {
        // The two numbers read in place (no array made per feature for the default [0, 0]).
        let x: Double, y: Double
        switch t {
        case .numberArray(let n) where n.count == 2: (x, y) = (n[0], n[1])
        case .array(let items) where items.count == 2:
            guard let a = items[0].numberValue, let b = items[1].numberValue else { return Point(x: 0, y: 0) }
            (x, y) = (a, b)
        default: return Point(x: 0, y: 0)
        }
        guard x != 0 || y != 0 else { return Point(x: 0, y: 0) }
        if anchor().stringValue == "viewport" {
            return Point(x: x * pixelRatio, y: y * pixelRatio)
        }
        return mapOffset(x, y)
    }

    /// A screen offset in CSS pixels given in map axes (`translate-anchor: map`) turned to the screen.
    func mapOffset(_ dx: Double, _ dy: Double) -> Point {
        Point(x: (dx * cosB + dy * sinB) * pixelRatio, y: (-dx * sinB + dy * cosB) * pixelRatio)
    }

    /// The world position (normalised) a device pixel position shows: the inverse of ``point(_:_:)``.
    func world(_ px: Double, _ py: Double) -> WorldPoint {
        var gx = px - halfWidth, gy = py - halfHeight
        if let perspective { let g = perspective.unproject(gx, gy); (gx, gy) = (g.x, g.y) }
        return WorldPoint(x: centerX + (gx * cosB - gy * sinB) / scale, y: centerY + (gx * sinB + gy * cosB) / scale)
    }

    /// The world rectangle the image shows (its corners' bounds), plus `margin` device pixels.
    func visibleWorld(margin: Double) -> WorldRect {
        let corners = [(-margin, -margin), (2 * halfWidth + margin, -margin), (-margin, 2 * halfHeight + margin), (2 * halfWidth + margin, 2 * halfHeight + margin)].map { p in let w = world(p.0, p.1); return MapPoint(x: w.x, y: w.y) }
        return WorldRect(enclosing: corners)!
    }
}

import Platform
