public import GeoBase
public import MapCamera
public import MapRenderer
public import MapView
public import TileArchives
import Platform
import StyleRendering
import SystemIO

/// The error of a file behind a drawn map (``MapFiles``): `location` is the file or folder at
/// fault, `message` what is wrong with it.
public typealias MapFilesError = LocatedError<MapFilesErrorDomain>

/// The domain of ``MapFilesError``.
public enum MapFilesErrorDomain {}

extension ErrorCode where Domain == MapFilesError {
    /// A path that is missing, a directory or unreadable (the message says which:
    /// `FileSource.inputProblem(at:)`'s reason, or "cannot read (…)").
    public static var noInput: Self { Self("no input") }
    /// A file whose name is of no map data format; the message says which it reads.
    public static var notMapData: Self { Self("not map data") }
    /// A file whose content is truncated or malformed; the message is the reader's error.
    public static var damaged: Self { Self("damaged") }
    /// The world base folder's files are damaged; the message is the reader's error.
    public static var damagedWorldBase: Self { Self("damaged world base") }
}

/// The files behind every map `geo` draws, read through SystemIO: map data, the world base and
/// the label fonts.
public enum MapFiles {
    /// The map data at `path` (`DrawnMapData.open`, keeping `cachedTiles` decoded archive
    /// tiles; nil: the sample city), each damaged archive tile told once to `onDamagedTile`.
    /// - Throws: ``MapFilesError`` at `path`: `.noInput` for a path that is missing or a
    ///   directory, `.notMapData` for a file of no map data format, `.damaged` for a damaged one.
    public static func mapData(_ path: String?, cachedTiles: Int = 0,
                               onDamagedTile: @escaping @Sendable (_ z: Int, _ x: Int, _ y: Int, _ error: any Error) -> Void) throws -> DrawnMapData {
        guard let path else { return try DrawnMapData.open(nil) }
        if let problem = FileSource.inputProblem(at: path) { throw MapFilesError(.noInput, problem, at: path) }
        do {
            return try DrawnMapData.open(path, cachedTiles: cachedTiles, onDamagedTile: onDamagedTile)
        } catch DrawnMapDataError.notMapData {
            throw MapFilesError(.notMapData, "reads .osm.pbf, .osm, .osm.gz, .pmtiles and .mbtiles files", at: path)
        } catch DrawnMapDataError.damaged(_, let error) {
            throw MapFilesError(.damaged, "\(error)", at: path)
        }
    }

    /// The bytes of the file at `path` (a style, a font, a fixture), the first `limit` of them at most.
    /// - Throws: ``MapFilesError`` `.noInput` at `path`: missing, a directory, or unreadable
    ///   ("cannot read (…)").
    public static func contents(_ path: String, limit: Int = .max) throws(MapFilesError) -> [UInt8] {
        if let problem = FileSource.inputProblem(at: path) { throw MapFilesError(.noInput, problem, at: path) }
        do {
            let fd = try FileDescriptor(opening: path)
            defer { try? fd.close() }
            return try fd.readToEnd(limit: limit)
        } catch {
            throw MapFilesError(.noInput, "cannot read (\(error))", at: path)
        }
    }

    /// The world base under `$LOCATIONKIT_DATA/world` (`WorldBase(folder:read:)`).
    /// - Throws: ``MapFilesError`` `.damagedWorldBase` at the folder.
    public static func worldBase() throws(MapFilesError) -> WorldBase {
        let folder = WorldBase.folder(environment: ProcessInfo.processInfo.environment)
        do { return try WorldBase(folder: folder, read: { try FileDescriptor.readContentsIfPresent(of: $0) }) } catch {
            throw MapFilesError(.damagedWorldBase, "\(error)", at: folder)
        }
    }

    /// A map view of `features` over the world base, labelled in the local fonts (Linux:
    /// MapRenderer's text is HarfBuzz + FreeType there; the Core Text path is not written yet).
    /// - Throws: as ``worldBase()`` and ``text()``; `MapViewError`.
    public static func view(camera: CameraState, features: MapFeatureIndex,
                            style: MapRenderer.MapStyle = .day) throws -> MapView<ContinuousClock.Instant> {
        let view = try MapView<ContinuousClock.Instant>(camera: camera, features: features, worldBase: try worldBase(), style: style)
        #if os(Linux)
        view.text = try text()
        #endif
        return view
    }

