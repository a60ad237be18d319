import ArgumentParser
import Foundation
import GeoBase
import HTTPServing
import MapRenderer
import MapStyle
import Synchronization
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

    @Option(name: .customLong("host"), help: ArgumentHelp("Address to listen on, repeatable (default 127.0.0.1 and ::1).", valueName: "ADDRESS"))
    var hosts: [String] = []

    @Option(help: "TCP port (\(OptionRanges.port); 0 lets the system pick a free one).")
    var port: Int = 8080

    @Option(help: ArgumentHelp("The origin (scheme://host[:port]) whose pages may read the tiles, or * for any.", valueName: "ORIGIN"))
    var cors: String?

    @Flag(help: "No access-log line per request.")
    var quiet = false

    func validate() throws {
        try OptionRanges.port.check(port, option: "--port")
        guard !data.isEmpty else { throw ValidationError("name at least one map source") }
    }

    func run() async throws {
        // Archives and styles are files; a folder of z/x/y tiles is checked by its opening.
        for path in data + styles where !path.hasSuffix("/") && (path.hasSuffix(".json") || path.contains(".pmtiles") || path.contains(".mbtiles") || path.contains(".osm")) {
            try CommandLineFiles.checkInput(path)
        }
        let stderr: @Sendable (String) -> Void = { try? FileDescriptor.standardError.writeAll("geo serve: \($0)\n") }
        let server: TileServer
        do {
            // The access log comes in batches of whole lines, written as they are.
            let accessLog: @Sendable (String) -> Void = { try? FileDescriptor.standardError.writeAll($0) }
            // The built-in styles as `geo snapshot --style default` draws them without flags:
            // POIs (and pedestrian features) only when named.
            var builtIn = DefaultStyle.Options()
            builtIn.poiClasses = []
            server = try TileServer(TileServer.Options(data: data, styles: styles, builtInStyles: builtIn, fonts: fonts,
                                                       localGlyphs: Self.localGlyphs(note: stderr), cors: cors),
                                    log: quiet ? nil : accessLog, note: stderr)
        } catch {
            throw CommandLineFileError.damaged("serve", data.count == 1 ? data[0] : data.joined(separator: " "), error)
        }
        let first = Mutex(true)
        do {
            try await server.run(LocalServer.Options(port: port, hosts: hosts.isEmpty ? ["127.0.0.1", "::1"] : hosts)) { url in
                if first.withLock({ let was = $0; $0 = false; return was }) { try? FileDescriptor.standardOutput.writeAll(url + "\n") }
                stderr("serving \(url); Ctrl-C stops")
            }
        } catch let error as HTTPServingError where error.code == .cannotBind {
            throw CommandLineFileError.cannotServe("serve", port: port, error)
        }
    }

    /// Glyph ranges made from the local Noto fonts (`NotoFonts`, `LOCATIONKIT_FONTS`); nil, with
    /// a note, where they are not installed.
    static func localGlyphs(note: (String) -> Void) -> (@Sendable (String, UInt32) throws -> [UInt8])? {
        #if os(Linux)
        do {
            let glyphs = LocalGlyphRanges(faces: try NotoFonts.faces(environment: ProcessInfo.processInfo.environment, read: CommandLineFiles.contentsIfPresent))
            return { stack, start in glyphs.range(stack: stack, startingAt: start) }
        } catch {
            note("no glyphs from local fonts (\(error)); only --fonts folders are served")
            return nil
        }
        #else
        return nil
        #endif
    }
}
