import MapData
import SystemIO
import TileArchives

/// Map data named on the command line (`--data`, `geo tiles render`'s input).
enum TileArchiveFiles {
    /// Reports each damaged tile of the archive `path` once on standard error ("geo snapshot:
    /// PATH: tile 14/8529/5975: …; drawn without it"), for `DrawnMapData.open`.
    static func reportingDamagedTiles(_ command: String, _ path: String) -> @Sendable (_ z: Int, _ x: Int, _ y: Int, _ error: any Error) -> Void {
        { z, x, y, error in
            try? FileDescriptor.standardError.writeAll("geo \(command): \(path): tile \(z)/\(x)/\(y): \(error); drawn without it\n")
        }
    }

    /// `--data` of `command` as the map data it draws (`DrawnMapData.open`; nil: the sample
    /// city), each damaged archive tile reported once on standard error.
    /// - Throws: `CommandLineFileError`: 64 for a file of no map data format, 65 for a damaged
    ///   one; `checkInput`'s for a path that is no readable file.
    static func mapData(_ path: String?, command: String) throws -> DrawnMapData {
        guard let path else { return try DrawnMapData.open(nil) }
        try CommandLineFiles.checkInput(path)
        do {
            return try DrawnMapData.open(path, onDamagedTile: reportingDamagedTiles(command, path))
        } catch DrawnMapDataError.notMapData {
            throw CommandLineFileError(description: "geo \(command): --data \(path): reads .osm.pbf, .osm, .osm.gz, .pmtiles and .mbtiles files", status: 64)
        } catch DrawnMapDataError.damaged(_, let error) {
            throw CommandLineFileError.damaged(command, path, error)
        }
    }
}
