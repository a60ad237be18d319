import GeoBase
import GeoCore
import MapData
import MapStyle
import Platform
import Synchronization

/// A feature ready to draw: geometry in normalised world units ([0, 1]², y south), the
/// properties expressions read, and the tile square it was cut to (vector tiles overlap by
/// their buffer; each tile draws only inside its square).
///
/// Immutable, and a class: a feature is handed to a layer's filter, its property lookups,
/// culling and painting many times a tile, and a reference is retained where a value of
/// three geometry arrays and a property dictionary was copied whole (each retained) at every
/// hand-over. A changed feature is a new one.
final class RenderFeature: Sendable {
    enum Kind { case point, line, polygon }
    let kind: Kind
    /// Points: one list of points. Lines: the lines. Polygons: rings (exterior, then holes) of each polygon.
    let points: [WorldPoint]
    let lines: [[WorldPoint]]
    let polygons: [[[WorldPoint]]]
    let expressionFeature: ExpressionFeature
    /// The tile the feature came from, nil for GeoJSON (drawn whole).
    let tile: CanonicalTile?
    /// A number only features with the same properties share (a vector tile layer's features
    /// with the same tags, ``PropertySets``), so what depends on nothing but the properties is
    /// worked out once per number (``PropertyMemo``); nil when none was given (GeoJSON).
    let propertySet: Int?

    init(kind: Kind, points: [WorldPoint] = [], lines: [[WorldPoint]] = [], polygons: [[[WorldPoint]]] = [],
         expressionFeature: ExpressionFeature, tile: CanonicalTile? = nil, propertySet: Int? = nil) {
        self.kind = kind
        self.points = points
        self.lines = lines
        self.polygons = polygons
        self.expressionFeature = expressionFeature
        self.tile = tile
        self.propertySet = propertySet
    }
}

/// The numbers of ``RenderFeature/propertySet``: taken in blocks from one counter for the
/// process, so a number never names two sets of properties (two tiles, two decodes of a tile).
enum PropertySets {
    private static let next = Atomic<Int>(0)

    /// The first of `count` numbers no one else is given.
    static func reserve(_ count: Int) -> Int { next.add(count, ordering: .relaxed).oldValue }
}

struct WorldPoint { var x: Double, y: Double }

extension RenderFeature {
    /// The feature with its positions on the grid of the zoom-`z` tiles' 8192 units, as
    /// MapLibre's GeoJSON source (geojson-vt) stores them in the tiles it cuts.
    func snapped(toTileZoom z: Int) -> RenderFeature {
        let units = Double(1 << z) * 8192
        func snap(_ p: WorldPoint) -> WorldPoint { WorldPoint(x: (p.x * units).rounded() / units, y: (p.y * units).rounded() / units) }
        return RenderFeature(kind: kind, points: points.map(snap), lines: lines.map { $0.map(snap) }, polygons: polygons.map { $0.map { $0.map(snap) } },
                             expressionFeature: expressionFeature, tile: tile, propertySet: propertySet)
    }
}

/// Loading of a style's feature sources for a view: GeoJSON documents (inline or by URL) and
/// vector tiles (Mapbox Vector Tile 2.1, gzip or plain) at the zoom the view needs.
enum FeatureLoading {
    /// GeoJSON documents larger than this are refused, bytes.
    static let maximumGeoJSONSize = 256 << 20

