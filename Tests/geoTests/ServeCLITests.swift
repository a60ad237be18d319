import Foundation
import GeoTestSupport
import MapData
import SystemIO
import Testing
import ZlibCompression

/// `geo serve`: the tile server as a command — the base URL first on standard output, a tile
/// and its TileJSON over HTTP, one access-log line per request on standard error.
@Test(.onOwnThread) func serve_answersTileJSONAndTiles_andLogsEachRequest() async throws {
    try await withTemporaryDirectory { dir in
        let archive = dir.appendingPathComponent("city.pmtiles").path
        var writer = PMTilesWriter(tileType: .mvt, tileCompression: .gzip)
        let tile = try Gzip.compress([UInt8]("tile".utf8))
        try writer.add(zoom: 2, x: 1, y: 1, data: tile)
        try Data(try writer.finished(metadata: TileMetadata.json(name: "city", minZoom: 0, maxZoom: 2), bounds: (-180, -85, 180, 85),
                                     center: (0, 0), centerZoom: 1)).write(to: URL(fileURLWithPath: archive))
        let port = FreePort.take()
        let log = dir.appendingPathComponent("err.txt").path
        let server = try ChildProcess.spawn(.init(executable: GeoProcess.geoExecutable.path,
                                                  arguments: ["serve", archive, "--port", String(port), "--host", "127.0.0.1"],
                                                  standardOutput: .nullDevice, standardError: .file(log)))
        defer { _ = server.kill() }
        #expect(await GPSFake.waitUntilListening(port: port), "geo serve listens on \(port)")
        func get(_ target: String) throws -> String {
            let socket = try TCPClient.connect(host: "127.0.0.1", port: port)
            defer { try? socket.close() }
            try socket.writeAll("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n")
            return String(decoding: try socket.readToEnd(limit: 1 << 20), as: UTF8.self)
        }
        let tileJSON = try get("/city.json")
        #expect(tileJSON.hasPrefix("HTTP/1.1 200") && tileJSON.contains(#""tiles":["http://127.0.0.1:\#(port)/city/{z}/{x}/{y}.pbf"]"#), "\(tileJSON)")
        #expect(try get("/city/2/1/1.pbf").hasPrefix("HTTP/1.1 200"))
        #expect(try get("/city/3/0/0.pbf").hasPrefix("HTTP/1.1 404"), "past maxzoom 2")
        #expect(server.terminate())
        _ = try await server.exitStatus(timeout: .seconds(15))
        let lines = try String(contentsOfFile: log, encoding: .utf8)
        #expect(lines.contains("GET /city.json 200") && lines.contains("GET /city/3/0/0.pbf 404"), "\(lines)")
    }
}

@Test func serve_badArguments_areUsageErrors() async throws {
    let none = try await GeoProcess.geo(["serve"])
    #expect(none.status == 64, "\(none.stderr)")
    let missing = try await GeoProcess.geo(["serve", "/nonexistent/x.pmtiles"])
    #expect(missing.status != 0 && missing.stderr.contains("/nonexistent/x.pmtiles"), "\(missing.stderr)")
}
