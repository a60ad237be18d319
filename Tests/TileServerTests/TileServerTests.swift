import Foundation
import GeoCore
import GeoTestSupport
import HTTPServing
import MapData
import MapRenderer
import OSMImport
import Synchronization
import SystemIO
import Testing
import TileArchives
import ZlibCompression
@testable import TileServer

/// One HTTP/1.1 answer: status, header fields (lowercased names) and the body's bytes.
struct HTTPAnswer {
    let status: Int
    let headers: [String: String]
    let body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    func json() throws -> [String: Any] { try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) }
}

/// `geo serve`'s module end to end over loopback HTTP.
@Suite struct TileServerTests {
    /// One request (GET unless `method` says otherwise) with `Connection: close`, sent raw (the
    /// target exactly as given, so hostile paths reach the server unnormalised), on a thread of
    /// its own (as TrackingServerTests); `Host` is 127.0.0.1 and the port unless `host` says.
    static func get(_ port: Int, _ target: String, _ headers: [String] = [], method: String = "GET", host: String? = nil) async throws -> HTTPAnswer {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    let socket = try TCPClient.connect(host: "127.0.0.1", port: port)
                    defer { try? socket.close() }
                    let head = ["\(method) \(target) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"] + headers
                    try socket.writeAll(head.joined(separator: "\r\n") + "\r\n\r\n")
                    let response = try socket.readToEnd(limit: 1 << 26)
                    let end = try #require(response.indices.first { response[$0...].starts(with: [13, 10, 13, 10]) })
                    let lines = String(decoding: response[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                    var fields: [String: String] = [:]
                    for line in lines.dropFirst() {
                        guard let colon = line.firstIndex(of: ":") else { continue }
                        fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    }
                    return HTTPAnswer(status: Int(lines[0].split(separator: " ")[1]) ?? 0, headers: fields, body: Array(response[(end + 4)...]))
                })
            }.start()
        }
    }

    /// Runs a server on a port the system picks while `body` runs; its error lines go to `notes`,
    /// its access log's batches to `log` (none when nil).
    static func withServer(_ options: TileServer.Options, notes: NoteList = NoteList(), log: NoteList? = nil, _ body: (Int) async throws -> Void) async throws {
        var write: (@Sendable (String) -> Void)?
        if let log { write = { log.append($0) } }
        let server = try TileServer(options, log: write, note: { notes.append($0) })
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            try await server.run(LocalServer.Options(port: 0, hosts: ["127.0.0.1"])) { url in
                continuation.yield(Int(url.split(separator: ":").last!.dropLast())!)
            }
        }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        try await body(try #require(await iterator.next()))
    }

    /// A PMTiles archive of gzip tiles at `path`: tile 3/2/1 (and 3/3/1 when `second`), the
    /// bounds the whole world, zooms 0…5 declared by a run of 0/0/0 and 5/0/0.
    static func writeArchive(_ path: String, maxZoom: Int = 5) throws {
        var writer = PMTilesWriter(tileType: .mvt, tileCompression: .gzip)
        let tiles = [(0, 0, 0, [UInt8]("zero".utf8)), (3, 2, 1, [UInt8]("tile 3/2/1".utf8)), (3, 3, 1, [UInt8]("tile 3/3/1".utf8)), (maxZoom, 0, 0, [UInt8]("deep".utf8))]
        for (z, x, y, text) in tiles.sorted(by: { PMTiles.tileID(zoom: $0.0, x: $0.1, y: $0.2) < PMTiles.tileID(zoom: $1.0, x: $1.1, y: $1.2) }) {
            try writer.add(zoom: z, x: x, y: y, data: try Gzip.compress(text))
        }
        let bytes = try writer.finished(metadata: TileMetadata.json(name: "t", minZoom: 0, maxZoom: maxZoom), bounds: (-180, -85, 180, 85),
                                        center: (0, 0), centerZoom: 2)
        try AtomicFileReplacement.write(bytes, to: path)
    }

    @Test(.onOwnThread) func monacoTiles_servedAsTheArchiveStoresThem_andTileJSONDescribesThem() async throws {
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("monaco.pmtiles").path
            let set = try MapDataExtraction.read(url: url)
            let tiler = try MapTiler(features: set.features, options: TilingOptions(minZoom: 12, maxZoom: 14, parallelism: 2, compressesTiles: true))
            var writer = try TileArchiveWriter(kind: .pmtiles, path: path)
            for z in 12...14 { for tile in try tiler.tiles(atZoom: z) { try writer.add(tile) } }
            try writer.finish(name: "monaco", minZoom: 12, maxZoom: 14, bounds: TileArchiveWriter.bounds(of: set.features))
            let reader = try PMTilesReader(try PMTilesFile(path: path))
            try await Self.withServer(TileServer.Options(data: [path])) { port async throws in
                // Every tile of every run (a run of equal tiles is one entry): 39 for Monaco at 12…14.
                let ids = try reader.entries().flatMap { e in (0..<UInt64(e.runLength)).map { e.tileID + $0 } }
                #expect(ids.count == Int(reader.header.addressedTiles) && ids.count > 20)
                for id in ids {
                    let (z, x, y) = try PMTiles.tile(id: id)
                    let stored = try #require(try reader.tile(zoom: z, x: x, y: y))
                    let gzip = try await Self.get(port, "/monaco/\(z)/\(x)/\(y).pbf", ["Accept-Encoding: gzip, deflate"])
                    #expect(gzip.status == 200 && gzip.body == stored && gzip.headers["content-encoding"] == "gzip", "\(z)/\(x)/\(y)")
                    #expect(gzip.headers["content-type"] == "application/vnd.mapbox-vector-tile")
                    let plain = try await Self.get(port, "/monaco/\(z)/\(x)/\(y).pbf")
                    #expect(plain.status == 200 && plain.headers["content-encoding"] == nil)
                    #expect(plain.body == (try Gzip.decompress(stored, limit: 1 << 26)), "a client without gzip gets the tile inflated")
                }
                let tileJSON = try await Self.get(port, "/monaco.json").json()
                // TileJSON 3.0.0's required keys, and what MapLibre reads.
                #expect(tileJSON["tilejson"] as? String == "3.0.0")
                #expect(tileJSON["tiles"] as? [String] == ["http://127.0.0.1:\(port)/monaco/{z}/{x}/{y}.pbf"])
                #expect(tileJSON["minzoom"] as? Int == 12 && tileJSON["maxzoom"] as? Int == 14)
                let bounds = try #require(tileJSON["bounds"] as? [Double])
                // Monaco: 7.40…7.45° E, 43.72…43.76° N (the extract reaches a little beyond).
                #expect(bounds.count == 4 && bounds[0] > 7.3 && bounds[0] < 7.45 && bounds[1] > 43.6 && bounds[1] < 43.75)
                #expect(bounds[2] > 7.42 && bounds[2] < 7.6 && bounds[3] > 43.73 && bounds[3] < 43.85)
                let center = try #require(tileJSON["center"] as? [Double])
                #expect(center.count == 3 && center[0] > bounds[0] && center[0] < bounds[2] && (12...14).contains(Int(center[2])))
                let layers = try #require(tileJSON["vector_layers"] as? [[String: Any]])
                #expect(layers.contains { $0["id"] as? String == "building" && ($0["fields"] as? [String: Any])?["render_height"] != nil })
                let index = try await Self.get(port, "/").json()
                #expect((index["tilesets"] as? [[String: Any]])?.first?["tilejson"] as? String == "http://127.0.0.1:\(port)/monaco.json")
            }
        }
    }

    @Test func tileStatuses_204InsideBounds_404OutsideOrPastMaxZoom_304ForTheETag() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.pmtiles").path
            try Self.writeArchive(path)
            try await Self.withServer(TileServer.Options(data: [path])) { port async throws in
                let tile = try await Self.get(port, "/t/3/2/1.pbf", ["Accept-Encoding: gzip"])
                #expect(tile.status == 200 && tile.headers["cache-control"] == TileServer.tileCaching)
                let etag = try #require(tile.headers["etag"])
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""), "a strong ETag")
                let again = try await Self.get(port, "/t/3/2/1.pbf", ["Accept-Encoding: gzip", "If-None-Match: \"x\", \(etag)"])
                #expect(again.status == 304 && again.body.isEmpty && again.headers["etag"] == etag)
                #expect(try await Self.get(port, "/t/3/0/0.pbf").status == 204, "no tile there, but inside the bounds and zooms")
                #expect(try await Self.get(port, "/t/6/0/0.pbf").status == 404, "past maxzoom 5")
                #expect(try await Self.get(port, "/t/3/8/0.pbf").status == 404, "x past 2^3")
                #expect(try await Self.get(port, "/t/3/2/1.png").status == 404, "a vector tileset has no .png")
                #expect(try await Self.get(port, "/nothing/3/2/1.pbf").status == 404)
                #expect(try await Self.get(port, "/nothing.json").status == 404)
            }
        }
    }

    @Test func archiveRanges_206ForOne_416ForSeveralOrPastTheEnd() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.pmtiles").path
            try Self.writeArchive(path)
            let file = try FileDescriptor.readContents(of: path)
            try await Self.withServer(TileServer.Options(data: [path])) { port async throws in
                let head = try await Self.get(port, "/t.pmtiles", ["Range: bytes=0-126"])
                #expect(head.status == 206 && head.body == Array(file[0..<127]) && head.headers["content-range"] == "bytes 0-126/\(file.count)")
                let tail = try await Self.get(port, "/t.pmtiles", ["Range: bytes=-10"])
                #expect(tail.status == 206 && tail.body == Array(file.suffix(10)))
                let whole = try await Self.get(port, "/t.pmtiles")
                #expect(whole.status == 200 && whole.body == file && whole.headers["accept-ranges"] == "bytes")
                for range in ["bytes=\(file.count)-", "bytes=0-1,5-9", "bytes=9-3", "bytes=abc"] {
                    let refused = try await Self.get(port, "/t.pmtiles", ["Range: \(range)"])
                    #expect(refused.status == 416 && refused.headers["content-range"] == "bytes */\(file.count)", "\(range)")
                }
                // 10,000 ranges: a head past RequestLimits' 32 KiB, refused before any route.
                let many = (0..<10_000).map { "\($0)-\($0)" }.joined(separator: ",")
                let status = try await Self.get(port, "/t.pmtiles", ["Range: bytes=\(many)"]).status
                #expect((400..<500).contains(status))
                #expect(try await Self.get(port, "/t.json").status == 200, "still serving")
            }
        }
    }

    @Test func hostilePaths_are4xx_neverAFileOutsideTheServedOnes() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.pmtiles").path
            try Self.writeArchive(path)
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("fonts/A"), withIntermediateDirectories: true)
            try await Self.withServer(TileServer.Options(data: [path], fonts: dir.appendingPathComponent("fonts").path)) { port async throws in
                let targets = ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "/t%2f..%2f..%2fetc%2fpasswd.json",
                               "/t%00.json", "/t%00/3/2/1.pbf", "/a/b%2fc/0/0.pbf", "/fonts/..%2f..%2f..%2fetc/0-255.pbf", "/fonts/../0-255.pbf",
                               "/fonts/..,A/0-255.pbf", "/fonts/A/..%2f..%2fpasswd.pbf", "/sprites/..%2f..%2fetc%2fpasswd.json", "/styles/..%2f../style.json",
                               "/t/-1/0/0.pbf", "/t/3/-1/0.pbf", "/t/a/b/c.pbf", "/t/3/1099511627776/0.pbf", "/t/1099511627776/0/0.pbf",
                               "/t/99/0/0.pbf", "/t/3/2/1.pbf/../../../../etc/passwd", "/%zz", "/t/3/2/%ff.pbf", "/etc/passwd", "//etc/passwd"]
                for target in targets {
                    let answer = try await Self.get(port, target)
                    #expect((400..<500).contains(answer.status), "\(target): \(answer.status)")
                    #expect(!answer.text.contains("root:"), "\(target)")
                }
                #expect(try await Self.get(port, "/t/3/2/1.pbf").status == 200, "still serving")
            }
        }
    }

    @Test func damagedTile_is500AndALogLine_andTheServerStaysUp() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.pmtiles").path
            try Self.writeArchive(path)
            // Cut the last tile's bytes from the file and the header's tile data length (u64 at
            // byte 64, PMTiles v3 §3): the archive opens, its last tile lies past the data.
            var bytes = try FileDescriptor.readContents(of: path)
            var length = bytes[64..<72].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            let cut = 4
            bytes.removeLast(cut)
            length -= UInt64(cut)
            for i in 0..<8 { bytes[64 + i] = UInt8(truncatingIfNeeded: length >> (8 * UInt64(i))) }
            try AtomicFileReplacement.write(bytes, to: path)
            let notes = NoteList()
            try await Self.withServer(TileServer.Options(data: [path]), notes: notes) { port async throws in
                #expect(try await Self.get(port, "/t/5/0/0.pbf").status == 500, "the tile past the data section")
                #expect(try await Self.get(port, "/t/3/2/1.pbf").status == 200)
            }
            #expect(notes.lines.contains { $0.contains("t: tile 5/0/0") })
        }
    }

    @Test func cors_replacedArchive_stylesFontsSprites_andMetrics() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.pmtiles").path
            try Self.writeArchive(path)
            let fonts = dir.appendingPathComponent("fonts")
            for (name, id) in [("A", UInt32(65)), ("B", UInt32(66))] {
                try FileManager.default.createDirectory(at: fonts.appendingPathComponent(name), withIntermediateDirectories: true)
                let glyph = SDFGlyph(id: id, bitmap: [UInt8](repeating: 9, count: 64), width: 2, height: 2, left: 0, top: -20, advance: 10)
                try Data(GlyphPBF.encode([GlyphFontStack(name: name, range: "0-255", glyphs: [glyph])])).write(to: fonts.appendingPathComponent("\(name)/0-255.pbf"))
            }
            let png = [UInt8]([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
            try Data(png).write(to: dir.appendingPathComponent("sprite@2x.png"))
            try Data(#"{"dot":{"x":0,"y":0,"width":1,"height":1,"pixelRatio":2}}"#.utf8).write(to: dir.appendingPathComponent("sprite@2x.json"))
            let style = #"{"version":8,"sources":{"openmaptiles":{"type":"vector","url":"https://api.example.com/tiles.json?key=x"}},"glyphs":"https://x/{fontstack}/{range}.pbf","sprite":"./sprite","layers":[]}"#
            let stylePath = dir.appendingPathComponent("bright.json").path
            try Data(style.utf8).write(to: URL(fileURLWithPath: stylePath))
            let options = TileServer.Options(data: [path], styles: [stylePath], fonts: fonts.path, cors: "https://maps.example")
            try await Self.withServer(options) { port async throws in
                let base = "http://127.0.0.1:\(port)"
                let fromPage = try await Self.get(port, "/t.json", ["Origin: https://maps.example"])
                #expect(fromPage.status == 200 && fromPage.headers["access-control-allow-origin"] == "https://maps.example")
                #expect(try await Self.get(port, "/t.json", ["Origin: https://evil.example"]).status == 403)
                let rewritten = try await Self.get(port, "/styles/bright/style.json").json()
                let source = (rewritten["sources"] as? [String: Any])?["openmaptiles"] as? [String: Any]
                #expect(source?["url"] as? String == "\(base)/t.json")
                #expect(rewritten["glyphs"] as? String == "\(base)/fonts/{fontstack}/{range}.pbf")
                #expect(rewritten["sprite"] as? String == "\(base)/sprites/bright")
                let sprite = try await Self.get(port, "/sprites/bright@2x.png")
                #expect(sprite.status == 200 && sprite.body == png)
                #expect(try await Self.get(port, "/sprites/bright.png").status == 404, "no 1x sheet was made")
                let combined = try await Self.get(port, "/fonts/A,B/0-255.pbf")
                #expect(combined.status == 200)
                #expect(try GlyphPBF.decode(combined.body).flatMap(\.glyphs).map(\.id) == [65, 66], "A's glyph, then B's")
                #expect(try await Self.get(port, "/fonts/A/0-254.pbf").status == 404)
                // An archive replaced by an atomic rename is served from the next request.
                #expect(try await Self.get(port, "/t.json").json()["maxzoom"] as? Int == 5)
                try Self.writeArchive(path, maxZoom: 7)
                #expect(try await Self.get(port, "/t.json").json()["maxzoom"] as? Int == 7)
                #expect(try await Self.get(port, "/t/7/0/0.pbf").status == 200)
                let metrics = try await Self.get(port, "/metrics").text
                #expect(metrics.contains(#"tileserver_requests_total{kind="tilejson",status="200"} "#))
                #expect(metrics.contains("tileserver_request_seconds_bucket{le=\"+Inf\"}"))
            }
        }
    }

    @Test func mbtilesAndXYZFolder_servedThroughMapSource() async throws {
        try await withTemporaryDirectory { dir in
            let mbtiles = dir.appendingPathComponent("m.mbtiles").path
            let gz = try Gzip.compress([UInt8]("a vector tile".utf8))
            var writer = try TileArchiveWriter(kind: .mbtiles, path: mbtiles)
            try writer.add(EncodedTile(zoom: 4, x: 8, y: 5, data: gz))
            try writer.finish(name: "m", minZoom: 2, maxZoom: 4, bounds: (0, 0, 45, 45))
            let folder = dir.appendingPathComponent("xyz")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("1/1"), withIntermediateDirectories: true)
            try Data([1, 2, 3]).write(to: folder.appendingPathComponent("1/1/0.pbf"))
            try Data(#"{"minzoom":0,"maxzoom":1,"vector_layers":[{"id":"water","fields":{}}]}"#.utf8).write(to: folder.appendingPathComponent("metadata.json"))
            try await Self.withServer(TileServer.Options(data: [mbtiles, folder.path])) { port async throws in
                let tile = try await Self.get(port, "/m/4/8/5.pbf", ["Accept-Encoding: gzip"])
                #expect(tile.status == 200 && tile.body == gz && tile.headers["content-encoding"] == "gzip")
                #expect(try await Self.get(port, "/m/4/8/6.pbf").status == 204, "inside 0…45° E, 0…45° N")
                #expect(try await Self.get(port, "/m/4/0/0.pbf").status == 404, "outside the bounds")
                #expect(try await Self.get(port, "/m/1/1/0.pbf").status == 404, "below minzoom 2")
                let m = try await Self.get(port, "/m.json").json()
                #expect(m["minzoom"] as? Int == 2 && m["maxzoom"] as? Int == 4 && (m["vector_layers"] as? [Any])?.isEmpty == false)
                let xyz = try await Self.get(port, "/xyz/1/1/0.pbf")
                #expect(xyz.status == 200 && xyz.body == [1, 2, 3] && xyz.headers["content-encoding"] == nil)
                #expect(try await Self.get(port, "/xyz/1/0/0.pbf").status == 204)
                #expect(try await Self.get(port, "/xyz.pmtiles").status == 404, "only PMTiles archives are served whole")
                let layers = try await Self.get(port, "/xyz.json").json()["vector_layers"] as? [[String: Any]]
                #expect(layers?.first?["id"] as? String == "water")
            }
        }
    }

    /// The TileJSON of a vector archive, a raster archive and a folder of tiles validates against
    /// the published TileJSON 3.0.0 JSON Schema (Fixtures/, mapbox/tilejson-spec), as Python's
    /// `jsonschema` judges it.
    @Test func tileJSON_validatesAgainstThePublished300Schema() async throws {
        guard let python = GeoProcess.which("python3"),
              (try await GeoProcess.run(python, ["-c", "import jsonschema"])).status == 0 else {
            if Fixtures.isCI { Issue.record("CI needs python3 with jsonschema (scripts/setup.sh)") }
            return
        }
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/tilejson-3.0.0.schema.json").path
        try await withTemporaryDirectory { dir in
            let (parks, _) = try Self.parkArchiveAndStyle(in: dir, maxZoom: 2)
            var raster = PMTilesWriter(tileType: .png, tileCompression: .none)
            try raster.add(zoom: 1, x: 1, y: 0, data: [0x89, 0x50, 0x4E, 0x47])
            let rasterPath = dir.appendingPathComponent("r.pmtiles").path
            try AtomicFileReplacement.write(try raster.finished(metadata: TileMetadata.json(name: "r", minZoom: 0, maxZoom: 1), bounds: (-180, -85, 180, 85),
                                                                center: (0, 0), centerZoom: 0), to: rasterPath)
            let folder = dir.appendingPathComponent("xyz")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("1/1"), withIntermediateDirectories: true)
            try Data([1, 2, 3]).write(to: folder.appendingPathComponent("1/1/0.pbf"))
            try await Self.withServer(TileServer.Options(data: [parks, rasterPath, folder.path])) { port async throws in
                for name in ["parks", "r", "xyz"] {
                    let document = try await Self.get(port, "/\(name).json")
                    let file = dir.appendingPathComponent("\(name).tilejson").path
                    try Data(document.body).write(to: URL(fileURLWithPath: file))
                    let check = try await GeoProcess.run(python, ["-c", """
                        import json, sys, jsonschema
                        jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
                        """, schema, file])
                    #expect(check.status == 0, "\(name).json: \(check.stderr.suffix(600))")
                }
            }
        }
    }

    /// A park over world units 0.25…0.75 (about 90° W…90° E, 67° S…67° N) tiled at 0…`maxZoom`
    /// into `parks.pmtiles` in `dir`, and a style drawing it blue (`#0000ff`) over a red
    /// background (`#ff0000`) in `parks-style.json`: the raster tests' tileset and style.
    static func parkArchiveAndStyle(in dir: URL, maxZoom: Int) throws -> (archive: String, style: String) {
        let ring = [MapPoint(x: 0.25, y: 0.25), MapPoint(x: 0.75, y: 0.25), MapPoint(x: 0.75, y: 0.75), MapPoint(x: 0.25, y: 0.75), MapPoint(x: 0.25, y: 0.25)]
        let park = MapFeature(layer: .park, id: 1, source: .way, geometry: .polygons([MapPolygon(exterior: ring)]), properties: [MapProperty("class", .string("park"))], minZoom: 0)
        let tiler = try MapTiler(features: [park], options: TilingOptions(minZoom: 0, maxZoom: maxZoom, compressesTiles: true))
        let path = dir.appendingPathComponent("parks.pmtiles").path
        var writer = try TileArchiveWriter(kind: .pmtiles, path: path)
        for z in 0...maxZoom { for tile in try tiler.tiles(atZoom: z) { try writer.add(tile) } }
        try writer.finish(name: "parks", minZoom: 0, maxZoom: maxZoom, bounds: (-180, -85, 180, 85))
        let style = ##"{"version":8,"sources":{"v":{"type":"vector","url":"pmtiles://parks.pmtiles"}},"layers":[{"id":"bg","type":"background","paint":{"background-color":"#ff0000"}},{"id":"p","type":"fill","source":"v","source-layer":"park","paint":{"fill-color":"#0000ff"}}]}"##
        let stylePath = dir.appendingPathComponent("parks-style.json").path
        try Data(style.utf8).write(to: URL(fileURLWithPath: stylePath))
        return (path, stylePath)
    }

    @Test func rasterTiles_drawnByTheStyle_fromTheServedTileset() async throws {
        try await withTemporaryDirectory { dir in
            let (path, stylePath) = try Self.parkArchiveAndStyle(in: dir, maxZoom: 2)
            try await Self.withServer(TileServer.Options(data: [path], styles: [stylePath])) { port async throws in
                // Tile 2/1/1 (90° W…0°, 0°…67° N) lies inside the park; 2/0/0 outside it.
                let inside = try await Self.get(port, "/styles/parks-style/2/1/1.png")
                #expect(inside.status == 200 && inside.headers["content-type"] == "image/png")
                let park = try PNG.decode(inside.body)
                #expect(park.width == 256 && park.height == 256)
                let blue = park.color(x: 128, y: 128)
                #expect(blue.blue > 230 && blue.red < 25, "\(blue)")
                let outside = try PNG.decode(try await Self.get(port, "/styles/parks-style/2/0/0@2x.png").body)
                #expect(outside.width == 512)
                let red = outside.color(x: 256, y: 256)
                #expect(red.red > 230 && red.blue < 25, "\(red)")
                #expect(try await Self.get(port, "/styles/parks-style/25/0/0.png").status == 404)
                #expect(try await Self.get(port, "/styles/nothing/2/1/1.png").status == 404)
            }
        }
    }

    @Test func rangeHeader_resolvedAsRFC7233Says() throws {
        #expect(try ByteRange.resolve("bytes=0-99", size: 50) == 0...49)
        #expect(try ByteRange.resolve("bytes=10-", size: 50) == 10...49)
        #expect(try ByteRange.resolve("bytes=-100", size: 50) == 0...49)
        #expect(try ByteRange.resolve("items=0-1", size: 50) == nil, "another unit: the whole file")
        for header in ["bytes=50-", "bytes=-0", "bytes=0-1,2-3", "bytes=-", "bytes=1-0", "bytes=99999999999999999999-"] {
            #expect(throws: ByteRange.Unsatisfiable.self, "\(header)") { try ByteRange.resolve(header, size: 50) }
        }
    }
}

/// Lines the server noted, collected across its tasks.
final class NoteList: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
