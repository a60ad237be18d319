public import Foundation
public import GeoCore
public import MapData
public import MapRenderer
public import GeoBase

/// The world under the OpenStreetMap data at low zooms and on the globe: country outlines and
/// populated places from Natural Earth (1:110 m, public domain; `$LOCATIONKIT_DATA/world`),
/// read from GeoJSON bytes (RFC 7946) the caller loaded.
public struct WorldBase: Sendable {
    /// Country outlines as world polygons (normalised Web Mercator).
    public let countries: [MapPolygon]
    /// Populated places.
    public let cities: [City]

    /// A populated place: its name and position.
    public struct City: Hashable, Sendable {
        public var name: String
        public var coordinate: Coordinate
        public init(name: String, coordinate: Coordinate) {
            self.name = name
            self.coordinate = coordinate
        }
    }

    /// No countries or cities: the globe and a plain ocean (CONTRACT "Snapshots": never a failure).
    public static let empty = WorldBase(countries: [], cities: [])

    public init(countries: [MapPolygon], cities: [City]) {
        self.countries = countries
        self.cities = cities
    }

    /// Reads Natural Earth's countries (Polygon / MultiPolygon features) and populated places
    /// (Point features).
    /// - Throws: `GeoCoreError.invalidGeoJSON` naming the place of the first problem.
    public init(countriesGeoJSON: Data, citiesGeoJSON: Data?) throws(GeoCoreError) {
        var polygons: [MapPolygon] = []
        func add(_ rings: [[GeoJSONPosition]]) {
            guard let outer = rings.first else { return }
            let world = { (ring: [GeoJSONPosition]) in ring.map { MapPoint($0.coordinate) } }
            polygons.append(MapPolygon(exterior: world(outer), holes: rings.dropFirst().map(world)))
        }
        for feature in try Self.features(countriesGeoJSON) {
            switch feature.geometry {
            case .polygon(let rings): add(rings)
            case .multiPolygon(let parts): parts.forEach(add)
            default: continue
            }
        }
        var places: [City] = []
        if let citiesGeoJSON {
            for feature in try Self.features(citiesGeoJSON) {
                guard case .point(let p) = feature.geometry else { continue }
                let name: String = if case .string(let n)? = feature.properties?["name"] { n } else { "" }
                places.append(City(name: name, coordinate: p.coordinate))
            }
        }
        self.init(countries: polygons, cities: places)
    }

    /// The Natural Earth files of a base's folder (CONTRACT "Snapshots").
    public static let countriesFile = "ne_110m_countries.geojson", citiesFile = "ne_cities.geojson"

    /// The folder of the base: `$LOCATIONKIT_DATA/world`, `../shared/data/world` without it.
    public static func folder(environment: [String: String]) -> String {
        (environment["LOCATIONKIT_DATA"] ?? "../shared/data") + "/world"
    }

    /// The base in `folder`: its countries file and, when present, its cities file; `.empty`
    /// when the countries file is missing (never a failure). The caller does the reading, so
    /// the view stays free of files.
    /// - Parameter read: the bytes of the file at a path, nil when there is none (missing, or a
    ///   directory).
    /// - Throws: what `read` throws, or `GeoCoreError.invalidGeoJSON` for a damaged file.
    public init(folder: String, read: (String) throws -> [UInt8]?) throws {
        guard let countries = try read(folder + "/" + Self.countriesFile) else {
            self = .empty
            return
        }
        let cities = try read(folder + "/" + Self.citiesFile)
        try self.init(countriesGeoJSON: Data(countries), citiesGeoJSON: cities.map { Data($0) })
    }

    private static func features(_ data: Data) throws(GeoCoreError) -> [GeoJSONFeature] {
        switch try GeoJSON(data: data) {
        case .featureCollection(let features): features
        case .feature(let feature): [feature]
        case .geometry(let geometry): [GeoJSONFeature(geometry: geometry)]
        }
    }

    /// Camera zoom (MapLibre's, 512-pixel world at zoom 0) below which the base is drawn: above
    /// it 1:110 m coastlines are off by more than a few pixels, and the OSM data stands alone.
    public static let maximumZoom = 9.0

    /// How much of the base a view shows, by its camera zoom: a frame drawn directly and the
    /// raster tiles a frame is composed from decide it the same way, so that both show the same
    /// ground at every zoom (a tile's own zoom is not the camera's).
    public enum Detail: Hashable, Sendable {
        /// Nothing: at and above `maximumZoom` the OSM data stands alone on plain land.
        case none
        /// Countries on the ocean.
        case countries
        /// Countries and cities as dots (camera zoom 2 and above).
        case countriesAndCities

