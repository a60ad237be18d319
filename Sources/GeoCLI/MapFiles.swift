import ArgumentParser
import GeoBase
import MapRenderer
import TileArchives
import TileServer

/// `--data` of the commands that draw a map (`geo snapshot`, `geo map`).
struct MapDataOptions: ParsableArguments {
    @Option(name: .customLong("data"), help: "Map data: OpenStreetMap .osm.pbf, .osm or .osm.gz, or vector tiles .pmtiles or .mbtiles (default: the sample city).")
    var path: String?

    /// The map data `--data` names, the sample city without it (``open(_:command:cachedTiles:notMapData:)``).
    func mapData(command: String) throws -> DrawnMapData { try Self.open(path, command: command) }

    /// The map data at `path` (TileServer's `MapFiles.mapData`; nil: the sample city), each
    /// damaged archive tile reported once on standard error ("geo snapshot: PATH: tile
    /// 14/8529/5975: …; drawn without it").
    /// - Throws: as ``CommandLineFileError/mapFiles(command:notMapData:_:)``.
    static func open(_ path: String?, command: String, cachedTiles: Int = 0, notMapData: ((String) -> any Error)? = nil) throws -> DrawnMapData {
        try CommandLineFileError.mapFiles(command: command, notMapData: notMapData) {
            try MapFiles.mapData(path, cachedTiles: cachedTiles) { z, x, y, error in
                CommandLineFiles.note(command, "\(path ?? ""): tile \(z)/\(x)/\(y): \(error); drawn without it")
            }
        }
    }
}

extension CommandLineFileError {
    /// Runs `body`, a read of the files behind a drawn map (TileServer's `MapFiles`), and makes
    /// its failure one line: a path missing or unreadable 66 (`noInput`); map data of no
    /// format 64 naming `--data` (or `notMapData`'s error for the path); a damaged file 65
    /// naming `command` (the world base's as `geo world base: FOLDER: …`); a label font not
    /// installed 66 naming `command`. Any other error passes through.
    static func mapFiles<Result>(command: String?, notMapData: ((String) -> any Error)? = nil, _ body: () throws -> Result) throws -> Result {
        do { return try body() } catch { throw mapped(error, command: command, notMapData: notMapData) }
    }

    /// `error` as ``mapFiles(command:notMapData:_:)`` makes it.
    static func mapped(_ error: any Error, command: String?, notMapData: ((String) -> any Error)? = nil) -> any Error {
        switch error {
        case let error as MapFilesError where error.code == .noInput: noInput(error.message, error.location)
        case let error as MapFilesError where error.code == .notMapData:
            notMapData?(error.location) ?? Self("--data \(error.location): \(error.message)", status: 64, command: command)
        case let error as MapFilesError where error.code == .damagedWorldBase: Self("\(error.location): \(error.message)", status: 65, command: "world base")
        case let error as MapFilesError: Self("\(error.location): \(error.message)", status: 65, command: command)
        case let error as RenderError where error.code == .fontNotFound: Self(error.message, status: 66, command: command)
        default: error
        }
    }
}
