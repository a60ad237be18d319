import GeoCore
import Platform

/// The GeoJSON argument of `within` and `distance` (spec v8), as simple geometries in
/// longitude / latitude degrees.
struct GeometryFilter: Sendable {
    enum Kind: Sendable { case point, lineString, polygon }
    struct Simple: Sendable {
        var kind: Kind
        /// Points: one ring of one point each; lines: one ring; polygons: rings.
        var rings: [[LngLat]]
    }
    typealias LngLat = (lng: Double, lat: Double)

    var geometries: [Simple]

    /// Tile coordinates span 0 … 8192 per tile (MVT extent).
    static let extent = 8192.0

    static func parseWithin(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 2 else { return context.error("'within' expression requires exactly one argument, but found \(args.count - 1) instead.") }
        let polygons = geometries(of: args[1]).filter { $0.kind == .polygon }
        let valid: Bool = switch args[1].member("type") {
        case .string("FeatureCollection")?: !polygons.isEmpty
        case .string("Feature")?: ["Polygon", "MultiPolygon"].contains(args[1].member("geometry")?.member("type")?.string ?? "")
        case .string("Polygon")?, .string("MultiPolygon")?: true
        default: false
        }
        guard valid else { return context.error("'within' expression requires valid geojson object that contains polygon geometry type.") }
        return .within(GeometryFilter(geometries: polygons))
    }

    static func parseDistance(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 2 else { return context.error("'distance' expression requires exactly one argument, but found \(args.count - 1) instead.") }
        let type = args[1].member("type")?.string
        guard ["FeatureCollection", "Feature"].contains(type) || (type != nil && args[1].member("coordinates") != nil) else {
            return context.error("'distance' expression requires valid geojson object that contains polygon geometry type.")
        }
        return .distance(GeometryFilter(geometries: geometries(of: args[1])))
    }

    /// The simple geometries of a GeoJSON object: multi-geometries split, collections flattened.
    private static func geometries(of json: JSONValue) -> [Simple] {
        switch json.member("type")?.string {
        case "FeatureCollection":
            guard case .array(let features)? = json.member("features") else { return [] }
            return features.flatMap { geometries(of: $0.member("geometry") ?? .null) }
        case "Feature": return geometries(of: json.member("geometry") ?? .null)
        default: break
        }
        let coordinates = json.member("coordinates") ?? .null
        func position(_ p: JSONValue) -> LngLat? {
            guard case .array(let c) = p, c.count >= 2, case .number(let lng) = c[0], case .number(let lat) = c[1] else { return nil }
            return (lng, lat)
        }
        func line(_ l: JSONValue) -> [LngLat] { l.items.compactMap(position) }
        switch json.member("type")?.string {
        case "Point": return position(coordinates).map { [Simple(kind: .point, rings: [[$0]])] } ?? []
        case "MultiPoint": return coordinates.items.compactMap(position).map { Simple(kind: .point, rings: [[$0]]) }
        case "LineString": return [Simple(kind: .lineString, rings: [line(coordinates)])]
        case "MultiLineString": return coordinates.items.map { Simple(kind: .lineString, rings: [line($0)]) }
        case "Polygon": return [Simple(kind: .polygon, rings: coordinates.items.map(line))]
        case "MultiPolygon": return coordinates.items.map { Simple(kind: .polygon, rings: $0.items.map(line)) }
        default: return []
        }
    }

    /// World tile coordinates (extent × 2^z per world) of a position, rounded as MapLibre rounds them.
    static func tileCoordinates(_ p: LngLat, _ tile: CanonicalTile) -> TilePoint {
        let x = (180 + p.lng) / 360
        let y = (180 - 180 / .pi * log(tan(.pi / 4 + p.lat * .pi / 360))) / 360
        let scale = pow(2, Double(tile.z)) * extent
        return TilePoint(x: (x * scale).rounded(.toNearestOrAwayFromZero), y: (y * scale).rounded(.toNearestOrAwayFromZero))
    }

    /// Longitude and latitude of a point in the tile's own coordinates.
    static func position(_ p: TilePoint, _ tile: CanonicalTile) -> LngLat {
        let tiles = pow(2, Double(tile.z))
        let x = (p.x / extent + Double(tile.x)) / tiles
        let y = (p.y / extent + Double(tile.y)) / tiles
        return (x * 360 - 180, 360 / .pi * atan(exp((180 - y * 360) * .pi / 180)) - 90)
    }

