import Platform
public import GeoBase

/// Spherical ("Web") Mercator, EPSG:3857: WGS84 latitude/longitude onto a square plane in
/// metres on the sphere of radius 6 378 137 m (IOGP Guidance Note 7-2, §1.3.3.2).
public enum WebMercator {
    /// Sphere radius of EPSG:3857, metres (the WGS84 semi-major axis).
    public static let radius = 6_378_137.0
    /// Latitude limit where the projected square ends, degrees: atan(sinh(π)).
    public static let maxLatitude = 85.051_128_779_806_59
    /// Half the side of the projected square, metres: π·R.
    public static let halfExtent = Double.pi * radius

    /// Projects to EPSG:3857 metres; latitude is clamped to ±`maxLatitude`.
    public static func project(_ c: Coordinate) -> (x: Double, y: Double) {
        let lat = min(max(c.latitude, -maxLatitude), maxLatitude) * .pi / 180
        return (radius * c.longitude * .pi / 180, radius * log(tan(.pi / 4 + lat / 2)))
    }

    /// The coordinate of an EPSG:3857 point in metres.
    public static func unproject(x: Double, y: Double) -> Coordinate {
        // x / (πR) · 180 rather than x / R in radians: the world's edges (±πR) come out as
        // exactly ±180°, which the exact longitude reduction then keeps on the right side.
        let lon = x / halfExtent * 180
        let lat = (2 * atan(exp(y / radius)) - .pi / 2) * 180 / .pi
        return Coordinate(uncheckedLatitude: min(max(lat, -90), 90), longitude: Coordinate.normalizedLongitude(lon))
    }

    /// The point scale factor at a latitude: true metres × factor = projected metres.
    public static func scaleFactor(atLatitude latitude: Double) -> Double { 1 / cos(latitude * .pi / 180) }

    /// Ground metres per pixel at a zoom level for 256-pixel tiles (fractional zoom allowed).
    public static func metersPerPixel(atLatitude latitude: Double, zoom: Double, tileSize: Int = 256) -> Double {
        cos(latitude * .pi / 180) * 2 * halfExtent / (Double(tileSize) * pow(2, zoom))
    }

    /// Normalised "world" position in [0, 1]²: x east from −180°, y south from the top edge,
    /// the frame of XYZ tiles and of map cameras.
    public static func worldPoint(_ c: Coordinate) -> (x: Double, y: Double) {
        let p = project(c)
        return ((p.x + halfExtent) / (2 * halfExtent), (halfExtent - p.y) / (2 * halfExtent))
    }

    /// The coordinate of a normalised world position (see `worldPoint(_:)`).
    public static func coordinate(worldX x: Double, worldY y: Double) -> Coordinate {
        unproject(x: x * 2 * halfExtent - halfExtent, y: halfExtent - y * 2 * halfExtent)
    }
}

/// An XYZ ("slippy map") tile: the OSM / Google scheme, y counted down from the north edge.
public struct Tile: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Highest zoom level accepted: 2^z tiles fit in `Int32` columns up to z = 30.
    public static let maxZoom = 30

    public let x: Int
    public let y: Int
    public let zoom: Int

    /// Creates a tile.
    /// - Throws: `GeoCoreError.invalidArgument` if zoom is outside 0...30 or x, y outside 0..<2^zoom.
    public init(x: Int, y: Int, zoom: Int) throws(GeoCoreError) {
        guard (0...Tile.maxZoom).contains(zoom) else {
            throw GeoCoreError(.invalidArgument, "zoom \(zoom) is outside 0...\(Tile.maxZoom)")
        }
        let n = 1 << zoom
        guard (0..<n).contains(x), (0..<n).contains(y) else {
            throw GeoCoreError(.invalidArgument, "tile \(x)/\(y) is outside 0..<\(n) at zoom \(zoom)")
        }
        self.x = x; self.y = y; self.zoom = zoom
    }

    private init(unchecked x: Int, _ y: Int, _ zoom: Int) { self.x = x; self.y = y; self.zoom = zoom }

    /// The tile holding a coordinate at a zoom level (latitudes beyond ±85.0511° fall in the edge row).
    /// - Throws: `GeoCoreError.invalidArgument` if zoom is outside 0...30.
    public init(containing c: Coordinate, zoom: Int) throws(GeoCoreError) {
        guard (0...Tile.maxZoom).contains(zoom) else {
            throw GeoCoreError(.invalidArgument, "zoom \(zoom) is outside 0...\(Tile.maxZoom)")
        }
        let n = 1 << zoom
        let w = WebMercator.worldPoint(c)
        self.init(unchecked: min(max(Int((w.x * Double(n)).rounded(.down)), 0), n - 1),
                  min(max(Int((w.y * Double(n)).rounded(.down)), 0), n - 1), zoom)
    }

    /// The tile's extent; its north and south edges are Mercator latitudes.
    public var bounds: BoundingBox {
        let n = Double(1 << zoom)
        let nw = WebMercator.coordinate(worldX: Double(x) / n, worldY: Double(y) / n)
        let se = WebMercator.coordinate(worldX: Double(x + 1) / n, worldY: Double(y + 1) / n)
        // The east edge of the last column is +180°, which normalisation would turn into −180°.
        let east = x + 1 == 1 << zoom ? 180 : se.longitude
        // Edges come from the projection of valid tiles, so the box is valid by construction.
        return (try? BoundingBox(south: se.latitude, west: nw.longitude, north: nw.latitude, east: east)) ?? BoundingBox(nw)
    }

    /// The tile one zoom level up that contains this one, or nil at zoom 0.
    public var parent: Tile? { zoom == 0 ? nil : Tile(unchecked: x >> 1, y >> 1, zoom - 1) }

    /// The four tiles one zoom level down, in the order NW, NE, SW, SE; empty at `maxZoom`.
    public var children: [Tile] {
        guard zoom < Tile.maxZoom else { return [] }
        return [(0, 0), (1, 0), (0, 1), (1, 1)].map { Tile(unchecked: 2 * x + $0.0, 2 * y + $0.1, zoom + 1) }
    }

    /// The Bing Maps quadkey of the tile ("" at zoom 0).
    public var quadkey: String {
        String((0..<zoom).reversed().map { i -> Character in
            let digit = ((x >> i) & 1) | (((y >> i) & 1) << 1)
            return Character(String(digit))
        })
    }

    /// Every tile at `zoom` that intersects the box, row by row; a box crossing the
    /// antimeridian yields the tiles on both sides.
    /// - Throws: `GeoCoreError.invalidArgument` if zoom is outside 0...30.
    /// - Complexity: O(number of tiles returned).
    public static func covering(_ box: BoundingBox, zoom: Int) throws(GeoCoreError) -> [Tile] {
        var tiles: [Tile] = []
        for lon in box.longitudeIntervals {
            let nw = try Tile(containing: Coordinate(uncheckedLatitude: box.north, longitude: min(lon.lowerBound, 180 - 1e-12)), zoom: zoom)
            // The east edge at exactly +180° belongs to the last column.
            let se = try Tile(containing: Coordinate(uncheckedLatitude: box.south, longitude: min(lon.upperBound, 180 - 1e-12)), zoom: zoom)
            for y in nw.y...se.y {
                for x in nw.x...se.x { tiles.append(Tile(unchecked: x, y, zoom)) }
            }
        }
        return tiles
    }

    public var description: String { "\(zoom)/\(x)/\(y)" }
}
