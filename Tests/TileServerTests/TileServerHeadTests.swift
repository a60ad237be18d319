import Foundation
import GeoTestSupport
import MapData
import Testing
@testable import TileServer

/// HEAD (RFC 9110 §9.3.2) on every kind of endpoint: the GET answer's status and header fields,
/// `Content-Length` included, and no body.
@Suite struct TileServerHeadTests {
    @Test func head_answersAsGetWithoutTheBody_onEveryEndpoint() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.pmtiles").path
            try TileServerTests.writeArchive(path)
            let fonts = dir.appendingPathComponent("fonts/A")
            try FileManager.default.createDirectory(at: fonts, withIntermediateDirectories: true)
            let glyph = SDFGlyph(id: 65, bitmap: [UInt8](repeating: 9, count: 64), width: 2, height: 2, left: 0, top: -20, advance: 10)
            try Data(GlyphPBF.encode([GlyphFontStack(name: "A", range: "0-255", glyphs: [glyph])])).write(to: fonts.appendingPathComponent("0-255.pbf"))
            try Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]).write(to: dir.appendingPathComponent("sprite@2x.png"))
            let style = ##"{"version":8,"sources":{"v":{"type":"vector","url":"pmtiles://t.pmtiles"}},"glyphs":"x/{fontstack}/{range}.pbf","sprite":"./sprite","layers":[{"id":"bg","type":"background","paint":{"background-color":"#ff0000"}}]}"##
            let stylePath = dir.appendingPathComponent("s.json").path
            try Data(style.utf8).write(to: URL(fileURLWithPath: stylePath))
            let options = TileServer.Options(data: [path], styles: [stylePath], fonts: dir.appendingPathComponent("fonts").path)
            try await TileServerTests.withServer(options) { port async throws in
                let requests: [(String, [String], Int)] = [
                    ("/", [], 200), ("/t.json", [], 200), ("/t/3/2/1.pbf", ["Accept-Encoding: gzip"], 200), ("/t/3/2/1.pbf", [], 200),
                    ("/t/3/0/0.pbf", [], 204), ("/t/9/0/0.pbf", [], 404), ("/t.pmtiles", [], 200), ("/t.pmtiles", ["Range: bytes=10-99"], 206),
                    ("/t.pmtiles", ["Range: bytes=999999-"], 416), ("/styles/s/style.json", [], 200), ("/fonts/A/0-255.pbf", [], 200),
                    ("/sprites/s@2x.png", [], 200), ("/styles/s/1/0/0.png", [], 200), ("/nothing.json", [], 404), ("/%2e%2e/x.json", [], 400),
                ]
                for (target, headers, status) in requests {
                    let get = try await TileServerTests.get(port, target, headers)
                    let head = try await TileServerTests.get(port, target, headers, method: "HEAD")
                    #expect(get.status == status && head.status == status, "\(target): GET \(get.status), HEAD \(head.status)")
                    #expect(head.body.isEmpty, "\(target): HEAD sent \(head.body.count) bytes")
                    for field in ["content-length", "content-type", "content-encoding", "content-range", "etag", "cache-control", "accept-ranges"] {
                        #expect(head.headers[field] == get.headers[field], "\(target): \(field) \(head.headers[field] ?? "none") vs GET's \(get.headers[field] ?? "none")")
                    }
                    if status == 200 || status == 206 { #expect(head.headers["content-length"] == String(get.body.count), "\(target)") }
                }
                let allowed = try await TileServerTests.get(port, "/t.json", ["Origin: http://127.0.0.1:\(port)"], method: "OPTIONS")
                #expect(allowed.headers["access-control-allow-methods"]?.contains("HEAD") == true)
                // A method the server does not take is 405 with what it takes (RFC 9110 §15.5.6), on any path.
                for (method, target) in [("POST", "/t/3/2/1.pbf"), ("PUT", "/t.json"), ("DELETE", "/"), ("PATCH", "/nothing")] {
                    let refused = try await TileServerTests.get(port, target, ["Content-Length: 0"], method: method)
                    #expect(refused.status == 405 && refused.headers["allow"] == "GET, HEAD, OPTIONS", "\(method) \(target): \(refused.status)")
                }
            }
        }
    }
}
