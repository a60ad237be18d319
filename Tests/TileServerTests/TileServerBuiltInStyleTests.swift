import Foundation
import GeoTestSupport
import MapData
import MapRenderer
import MapStyle
import Synchronization
import Testing
@testable import TileServer

/// The built-in styles served over the first vector tileset, and glyph ranges made from local
/// fonts (`Options.localGlyphs`) for stacks no `--fonts` folder has.
@Suite struct TileServerBuiltInStyleTests {
    /// A maker of glyph ranges that counts its calls: one glyph, `A`, named after the stack.
    final class CountingGlyphs: Sendable {
        let calls = Mutex(0)
        func make(_ stack: String, _ start: UInt32) -> [UInt8] {
            calls.withLock { $0 += 1 }
            let glyph = SDFGlyph(id: start + 65, bitmap: [UInt8](repeating: 200, count: 64), width: 2, height: 2, left: 0, top: -20, advance: 10)
            return GlyphPBF.encode([GlyphFontStack(name: stack, range: "\(start)-\(start + 255)", glyphs: [glyph])])
        }
    }

    @Test func builtInStyles_pointAtTheTileset_andTheirGlyphsAreMadeOnceFromLocalFonts() async throws {
        try await withTemporaryDirectory { dir in
            let (path, _) = try TileServerTests.parkArchiveAndStyle(in: dir, maxZoom: 3)
            // A stack of its own under --fonts, which local fonts do not replace.
            let folder = dir.appendingPathComponent("fonts/Own Sans")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let own = GlyphPBF.encode([GlyphFontStack(name: "Own Sans", range: "0-255", glyphs: [])])
            try Data(own).write(to: folder.appendingPathComponent("0-255.pbf"))
            let glyphs = CountingGlyphs()
            let options = TileServer.Options(data: [path], fonts: dir.appendingPathComponent("fonts").path, localGlyphs: { glyphs.make($0, $1) })
            try await TileServerTests.withServer(options) { port async throws in
                let base = "http://127.0.0.1:\(port)"
                let index = try await TileServerTests.get(port, "/").json()
                let ids = (index["styles"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                #expect(ids == ["default", "default-night"])
                for id in ["default", "default-night"] {
                    let style = try await TileServerTests.get(port, "/styles/\(id)/style.json").json()
                    let source = try #require((style["sources"] as? [String: Any])?[DefaultStyle.sourceID] as? [String: Any])
                    #expect(source["url"] as? String == "\(base)/parks.json" && source["tiles"] == nil && source["maxzoom"] == nil, "\(source)")
                    #expect(style["glyphs"] as? String == "\(base)/fonts/{fontstack}/{range}.pbf")
                    let layers = try #require(style["layers"] as? [[String: Any]])
                    #expect(layers.count == (try DefaultStyle.document(id == "default" ? .day : .night)).layers.count)
                }
                // A stack no folder has: made on the first request, then kept.
                for _ in 0..<3 {
                    let answer = try await TileServerTests.get(port, "/fonts/Noto%20Sans%20Regular/256-511.pbf")
                    #expect(answer.status == 200 && answer.headers["content-type"] == "application/x-protobuf")
                    let stacks = try GlyphPBF.decode(answer.body)
                    #expect(stacks.first?.range == "256-511" && stacks.first?.glyphs.map(\.id) == [321])
                }
                #expect(glyphs.calls.withLock { $0 } == 1)
                // The folder's own stack is read from the folder; not a range: 404, nothing made.
                #expect(try await TileServerTests.get(port, "/fonts/Own%20Sans/0-255.pbf").body == own)
                #expect(try await TileServerTests.get(port, "/fonts/Noto%20Sans%20Regular/1-256.pbf").status == 404)
                #expect(glyphs.calls.withLock { $0 } == 1)
                // Raster tiles of the built-in styles: the park (tile 3/4/3 lies inside it) in
                // the style's park colour, darker at night.
                let day = try PNG.decode(try await TileServerTests.get(port, "/styles/default/3/4/3.png").body).color(x: 128, y: 128)
                let night = try PNG.decode(try await TileServerTests.get(port, "/styles/default-night/3/4/3.png").body).color(x: 128, y: 128)
                let dayLight: Int = Int(day.red) + Int(day.green) + Int(day.blue)
                let nightLight: Int = Int(night.red) + Int(night.green) + Int(night.blue)
                #expect(2 * dayLight > 3 * nightLight, "day \(day), night \(night)")
                #expect(day.green > day.red && day.green > day.blue, "a park is green: \(day)")
            }
        }
    }

    @Test func builtInStyles_withoutFonts_leaveTheLabelsOut_andAStyleFileMayTakeTheirID() async throws {
        try await withTemporaryDirectory { dir in
            let (path, _) = try TileServerTests.parkArchiveAndStyle(in: dir, maxZoom: 2)
            let own = dir.appendingPathComponent("default.json").path
            try Data(#"{"version":8,"name":"mine","sources":{},"layers":[]}"#.utf8).write(to: URL(fileURLWithPath: own))
            try await TileServerTests.withServer(TileServer.Options(data: [path], styles: [own])) { port async throws in
                #expect(try await TileServerTests.get(port, "/styles/default/style.json").json()["name"] as? String == "mine")
                let night = try await TileServerTests.get(port, "/styles/default-night/style.json").json()
                #expect(night["glyphs"] == nil)
                let layers = try #require(night["layers"] as? [[String: Any]])
                #expect(!layers.isEmpty && layers.allSatisfy { ($0["layout"] as? [String: Any])?["text-field"] == nil })
                #expect(try await TileServerTests.get(port, "/fonts/Noto%20Sans%20Regular/0-255.pbf").status == 404)
            }
        }
    }
}