    /// The features of a GeoJSON source (`data` inline or a URL read by `load`).
    static func geoJSON(_ source: StyleSource, load: (String) throws -> [UInt8]) throws -> [RenderFeature] {
        let bytes: Data
        switch source.data {
        case .string(let url)?:
            let b = try load(url)
            guard b.count <= maximumGeoJSONSize else { throw StyleRenderError("GeoJSON of \(b.count) bytes, more than \(maximumGeoJSONSize)") }
            bytes = Data(b)
        case let json?: bytes = try JSONEncoder().encode(json)
        case nil: return []
        }
        let features: [GeoJSONFeature]
        switch try GeoJSON(data: bytes) {
        case .geometry(let g): features = [GeoJSONFeature(geometry: g)]
        case .feature(let f): features = [f]
        case .featureCollection(let fs): features = fs
        }
        var out: [RenderFeature] = []
        for f in features {
            guard let g = f.geometry else { continue }
            var ef = ExpressionFeature()
            ef.properties = (f.properties ?? [:]).mapValues(ExpressionValue.init)
            if let id = f.id { ef.id = ExpressionValue(id) }
            append(g, ef, into: &out)
        }
        return out
    }

    /// A position's world point: its longitude as written (``GeoJSONPosition/longitude``, so a
    /// line may run past ±180°), its latitude within Web Mercator's.
    private static func world(_ p: GeoJSONPosition) -> WorldPoint {
        let lat = min(max(p.coordinate.latitude, -85.051129), 85.051129)
        let w = WebMercator.worldPoint(Coordinate(uncheckedLatitude: lat, longitude: p.longitude))
        return WorldPoint(x: w.x, y: w.y)
    }

    private static func append(_ g: GeoJSONGeometry, _ ef: ExpressionFeature, into out: inout [RenderFeature]) {
        var ef = ef
        switch g {
        case .point(let p):
            ef.geometryType = "Point"
            out.append(RenderFeature(kind: .point, points: [world(p)], expressionFeature: ef))
        case .multiPoint(let ps):
            ef.geometryType = "Point"
            out.append(RenderFeature(kind: .point, points: ps.map(world), expressionFeature: ef))
        case .lineString(let l):
            ef.geometryType = "LineString"
            out.append(RenderFeature(kind: .line, lines: [l.map(world)], expressionFeature: ef))
        case .multiLineString(let ls):
            ef.geometryType = "LineString"
            out.append(RenderFeature(kind: .line, lines: ls.map { $0.map(world) }, expressionFeature: ef))
        case .polygon(let rings):
            ef.geometryType = "Polygon"
            out.append(RenderFeature(kind: .polygon, polygons: [rings.map { $0.map(world) }], expressionFeature: ef))
        case .multiPolygon(let polys):
            ef.geometryType = "Polygon"
            out.append(RenderFeature(kind: .polygon, polygons: polys.map { $0.map { $0.map(world) } }, expressionFeature: ef))
        case .geometryCollection(let gs):
            for child in gs { append(child, ef, into: &out) }
        }
    }

    /// The tiles `z/x/y` covering a world rectangle at zoom `z`: rows limited to the world,
    /// columns not (a column left or right of the world is a copy of the tile `x mod 2^z`
    /// there, as MapLibre repeats the world; within one world either side).
    static func tiles(covering r: WorldRect, zoom z: Int) -> [CanonicalTile] {
        let n = Double(1 << z)
        let x0 = max(-(1 << z), Int((r.minX * n).rounded(.down))), x1 = min(2 * (1 << z) - 1, Int((r.maxX * n).rounded(.down)))
        let y0 = max(0, Int((r.minY * n).rounded(.down))), y1 = min((1 << z) - 1, Int((r.maxY * n).rounded(.down)))
        guard x0 <= x1, y0 <= y1, (x1 - x0 + 1) * (y1 - y0 + 1) <= 4096 else { return [] }
        var out: [CanonicalTile] = []
        for y in y0...y1 { for x in x0...x1 { out.append(CanonicalTile(z: z, x: x, y: y)) } }
        return out
    }

    /// A tile URL template filled in (`{z}`, `{x}` within the world, `{y}`; `{y}` counted from the south for `tms`).
    static func url(_ template: String, _ t: CanonicalTile, tms: Bool) -> String {
        let y = tms ? (1 << t.z) - 1 - t.y : t.y
        let n = 1 << t.z, x = ((t.x % n) + n) % n
        return template.replacing("{z}", with: String(t.z)).replacing("{x}", with: String(x)).replacing("{y}", with: String(y))
    }

