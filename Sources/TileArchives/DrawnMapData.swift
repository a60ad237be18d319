public import GeoCore
public import MapData
import OSMImport
import Platform

/// The map data a view draws (`geo snapshot`, `geo map`): an OpenStreetMap file or the sample
/// city read whole, or a vector tile archive read by region as the view moves.
public enum DrawnMapData: Sendable {
    /// Features read whole: an OpenStreetMap extract, or the sample city.
    case features([MapFeature])
    /// A `.pmtiles` or `.mbtiles` archive, read tile by tile.
    case tiles(TiledMapFeatures)

    /// Opens `path`: a `.pmtiles` / `.mbtiles` archive by region, an `.osm.pbf`, `.pbf`, `.osm`
    /// or `.osm.gz` extract whole (`MapDataExtraction`); nil is the sample city (`SampleCity`).
    /// - Parameters:
    ///   - cachedTiles: decoded archive tiles kept between views (`TiledMapFeatures`).
    ///   - onDamagedTile: told once of each archive tile that does not decode.
    /// - Throws: `DrawnMapDataError.notMapData` for another kind of file, `.damaged` with the
    ///   reader's error for a file that does not open or read; the sample city's own errors.
    public static func open(_ path: String?, cachedTiles: Int = 0,
                            onDamagedTile: @escaping @Sendable (_ z: Int, _ x: Int, _ y: Int, _ error: any Error) -> Void = { _, _, _, _ in }) throws -> DrawnMapData {
        guard let path else { return .features(try SampleCity.generate().mapFeatures()) }
        if TileArchiveKind(path: path) != nil {
            do { return .tiles(TiledMapFeatures(try MapSources.open(path), cachedTiles: cachedTiles, onDamagedTile: onDamagedTile)) } catch {
                throw DrawnMapDataError.damaged(path, error)
            }
        }
        let lower = path.lowercased()
        guard [".osm.pbf", ".pbf", ".osm", ".osm.gz"].contains(where: { lower.hasSuffix($0) }) else { throw DrawnMapDataError.notMapData(path) }
        do { return .features(try MapDataExtraction.read(url: URL(fileURLWithPath: path)).features) } catch {
            throw DrawnMapDataError.damaged(path, error)
        }
    }

    /// The features read whole; none for an archive.
    public var wholeFeatures: [MapFeature] {
        if case .features(let features) = self { features } else { [] }
    }

    /// The archive read by region; nil for features read whole.
    public var archive: TiledMapFeatures? {
        if case .tiles(let archive) = self { archive } else { nil }
    }

    /// The data as one vector `MapSource`, a style's source: an archive's tiles as stored, or
    /// the features tiled in memory (`FeatureMapSource` named `name`).
    /// - Throws: `MapDataError` when the features cannot be tiled.
    public func mapSource(name: String) throws(MapDataError) -> any MapSource {
        switch self {
        case .tiles(let archive): archive.source
        case .features(let features): try FeatureMapSource(features: features, name: name)
        }
    }

    /// The area the data covers: an archive's stated bounds, the features' box; nil for an
    /// archive that states none and for no features.
    public var bounds: BoundingBox? {
        switch self {
        case .tiles(let archive):
            return archive.source.metadata.bounds
        case .features(let features):
            guard features.contains(where: { $0.geometry.bounds != nil }) else { return nil }
            let b = TileArchiveWriter.bounds(of: features)
            return try? BoundingBox(south: b.south, west: b.west, north: b.north, east: b.east)
        }
    }

    /// Where a view of the data starts: an archive's metadata centre (0° 0° without one); the
    /// middle of the features' bounding box in Web Mercator (the sample city's centre for none).
    public var center: Coordinate {
        switch self {
        case .tiles(let archive):
            return archive.source.metadata.center?.coordinate ?? Coordinate(uncheckedLatitude: 0, longitude: 0)
        case .features(let features):
            var minX = 1.0, minY = 1.0, maxX = 0.0, maxY = 0.0
            for f in features {
                if let b = f.geometry.bounds { minX = min(minX, b.minX); minY = min(minY, b.minY); maxX = max(maxX, b.maxX); maxY = max(maxY, b.maxY) }
            }
            guard minX <= maxX else { return SampleCity.center }
            return MapPoint(x: (minX + maxX) / 2, y: (minY + maxY) / 2).coordinate
        }
    }
}

/// Why `DrawnMapData.open` has no map data for a file.
public enum DrawnMapDataError: Error, CustomStringConvertible {
    /// The file's name is of no map data format (the path).
    case notMapData(String)
    /// The file did not open or read: the path and the reader's error.
    case damaged(String, any Error)

    public var description: String {
        switch self {
        case .notMapData(let path): return "\(path): reads .osm.pbf, .osm, .osm.gz, .pmtiles and .mbtiles files"
        case .damaged(let path, let error): return "\(path): \(error)"
        }
    }
}
