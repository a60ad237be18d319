import Platform
public import GeoCore
public import GeoBase

extension CameraState {
    /// Screen samples per side of the view used to find the visible region.
    static let regionSamplesPerSide = 33

    /// The smallest box holding every geographic point the view shows, found from a 33 × 33 grid
    /// of screen points (the edges included), the Earth's outline between them (the horizon or
    /// the globe's limb, bisected between a sample that shows Earth and a neighbour that does
    /// not to 10⁻¹² of the view, since at the limb the angle grows as the square root of the
    /// screen distance), and the poles when they are in sight. Exact for an untilted Mercator
    /// view; otherwise an outline that curves between samples may bulge past the box by less
    /// than a thirty-second of the view. A box whose longitudes would span 360° or more spans
    /// the whole world, −180…180.
    /// - Complexity: O(1): at most about 10 000 screen-to-geo conversions.
    public var visibleRegion: BoundingBox {
        let n = Self.regionSamplesPerSide
        let grid = (0..<n).map { i in
            (0..<n).map { j in
                ScreenPoint(x: viewSize.width * Double(i) / Double(n - 1), y: viewSize.height * Double(j) / Double(n - 1))
            }
        }
        let seen = grid.map { column in column.map { coordinate(at: $0) } }
        var south = geoCenter.latitude, north = south, west = 0.0, east = 0.0 // longitudes relative to the centre
        func include(_ c: Coordinate) {
            south = min(south, c.latitude); north = max(north, c.latitude)
            let dl = (c.longitude - geoCenter.longitude).remainder(dividingBy: 360)
            west = min(west, dl); east = max(east, dl)
        }
        /// The last point showing Earth on the segment from `inside` (shows Earth) to `outside`.
        func outline(_ inside: ScreenPoint, _ outside: ScreenPoint) -> Coordinate? {
            var a = inside, b = outside, last: Coordinate?
            for _ in 0..<40 {
                let m = ScreenPoint(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
                if let c = coordinate(at: m) { a = m; last = c } else { b = m }
            }
            return last
        }
        for i in 0..<n {
            for j in 0..<n {
                guard let c = seen[i][j] else { continue }
                include(c)
                for (k, l) in [(i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)] where (0..<n).contains(k) && (0..<n).contains(l) && seen[k][l] == nil {
                    if let edge = outline(grid[i][j], grid[k][l]) { include(edge) }
                }
            }
        }
        var wholeLongitudes = east - west >= 360
        for pole in [90.0, -90.0] {
            guard let p = point(for: Coordinate(uncheckedLatitude: pole, longitude: 0)),
                  (0...viewSize.width).contains(p.x), (0...viewSize.height).contains(p.y) else { continue }
            if pole > 0 { north = 90 } else { south = -90 }
            wholeLongitudes = true
        }
        if wholeLongitudes {
            return (try? BoundingBox(south: south, west: -180, north: north, east: 180)) ?? BoundingBox(geoCenter)
        }
        let w = Coordinate.normalizedLongitude(geoCenter.longitude + west)
        var e = Coordinate.normalizedLongitude(geoCenter.longitude + east)
        if e == -180, east > 0 { e = 180 }
        return (try? BoundingBox(south: south, west: w, north: north, east: e)) ?? BoundingBox(geoCenter)
    }

    /// The tiles of a tile set with `tileSize`-pixel tiles that cover ``visibleRegion``, at the
    /// zoom whose tiles are drawn at their size or larger (MapLibre's covering zoom:
    /// ⌊zoomLevel + log₂(512 / tileSize)⌋), limited to the set's zoom range. When more than
    /// `maximumCount` tiles would be needed (a steep view towards the horizon) the zoom is
    /// lowered until they fit, so the work stays bounded.
    /// - Throws: `MapCameraError.invalidArgument` for a tile size that is not a power of two in
    ///   64…4096, a bad zoom range or a `maximumCount` below 1.
    /// - Complexity: O(tiles returned).
    public func coveringTiles(tileSize: Int = 512, zoomRange: ClosedRange<Int> = 0...Tile.maxZoom, maximumCount: Int = 1024) throws(MapCameraError) -> [Tile] {
        guard tileSize >= 64, tileSize <= 4096, tileSize & (tileSize - 1) == 0 else {
            throw MapCameraError(.invalidArgument, "tile size \(tileSize) must be a power of two in 64…4096")
        }
        guard zoomRange.lowerBound >= 0, zoomRange.upperBound <= Tile.maxZoom else {
            throw MapCameraError(.invalidArgument, "tile zoom range \(zoomRange) must lie within 0…\(Tile.maxZoom)")
        }
        guard maximumCount >= 1 else { throw MapCameraError(.invalidArgument, "maximumCount \(maximumCount) must be at least 1") }
        let box = visibleRegion
        var z = Int((zoomLevel + log2(512 / Double(tileSize))).rounded(.down))
        z = min(max(z, zoomRange.lowerBound), zoomRange.upperBound)
        while z > zoomRange.lowerBound, Self.tileCount(box, zoom: z) > maximumCount { z -= 1 }
        // The zoom is within 0…Tile.maxZoom, the only thing `covering` checks.
        return (try? Tile.covering(box, zoom: z)) ?? []
    }

    /// How many tiles `Tile.covering(box, zoom:)` returns, without listing them.
    private static func tileCount(_ box: BoundingBox, zoom: Int) -> Int {
        let n = Double(1 << zoom)
        func row(_ lat: Double) -> Double { min(max((WebMercator.worldPoint(Coordinate(uncheckedLatitude: lat, longitude: 0)).y * n).rounded(.down), 0), n - 1) }
        let rows = row(box.south) - row(box.north) + 1
        let columns = min(n, (box.longitudeSpan / 360 * n).rounded(.up) + 1)
        return Int(min(rows * columns, 1e15))
    }
}
