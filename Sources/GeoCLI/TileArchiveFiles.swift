import MapData
import SystemIO
import TileArchives

/// Vector tile archives named on the command line, read by region as a view moves.
enum TileArchiveFiles {
    /// The archive `path` names (`.pmtiles`, `.mbtiles`) as features by region, each damaged
    /// tile reported once on standard error ("geo snapshot: PATH: tile 14/8529/5975: …; drawn
    /// without it"); nil for other files.
    /// - Parameter cachedTiles: decoded tiles kept between views (`TiledMapFeatures`).
    /// - Throws: `CommandLineFileError.damaged` for an archive that cannot be opened.
    static func open(_ path: String, command: String, cachedTiles: Int = 0) throws -> TiledMapFeatures? {
        guard TileArchiveKind(path: path) != nil else { return nil }
        let source: any MapSource
        do { source = try MapSources.open(path) } catch { throw CommandLineFileError.damaged(command, path, error) }
        return TiledMapFeatures(source, cachedTiles: cachedTiles) { z, x, y, error in
            try? FileDescriptor.standardError.writeAll("geo \(command): \(path): tile \(z)/\(x)/\(y): \(error); drawn without it\n")
        }
    }

    /// `--data` of `command` as the map data it draws (`DrawnMapData.open`; nil: the sample
    /// city), each damaged archive tile reported once on standard error as `open` does.
    /// - Throws: `CommandLineFileError`: 64 for a file of no map data format, 65 for a damaged
    ///   one; `checkInput`'s for a path that is no readable file.
    static func mapData(_ path: String?, command: String) throws -> DrawnMapData {
        guard let path else { return try DrawnMapData.open(nil) }
        try CommandLineFiles.checkInput(path)
        do {
            return try DrawnMapData.open(path) { z, x, y, error in
                try? FileDescriptor.standardError.writeAll("geo \(command): \(path): tile \(z)/\(x)/\(y): \(error); drawn without it\n")
            }
        } catch DrawnMapDataError.notMapData {
            throw CommandLineFileError(description: "geo \(command): --data \(path): reads .osm.pbf, .osm, .osm.gz, .pmtiles and .mbtiles files", status: 64)
        } catch DrawnMapDataError.damaged(_, let error) {
            throw CommandLineFileError.damaged(command, path, error)
        }
    }
}
