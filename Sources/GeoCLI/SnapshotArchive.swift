import GeoCore
import MapData
import TileArchives
import ZlibCompression

/// A vector tile archive (`.pmtiles` or `.mbtiles`) as the data of `geo snapshot`: the tiles
/// that cover the view at the zoom nearest below the view's (the archive's deepest zoom at
/// most), decoded back to map features.
struct SnapshotArchive {
    private let pmtiles: PMTilesReader<PMTilesFile>?
    private let mbtiles: MBTilesReader?
    let minZoom: Int, maxZoom: Int
    /// The archive's centre, for a view without `--center`.
    let center: Coordinate?
    /// The area the archive says it covers (PMTiles header bounds, MBTiles `bounds`
    /// "west,south,east,north"); nil when it does not say.
    let bounds: BoundingBox?

    /// Opens `path` when it names an archive; nil for other files.
    /// - Throws: `MapDataError` for an archive that is damaged.
    init?(path: String) throws {
        let lower = path.lowercased()
        if lower.hasSuffix(".pmtiles") {
            let reader = try PMTilesReader(try PMTilesFile(path: path))
            pmtiles = reader
            mbtiles = nil
            minZoom = Int(reader.header.minZoom)
            maxZoom = Int(reader.header.maxZoom)
            center = try? Coordinate(latitude: Double(reader.header.centerLatE7) / 1e7, longitude: Double(reader.header.centerLonE7) / 1e7)
            let h = reader.header
            bounds = try? BoundingBox(south: Double(h.minLatE7) / 1e7, west: Double(h.minLonE7) / 1e7, north: Double(h.maxLatE7) / 1e7, east: Double(h.maxLonE7) / 1e7)
        } else if lower.hasSuffix(".mbtiles") {
            let reader = try MBTilesReader(path: path)
            let metadata = try reader.metadata()
            pmtiles = nil
            mbtiles = reader
            minZoom = metadata["minzoom"].flatMap { Int($0) } ?? 0
            maxZoom = metadata["maxzoom"].flatMap { Int($0) } ?? 14
            // MBTiles 1.3: "center" is "lon,lat,zoom".
            let c = metadata["center"]?.split(separator: ",").compactMap { Double($0) } ?? []
            center = c.count >= 2 ? try? Coordinate(latitude: c[1], longitude: c[0]) : nil
            let b = metadata["bounds"]?.split(separator: ",").compactMap { Double($0) } ?? []
            bounds = b.count == 4 ? try? BoundingBox(south: b[1], west: b[0], north: b[3], east: b[2]) : nil
        } else {
            return nil
        }
    }

    /// The features of the tiles over the world rectangle `bounds` at the tile zoom for `zoom`.
    /// - Throws: `MapDataError` for a tile that does not decode.
    func features(in bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double), zoom: Double) throws -> [MapFeature] {
        let z = min(max(Int(zoom.rounded(.down)), minZoom), maxZoom)
        let n = 1 << z
        func tile(_ v: Double) -> Int { min(max(Int((v * Double(n)).rounded(.down)), 0), n - 1) }
        var out: [MapFeature] = []
        for y in tile(bounds.minY)...tile(bounds.maxY) {
            for x in tile(bounds.minX)...tile(bounds.maxX) {
                let stored = try pmtiles?.tile(zoom: z, x: x, y: y) ?? mbtiles?.tile(zoom: z, x: x, y: y)
                guard var bytes = stored else { continue }
                // Tiles may be stored gzip-compressed (PMTiles tile compression, MBTiles custom).
                if bytes.count > 2, bytes[0] == 0x1F, bytes[1] == 0x8B { bytes = try Gzip.decompress(bytes) }
                for layer in try VectorTile(decoding: bytes).layers { out += try layer.mapFeatures(zoom: z, x: x, y: y) }
            }
        }
        return out
    }
}