    /// The label fonts (`NotoFonts`), opened for text; nil where MapRenderer's text is not
    /// built in (HarfBuzz + FreeType on Linux; the Core Text path is not written yet).
    /// - Throws: as ``fontFaces()``.
    public static func text() throws -> TextRenderer? {
        #if os(Linux)
        try TextRenderer(faces: try fontFaces())
        #else
        nil
        #endif
    }

    /// Glyph ranges made from the local Noto fonts (`LocalGlyphRanges`), for a command's
    /// styles; nil where FreeType is not built in (no labels, a warning per range).
    /// - Throws: as ``fontFaces()``.
    public static func localGlyphRanges() throws -> (@Sendable (String, UInt32) throws -> [UInt8])? {
        #if os(Linux)
        let glyphs = LocalGlyphRanges(faces: try fontFaces())
        return { stack, start in glyphs.range(stack: stack, startingAt: start) }
        #else
        return nil
        #endif
    }

    /// Packs the icons of `folder` (.svg, .png, searched recursively: `SpriteIcon.icons(files:)`)
    /// into the sprite sheets `output`.json + .png at 1× and `output`@2x.json + .png, each
    /// file replaced atomically, the folder above them created when missing.
    /// - Returns: how many icons, each sheet's path without extension and size in pixels, and
    ///   the files that are not icons.
    /// - Throws: ``MapFilesError`` at the folder or file: `.noInput` for a folder missing,
    ///   unlistable, unreadable or without icons, `.damaged` for icons that do not make a sheet;
    ///   `SystemIOError` for a sheet that cannot be written.
    public static func writeSprites(from folder: String, to output: String) throws -> (icons: Int, sheets: [(name: String, width: Int, height: Int)], ignored: [String]) {
        let paths: [String]
        do { paths = try FileDescriptor.files(under: folder) } catch {
            throw MapFilesError(.noInput, error.errno == ENOENT || error.errno == ENOTDIR ? "no such folder" : "cannot list (\(error))", at: folder)
        }
        var files: [(path: String, bytes: [UInt8])] = []
        for path in paths {
            do { files.append((path, try FileDescriptor.readContents(of: folder + "/" + path))) } catch {
                throw MapFilesError(.noInput, "cannot read (\(error))", at: folder + "/" + path)
            }
        }
        let found: (icons: [SpriteIcon], ignored: [String])
        do { found = try SpriteIcon.icons(files: files) } catch { throw MapFilesError(.damaged, "\(error)", at: folder) }
        let (icons, ignored) = found
        guard !icons.isEmpty else { throw MapFilesError(.noInput, "no .svg or .png icons in the folder", at: folder) }
        try FileDescriptor.createDirectories(FileDescriptor.directory(of: output))
        var sheets: [(name: String, width: Int, height: Int)] = []
        for ratio in [1, 2] {
            let sheet: SpriteSheet
            do { sheet = try SpriteSheet(icons: icons, pixelRatio: ratio) } catch { throw MapFilesError(.damaged, "\(error)", at: folder) }
            let name = output + (ratio == 1 ? "" : "@\(ratio)x")
            try AtomicFileReplacement.write(try sheet.indexJSON(), to: name + ".json")
            try AtomicFileReplacement.write(try PNG.encode(sheet.image), to: name + ".png")
            sheets.append((name, sheet.image.width, sheet.image.height))
        }
        return (icons.count, sheets, ignored)
    }

    #if os(Linux)
    /// The face of the font file `spec` names: `PATH`, or `PATH#N` for face N of a collection.
    /// - Throws: ``MapFilesError`` at the path: as ``contents(_:limit:)``; `.damaged` for a file
    ///   that is no font.
    public static func fontFace(_ spec: String) throws(MapFilesError) -> FontFace {
        var path = spec, index = 0
        if let hash = spec.lastIndex(of: "#"), let n = Int(spec[spec.index(after: hash)...]), n >= 0 {
            path = String(spec[..<hash])
            index = n
        }
        let bytes = try contents(path)
        do { return try FontFace(data: bytes, index: index, name: path) } catch { throw MapFilesError(.damaged, "\(error)", at: path) }
    }

    /// The label fonts in fallback order (`NotoFonts.faces`, read through SystemIO).
    /// - Throws: `RenderError.fontNotFound` for a missing file, naming it, where it was looked
    ///   for and the Debian packages that have it; `RenderError` for a file that is no font.
    public static func fontFaces() throws -> [FontFace] {
        try NotoFonts.faces(environment: ProcessInfo.processInfo.environment, read: { try FileDescriptor.readContentsIfPresent(of: $0) })
    }
    #endif
}
