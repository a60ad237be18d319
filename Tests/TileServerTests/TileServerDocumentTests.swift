import Foundation
import GeoTestSupport
import Testing
@testable import TileServer

/// TileJSON, the index and styles made once per version of what they are made of
/// (`DocumentCache`), and `Accept-Encoding` read as RFC 9110 says.
@Suite struct TileServerDocumentTests {
    /// The value of a counter line `name value` of `/metrics`.
    static func counter(_ name: String, port: Int) async throws -> Int {
        let text = try await TileServerTests.get(port, "/metrics").text
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(name + " ") })
        return try #require(Int(line.dropFirst(name.count + 1)))
    }

    @Test func documents_madeOncePerVersionAndHost_andRemadeWhenTheArchiveOrStyleIsReplaced() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.pmtiles").path
            try TileServerTests.writeArchive(path)
            let stylePath = dir.appendingPathComponent("s.json").path
            let style = #"{"version":8,"sources":{"v":{"type":"vector","url":"pmtiles://t.pmtiles"}},"layers":[]}"#
            try Data(style.utf8).write(to: URL(fileURLWithPath: stylePath))
            try await TileServerTests.withServer(TileServer.Options(data: [path], styles: [stylePath])) { port async throws in
                let misses = "tileserver_document_cache_misses_total", hits = "tileserver_document_cache_hits_total"
                var bodies = Set<[UInt8]>()
                for _ in 0..<10 {
                    let answer = try await TileServerTests.get(port, "/t.json")
                    #expect(answer.status == 200)
                    bodies.insert(answer.body)
                }
                #expect(bodies.count == 1)
                let made = try await Self.counter(misses, port: port), answered = try await Self.counter(hits, port: port)
                #expect(made == 1 && answered == 9, "one TileJSON made, then answered nine times as made")
                // Another Host: a document of its own, with its own absolute URLs.
                let other = try await TileServerTests.get(port, "/t.json", host: "localhost:\(port)").json()
                #expect(other["tiles"] as? [String] == ["http://localhost:\(port)/t/{z}/{x}/{y}.pbf"])
                #expect(try await Self.counter(misses, port: port) == 2)
                // A replaced archive: a new TileJSON from the next request on.
                try TileServerTests.writeArchive(path, maxZoom: 7)
                #expect(try await TileServerTests.get(port, "/t.json").json()["maxzoom"] as? Int == 7)
                #expect(try await Self.counter(misses, port: port) == 3)
                // The style: made once, remade when its file changes.
                for _ in 0..<3 { #expect(try await TileServerTests.get(port, "/styles/s/style.json").status == 200) }
                #expect(try await Self.counter(misses, port: port) == 4)
                try Data(style.replacingOccurrences(of: "[]}", with: #"[{"id":"bg","type":"background"}]}"#).utf8).write(to: URL(fileURLWithPath: stylePath))
                let layers = try await TileServerTests.get(port, "/styles/s/style.json").json()["layers"] as? [[String: Any]]
                #expect(layers?.first?["id"] as? String == "bg")
                #expect(try await Self.counter(misses, port: port) == 5)
                try Data("not json".utf8).write(to: URL(fileURLWithPath: stylePath))
                #expect(try await TileServerTests.get(port, "/styles/s/style.json").status == 500, "a style that no longer reads")
            }
        }
    }

    @Test func acceptEncoding_gzipOrAnyWithoutQZero() {
        for header in ["gzip", "GZip", "deflate, gzip", " x-gzip ;q=0.5", "*", "br;q=1, *;q=0.1", "gzip;level=1;q=1"] {
            #expect(TileServer.acceptsGzip(header), "\(header)")
        }
        for header in [nil, "", "identity", "br, deflate", "gzip;q=0", "gzip; Q=0", "*;q=0", "gzipx", "deflate;q=1, gzip ; q=0"] {
            #expect(!TileServer.acceptsGzip(header), "\(header ?? "nil")")
        }
    }
}
