import ArgumentParser
import MapStyle
import SystemIO
import TileServer

/// `geo serve DATA…`: the tile server (TileServer) for MapLibre clients.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve map tiles, TileJSON, styles, glyphs and sprites over HTTP for MapLibre clients.",
        discussion: """
            DATA: .pmtiles, .mbtiles, folders of z/x/y tiles, or OpenStreetMap extracts (.osm.pbf, .osm, .osm.gz) cut into \
            vector tiles of zooms 0-14 in memory on start; each served under its file name without the extension. \
            Endpoints: / (index), /{tileset}.json (TileJSON 3.0.0), /{tileset}/{z}/{x}/{y}.pbf, /{tileset}.pmtiles \
            (byte ranges), /styles/{id}/style.json, /styles/{id}/{z}/{x}/{y}[@2x].png (raster, drawn by the style), \
            /fonts/{fontstack}/{range}.pbf, /sprites/{id}[@2x].{json,png}, /metrics. \
            The built-in styles default and default-night are served over the first vector tileset (geo tiles build's schema). \
            A font stack no --fonts folder has is made from the local Noto fonts on its first request. \
            A replaced archive (atomic rename) is served from the next request on. The first line on standard output \
            is the base URL once listening; one access-log line per request goes to standard error unless --quiet.
            """
    )

    @Argument(help: "Map sources: .pmtiles, .mbtiles, folders of z/x/y tiles, or OpenStreetMap extracts tiled on start.")
    var data: [String]

    @Option(name: .customLong("style"), help: ArgumentHelp("A style.json to serve with its sources, glyphs and sprite pointed at this server; repeatable.", valueName: "STYLE.json"))
    var styles: [String] = []

    @Option(help: ArgumentHelp("A folder of glyph folders (geo glyphs build output), one per font stack; other stacks are made from local fonts.", valueName: "DIR"))
    var fonts: String?

    @OptionGroup var server: ServerOptions<WebPort>

    @Option(help: ArgumentHelp("The origin (scheme://host[:port]) whose pages may read the tiles, or * for any.", valueName: "ORIGIN"))
    var cors: String?

    @Flag(help: "No access-log line per request.")
    var quiet = false

    func validate() throws {
        guard !data.isEmpty else { throw ValidationError("name at least one map source") }
    }

    func run() async throws {
        // Archives and styles are files; a folder of z/x/y tiles is checked by its opening.
        for path in data + styles where !path.hasSuffix("/") && (path.hasSuffix(".json") || path.contains(".pmtiles") || path.contains(".mbtiles") || path.contains(".osm")) {
            try CommandLineFiles.checkInput(path)
        }
        let tiles = try CommandLineFileError.damage(of: data.count == 1 ? data[0] : data.joined(separator: " ")) {
            // The access log comes in batches of whole lines, written as they are.
            let accessLog: @Sendable (String) -> Void = { try? FileDescriptor.standardError.writeAll($0) }
            // The built-in styles as `geo snapshot --style default` draws them without flags:
            // POIs (and pedestrian features) only when named.
            let builtIn = DefaultStyle.Options(hiding: [], poiClasses: [], pedestrianClasses: [])
            return try TileServer(TileServer.Options(data: data, styles: styles, builtInStyles: builtIn, fonts: fonts,
                                                     localGlyphs: Self.localGlyphs(note: CommandLineFiles.note("serve")), cors: cors),
                                  log: quiet ? nil : accessLog, note: CommandLineFiles.note("serve"))
        }
        try await server.run("serve", printsURL: true) { serving in try await tiles.run(server.bind(), serving: serving) }
    }

    /// Glyph ranges made from the local Noto fonts (`NotoFonts`, `LOCATIONKIT_FONTS`); nil, with
    /// a note, where they are not installed.
    static func localGlyphs(note: (String) -> Void) -> (@Sendable (String, UInt32) throws -> [UInt8])? {
        do {
            return try CommandLineFileError.mapFiles(command: "serve") { try MapFiles.localGlyphRanges() }
        } catch {
            note("no glyphs from local fonts (\(error)); only --fonts folders are served")
            return nil
        }
    }
}