    /// `within`: whether every point (or every line, wholly) of the feature lies inside one of
    /// the polygons, in the tile's world coordinates; false for other geometry types.
    func within(_ ctx: EvaluationContext) -> Bool {
        guard let feature = ctx.feature, let geometry = feature.geometry, let tile = ctx.canonical else { return false }
        let isPoint = feature.geometryType == "Point"
        guard isPoint || feature.geometryType == "LineString" else { return false }
        var polygonBox = Box()
        let polygons = geometries.map { g in g.rings.map { ring in ring.map { p in let t = Self.tileCoordinates(p, tile); polygonBox.add(t); return t } } }
        let worldSize = pow(2, Double(tile.z)) * Self.extent
        let shifted = geometry.map { $0.map { TilePoint(x: $0.x + Double(tile.x) * Self.extent, y: $0.y + Double(tile.y) * Self.extent) } }
        var featureBox = Box()
        var lines: [[TilePoint]]
        if isPoint {
            lines = shifted.map { $0.map { Self.wrap($0, polygonBox, worldSize) } }
            lines.joined().forEach { featureBox.add($0) }
        } else {
            lines = shifted
            lines.joined().forEach { featureBox.add($0) }
            if featureBox.maxX - featureBox.minX <= worldSize / 2 {
                featureBox = Box()
                lines = lines.map { $0.map { Self.wrap($0, polygonBox, worldSize) } }
                lines.joined().forEach { featureBox.add($0) }
            }
        }
        guard featureBox.strictlyInside(polygonBox) else { return false }
        if isPoint {
            return lines.joined().allSatisfy { p in polygons.contains { Planar.pointInPolygon(p, $0) } }
        }
        return lines.allSatisfy { line in
            polygons.contains { polygon in
                line.allSatisfy { Planar.pointInPolygon($0, polygon) }
                    && !zip(line, line.dropFirst()).contains { Planar.segmentCrossesPolygon($0, $1, polygon) }
            }
        }
    }

    /// A point moved by a world width towards the polygons when it lies more than half a world
    /// away from their bounding box (features across the antimeridian).
    private static func wrap(_ p: TilePoint, _ box: Box, _ worldSize: Double) -> TilePoint {
        guard p.x < box.minX || p.x > box.maxX else { return p }
        let half = worldSize / 2
        var shift = p.x - box.minX > half ? -worldSize : box.minX - p.x > half ? worldSize : 0
        if shift == 0 { shift = p.x - box.maxX > half ? -worldSize : box.maxX - p.x > half ? worldSize : 0 }
        return TilePoint(x: p.x + shift, y: p.y)
    }
}

/// An axis-aligned bounding box.
struct Box {
    var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
    mutating func add(_ p: TilePoint) {
        minX = min(minX, p.x); minY = min(minY, p.y); maxX = max(maxX, p.x); maxY = max(maxY, p.y)
    }
    func strictlyInside(_ other: Box) -> Bool {
        minX > other.minX && maxX < other.maxX && minY > other.minY && maxY < other.maxY
    }
}

/// Planar predicates on points, segments and polygons (rings of points; even-odd rule).
enum Planar {
    /// Ray casting; a point on an edge counts as `onBoundary`.
    static func pointInPolygon(_ p: TilePoint, _ rings: [[TilePoint]], onBoundary: Bool = false) -> Bool {
        var inside = false
        for ring in rings {
            for (a, b) in zip(ring, ring.dropFirst()) {
                let x1 = p.x - a.x, y1 = p.y - a.y, x2 = p.x - b.x, y2 = p.y - b.y
                if x1 * y2 - x2 * y1 == 0, x1 * x2 <= 0, y1 * y2 <= 0 { return onBoundary }
                if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            }
        }
        return inside
    }

    /// Whether segments a–b and c–d cross properly (not parallel, each straddling the other).
    static func segmentsCross(_ a: TilePoint, _ b: TilePoint, _ c: TilePoint, _ d: TilePoint) -> Bool {
        let px = b.x - a.x, py = b.y - a.y, qx = d.x - c.x, qy = d.y - c.y
        if qx * py - qy * px == 0 { return false }
        return straddles(a, b, c, d) && straddles(c, d, a, b)
    }

    /// Whether p1 and p2 lie strictly on opposite sides of the line q1–q2.
    private static func straddles(_ p1: TilePoint, _ p2: TilePoint, _ q1: TilePoint, _ q2: TilePoint) -> Bool {
        let x3 = q2.x - q1.x, y3 = q2.y - q1.y
        let d1 = (p1.x - q1.x) * y3 - x3 * (p1.y - q1.y)
        let d2 = (p2.x - q1.x) * y3 - x3 * (p2.y - q1.y)
        return (d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)
    }

    static func segmentCrossesPolygon(_ a: TilePoint, _ b: TilePoint, _ rings: [[TilePoint]]) -> Bool {
        rings.contains { ring in zip(ring, ring.dropFirst()).contains { segmentsCross(a, b, $0, $1) } }
    }
}

extension JSONValue {
    func member(_ name: String) -> JSONValue? { if case .object(let o) = self { o[name] } else { nil } }
    var string: String? { if case .string(let s) = self { s } else { nil } }
    var items: [JSONValue] { if case .array(let a) = self { a } else { [] } }
}
