import ArgumentParser
import Platform
import MapCamera
import MapRenderer
import MapView
import SystemIO
import TileArchives

/// `--data` of the commands that draw a map (`geo snapshot`, `geo map`).
struct MapDataOptions: ParsableArguments {
    @Option(name: .customLong("data"), help: "Map data: OpenStreetMap .osm.pbf, .osm or .osm.gz, or vector tiles .pmtiles or .mbtiles (default: the sample city).")
    var path: String?

    /// The map data `--data` names, the sample city without it (``MapFiles/mapData(_:command:)``).
    func mapData(command: String) throws -> DrawnMapData { try MapFiles.mapData(path, command: command) }
}

/// The files behind every map `geo` draws, read through SystemIO: map data, the world base and
/// the label fonts.
enum MapFiles {
    /// The map data at `path` (`DrawnMapData.open`, keeping `cachedTiles` decoded archive
    /// tiles; nil: the sample city), each damaged archive tile reported once on standard error
    /// ("geo snapshot: PATH: tile 14/8529/5975: …; drawn without it").
    /// - Throws: `notMapData(path)` for a file of no map data format (without it
    ///   `CommandLineFileError` 64 naming `--data`); `CommandLineFileError` 65 for a damaged
    ///   one; `checkInput`'s for a path that is no readable file.
    static func mapData(_ path: String?, command: String, cachedTiles: Int = 0, notMapData: ((String) -> any Error)? = nil) throws -> DrawnMapData {
        guard let path else { return try DrawnMapData.open(nil) }
        try CommandLineFiles.checkInput(path)
        do {
            return try DrawnMapData.open(path, cachedTiles: cachedTiles) { z, x, y, error in
                CommandLineFiles.note(command, "\(path): tile \(z)/\(x)/\(y): \(error); drawn without it")
            }
        } catch DrawnMapDataError.notMapData {
            throw notMapData?(path) ?? CommandLineFileError("--data \(path): reads .osm.pbf, .osm, .osm.gz, .pmtiles and .mbtiles files", status: 64, command: command)
        } catch DrawnMapDataError.damaged(_, let error) {
            throw CommandLineFileError.damaged(path, error, command: command)
        }
    }

    /// The world base under `$LOCATIONKIT_DATA/world` (`WorldBase(folder:read:)`).
    /// - Throws: `CommandLineFileError.damaged` naming the folder.
    static func worldBase() throws -> WorldBase {
        let folder = WorldBase.folder(environment: ProcessInfo.processInfo.environment)
        do { return try WorldBase(folder: folder, read: { try FileDescriptor.readContentsIfPresent(of: $0) }) } catch {
            throw CommandLineFileError.damaged(folder, error, command: "world base")
        }
    }

    /// A map view of `features` over the world base, labelled in the local fonts (Linux:
    /// MapRenderer's text is HarfBuzz + FreeType there; the Core Text path is not written yet).
    static func view(camera: CameraState, features: MapFeatureIndex, style: MapStyle = .day, command: String) throws -> MapView<ContinuousClock.Instant> {
        let view = try MapView<ContinuousClock.Instant>(camera: camera, features: features, worldBase: try worldBase(), style: style)
        #if os(Linux)
        view.text = try text(command: command)
        #endif
        return view
    }

    /// The label fonts (`NotoFonts`), opened for text; nil where MapRenderer's text is not
    /// built in (HarfBuzz + FreeType on Linux; the Core Text path is not written yet).
    /// - Throws: as ``fontFaces(command:)``.
    static func text(command: String) throws -> TextRenderer? {
        #if os(Linux)
        try TextRenderer(faces: try fontFaces(command: command))
        #else
        nil
        #endif
    }

    /// Glyph ranges made from the local Noto fonts (`LocalGlyphRanges`), for `command`'s
    /// styles; nil where FreeType is not built in (no labels, a warning per range).
    /// - Throws: as ``fontFaces(command:)``.
    static func localGlyphRanges(command: String) throws -> (@Sendable (String, UInt32) throws -> [UInt8])? {
        #if os(Linux)
        let glyphs = LocalGlyphRanges(faces: try fontFaces(command: command))
        return { stack, start in glyphs.range(stack: stack, startingAt: start) }
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// The label fonts in fallback order.
    /// - Throws: `CommandLineFileError` (66) for a missing file, naming `command`, the file, where
    ///   it was looked for and the Debian packages that have it; `RenderError` for a file that is
    ///   no font.
    static func fontFaces(command: String) throws -> [FontFace] {
        do {
            return try NotoFonts.faces(environment: ProcessInfo.processInfo.environment, read: { try FileDescriptor.readContentsIfPresent(of: $0) })
        } catch let error as RenderError where error.code == .fontNotFound {
            throw CommandLineFileError(error.message, status: 66, command: command)
        }
    }
    #endif
}