    /// The features of one vector tile, by source-layer name.
    static func vectorTile(_ bytes: [UInt8], _ t: CanonicalTile) throws -> [String: [RenderFeature]] {
        var out: [String: [RenderFeature]] = [:]
        let n = Double(1 << t.z)
        // The layer being read: its name, extent, value table as expression values (converted
        // once for all its features), its features so far.
        var name = "", keys: [String] = [], values: [ExpressionValue] = [], extent = 4096.0
        var features: [RenderFeature] = []
        // Features with the same tags (a tile's roads of one class) share one property
        // dictionary, made once, and its number: the first set's `base`, the next `base + 1`, …
        // Found by a hash of the tags (`FNV1a64` over the indexes) and compared, so a feature
        // whose set was seen makes no array of its tags.
        var setTags: [[UInt32]] = [], setProperties: [[String: ExpressionValue]] = []
        var byHash: [UInt64: [Int]] = [:]
        var base = 0
        func world(_ p: MapData.TilePoint) -> WorldPoint {
            WorldPoint(x: (Double(t.x) + Double(p.x) / extent) / n, y: (Double(t.y) + Double(p.y) / extent) / n)
        }
        func world(_ part: UnsafeBufferPointer<MapData.TilePoint>) -> [WorldPoint] { part.map(world) }
        // Layer names are unique in a tile (the decode checks it, MVT 2.1 §4.1).
        func finishLayer() { if !name.isEmpty { out[name] = features } }
        // The geometries as checking the tile decoded them: not decoded again, nor kept in tile units.
        try VectorTile.decode(stored: bytes) { layer, count in
            finishLayer()
            name = layer.name
            keys = layer.keys
            extent = Double(layer.extent)
            values = layer.values.map {
                switch $0.mapValue {
                case .string(let s): .string(s)
                case .int(let i): .number(Double(i))
                case .double(let d): .number(d)
                case .bool(let b): .boolean(b)
                }
            }
            features = []
            features.reserveCapacity(count)
            setTags = []
            setProperties = []
            byHash = [:]
            base = PropertySets.reserve(count)
        } feature: { f in
            var ef = ExpressionFeature()
            let tags = f.tags
            var fnv = FNV1a64()
            for t in tags { fnv.mix(UInt64(t)) }
            let hash = fnv.value
            let set: Int
            if let i = byHash[hash]?.first(where: { setTags[$0].elementsEqual(tags) }) {
                ef.properties = setProperties[i]
                set = base + i
            } else {
                // A property per tag pair (the last of a key repeated wins): the dictionary made at its size.
                ef.properties.reserveCapacity(tags.count / 2)
                for j in stride(from: 0, to: tags.count - 1, by: 2) { ef.properties[keys[Int(tags[j])]] = values[Int(tags[j + 1])] }
                set = base + setTags.count
                byHash[hash, default: []].append(setTags.count)
                setTags.append(Array(tags))
                setProperties.append(ef.properties)
            }
            if let id = f.id { ef.id = .number(Double(id)) }
            switch f.type {
            case .unknown: return
            case .point:
                ef.geometryType = "Point"
                features.append(RenderFeature(kind: .point, points: world(f.points), expressionFeature: ef, tile: t, propertySet: set))
            case .lineString:
                ef.geometryType = "LineString"
                features.append(RenderFeature(kind: .line, lines: (0..<f.partCount).map { world(f.part($0)) }, expressionFeature: ef, tile: t, propertySet: set))
            case .polygon:
                ef.geometryType = "Polygon"
                let polygons = (0..<f.polygonCount).map { f.rings(ofPolygon: $0).map { world(f.part($0)) } }
                features.append(RenderFeature(kind: .polygon, polygons: polygons, expressionFeature: ef, tile: t, propertySet: set))
            }
        }
        finishLayer()
        return out
    }
}

/// A resource the style names could not be used.
public struct StyleRenderError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
