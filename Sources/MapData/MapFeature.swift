public import GeoCore

/// A position in normalised Web Mercator "world" units: `x` east from −180° and `y` south
/// from the north edge (85.0511° N), both in [0, 1] (`WebMercator.worldPoint(_:)`, the frame of
/// XYZ tiles). A tile (z, x, y) covers [x, x + 1) / 2^z × [y, y + 1) / 2^z.
public struct MapPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The world position of a coordinate.
    public init(_ coordinate: Coordinate) {
        let w = WebMercator.worldPoint(coordinate)
        self.init(x: w.x, y: w.y)
    }

    /// The coordinate of this world position.
    public var coordinate: Coordinate { WebMercator.coordinate(worldX: x, worldY: y) }
}

/// A polygon: one exterior ring and its holes. Rings are closed (first point repeated at the
/// end). Winding is not normalised here; the MVT encoder orients rings as the spec requires
/// (MVT 2.1 §4.3.4.4).
public struct MapPolygon: Hashable, Sendable {
    public var exterior: [MapPoint]
    public var holes: [[MapPoint]]

    public init(exterior: [MapPoint], holes: [[MapPoint]] = []) {
        self.exterior = exterior
        self.holes = holes
    }
}

/// A feature's geometry, shaped like the three MVT geometry types (each may be "multi").
public enum MapGeometry: Hashable, Sendable {
    /// One or more points.
    case points([MapPoint])
    /// One or more line strings of at least two points.
    case lines([[MapPoint]])
    /// One or more polygons with holes.
    case polygons([MapPolygon])

    /// The smallest world rectangle holding the geometry; nil when it has no point.
    public var bounds: WorldRect? {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        func add(_ ps: [MapPoint]) {
            for p in ps {
                minX = min(minX, p.x); maxX = max(maxX, p.x)
                minY = min(minY, p.y); maxY = max(maxY, p.y)
            }
        }
        switch self {
        case .points(let ps): add(ps)
        case .lines(let ls): ls.forEach(add)
        case .polygons(let polys): for p in polys { add(p.exterior) }
        }
        return minX <= maxX ? WorldRect(minX: minX, minY: minY, maxX: maxX, maxY: maxY) : nil
    }
}

/// A property value, the MVT 2.1 value types this schema uses (vector_tile.proto `Value`).
public enum MapValue: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    public var description: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .bool(let b): String(b)
        }
    }
}

/// One named property of a feature.
public struct MapProperty: Hashable, Sendable {
    public var key: String
    public var value: MapValue

    public init(_ key: String, _ value: MapValue) {
        self.key = key
        self.value = value
    }
}

/// A styled map feature: which layer it belongs to, its geometry in world units, its
/// properties (schema in `MapSchema`), and the first zoom level at which it is drawn.
public struct MapFeature: Hashable, Sendable {
    public var layer: MapLayer
    /// The OSM element it came from, as in OpenMapTiles: the OSM id (ways and relations keep
    /// their own id spaces; see `source`).
    public var id: Int64
    /// The kind of OSM element it came from.
    public var source: OSMElementType
    public var geometry: MapGeometry
    /// Properties in schema order (`class` first).
    public var properties: [MapProperty]
    /// The lowest zoom level (0…14) that shows the feature (`MapSchema`, "zoom rules").
    public var minZoom: Int

    public init(layer: MapLayer, id: Int64, source: OSMElementType, geometry: MapGeometry, properties: [MapProperty], minZoom: Int) {
        self.layer = layer
        self.id = id
        self.source = source
        self.geometry = geometry
        self.properties = properties
        self.minZoom = minZoom
    }

    /// The value of the first property with this key, or nil.
    public subscript(key: String) -> MapValue? {
        for p in properties where p.key == key { return p.value }
        return nil
    }

    /// The `class` property, the category styles key on.
    public var featureClass: String? {
        if case .string(let s) = self["class"] { return s }
        return nil
    }
}