        public init(cameraZoom: Double) {
            self = cameraZoom >= WorldBase.maximumZoom ? .none : cameraZoom >= 2 ? .countriesAndCities : .countries
        }
    }

    /// Colours of the base.
    public static let space = Color(hex: 0x0B1526)
    public static let ocean = Color(hex: 0xAAD3DF)
    public static let countryOutline = Color(hex: 0xB9A9B4)
    public static let city = Color(hex: 0x5A5A5A)

    /// A ring as pieces within one world's width of `centreX`: the ring unwrapped so that
    /// consecutive points are less than half a world apart, then clipped (Sutherland–Hodgman)
    /// to the band `centreX ± 0.5` once for each copy of the world it reaches. The band stops a
    /// hair inside its edges, where the nearer copy of a point would be ambiguous.
    static func cut(_ ring: [MapPoint], around centreX: Double) -> [[MapPoint]] {
        guard var previous = ring.first else { return [] }
        var unwrapped = [previous]
        for p in ring.dropFirst() {
            let x = p.x - (p.x - previous.x).rounded()
            previous = MapPoint(x: x, y: p.y)
            unwrapped.append(previous)
        }
        let xs = unwrapped.map(\.x)
        guard let lo = xs.min(), let hi = xs.max() else { return [] }
        let half = 0.5 - 1e-9
        var pieces: [[MapPoint]] = []
        // Copies k of the ring shifted by k worlds that reach into the band.
        for k in Int((centreX - 0.5 - hi).rounded(.down))...Int((centreX + 0.5 - lo).rounded(.up)) {
            var piece = unwrapped.map { MapPoint(x: $0.x + Double(k), y: $0.y) }
            piece = clip(piece, keep: { $0.x >= centreX - half }, edge: centreX - half)
            piece = clip(piece, keep: { $0.x <= centreX + half }, edge: centreX + half)
            if piece.count > 2 { pieces.append(piece) }
        }
        return pieces
    }

    /// One Sutherland–Hodgman step against the vertical line x = `edge`.
    private static func clip(_ ring: [MapPoint], keep: (MapPoint) -> Bool, edge: Double) -> [MapPoint] {
        guard let last = ring.last else { return [] }
        var out: [MapPoint] = []
        var a = last
        for b in ring {
            let inA = keep(a), inB = keep(b)
            if inA != inB {
                let t = (edge - a.x) / (b.x - a.x)
                out.append(MapPoint(x: edge, y: a.y + t * (b.y - a.y)))
            }
            if inB { out.append(b) }
            a = b
        }
        return out
    }

    /// The first city whose name is `name`, ignoring case.
    public func city(named name: String) -> City? {
        let wanted = name.lowercased()
        return cities.first { $0.name.lowercased() == wanted }
    }

    /// Draws the countries in `land` with their outlines and the cities as dots as `detail`
    /// says (nothing for `.none`), through `projection`, over whatever the canvas holds. On a flat map centred at
    /// world x `flatCentreX`, rings are cut at the meridian opposite the centre first, so that
    /// no ring jumps across the whole map where the projection takes the nearer copy of the
    /// world (nil on the globe, where nothing wraps).
    public func draw(through projection: some RenderProjection, flatCentreX: Double?, land: Color, detail: Detail, on canvas: inout Canvas) {
        guard detail != .none else { return }
        let rings = countries.flatMap { c in flatCentreX.map { Self.cut(c.exterior, around: $0) } ?? [c.exterior] }
        var fill = Path()
        for ring in rings {
            let pixels = projection.pixelRing(ring)
            if pixels.count > 2 { fill.append(Path(polyline: pixels, closed: true)) }
        }
        canvas.fill(fill, color: land, rule: .nonZero)
        var outline = Path()
        for ring in rings {
            for line in projection.pixelLines(ring) { outline.append(Path(polyline: line)) }
        }
        canvas.stroke(outline, style: StrokeStyle(width: 0.8), color: Self.countryOutline)
        guard detail == .countriesAndCities else { return }
        var dots = Path()
        for c in cities {
            if let p = projection.pixel(for: MapPoint(c.coordinate)) { dots.append(Path(circleAt: p, radius: 1.8)) }
        }
        canvas.fill(dots, color: Self.city)
    }
}
