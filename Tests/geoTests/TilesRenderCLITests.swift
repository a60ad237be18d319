import Foundation
import GeoCore
import GeoTestSupport
import MapRenderer
import SystemIO
import Testing

/// `geo tiles render` end to end: XYZ PNG tiles from an OSM file and from the archive
/// `geo tiles build` writes.
struct TilesRenderCLITests {
    /// The PNG tiles under `dir`, as "z/x/y" → file bytes.
    private func tiles(in dir: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "png" else { continue }
            let parts = url.pathComponents.suffix(3)
            out[parts.joined(separator: "/").replacingOccurrences(of: ".png", with: "")] = try Data(contentsOf: url)
        }
        return out
    }

    @Test(.onOwnThread) func render_monaco_fromOSMAndFromPMTiles_writesXYZTiles() async throws {
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        try await withTemporaryDirectory { dir in
            let fromOSM = dir.appendingPathComponent("osm")
            let result = try await GeoProcess.geo(["tiles", "render", url.path, "--zoom", "12-13", "-o", fromOSM.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("zoom 13/13"), "a progress line per zoom: \(result.stderr)")
            let osmTiles = try tiles(in: fromOSM)
            // Monaco's data (7.40–7.45° E, 43.72–43.76° N with its surroundings) at z12–13.
            #expect(osmTiles.keys.contains { $0.hasPrefix("12/2132/") } && osmTiles.keys.contains { $0.hasPrefix("13/4264/") }, "\(osmTiles.keys.sorted())")
            // PNGs of 256 × 256 (IHDR width and height, big-endian, at bytes 16…23).
            #expect(osmTiles.values.allSatisfy { $0.starts(with: [0x89, 0x50, 0x4E, 0x47]) && Array($0[16..<24]) == [0, 0, 1, 0, 0, 0, 1, 0] })
            // Not blank: a tile of one colour compresses to a few hundred bytes, Monaco's to tens of kB.
            #expect(osmTiles.values.contains { $0.count > 20_000 })

            let archive = dir.appendingPathComponent("monaco.pmtiles").path
            #expect(try await GeoProcess.geo(["tiles", "build", url.path, "-o", archive, "--minzoom", "12", "--maxzoom", "13"]).status == 0)
            let fromArchive = dir.appendingPathComponent("pmtiles")
            let again = try await GeoProcess.geo(["tiles", "render", archive, "--zoom", "14", "-o", fromArchive.path])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try tiles(in: fromArchive).keys.allSatisfy { $0.hasPrefix("14/") } && !(try tiles(in: fromArchive)).isEmpty)
        }
    }

    /// `--style`: the built-in day and night styles over an archive, and a style file whose one
    /// vector source the archive serves. A tile of zoom z is the style drawn at MapLibre zoom
    /// z − 1 (its 512-pixel world): the 4 × 4 block holding Monaco's harbour equals, pixel for
    /// pixel, `geo snapshot --style default` of the block's centre at z − 1, 1024 × 1024.
    @Test(.onOwnThread) func render_withStyles_builtInDayAndNight_andAStyleFile() async throws {
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        try await withTemporaryDirectory { dir in
            let archive = dir.appendingPathComponent("monaco.pmtiles").path
            // Zoom 13 tiles: what MapLibre draws tiles of zoom 14 (its zoom 13) from.
            #expect(try await GeoProcess.geo(["tiles", "build", url.path, "-o", archive, "--minzoom", "13", "--maxzoom", "13"]).status == 0)
            var drawn: [String: [String: Data]] = [:]
            for style in ["default", "default-night"] {
                let out = dir.appendingPathComponent(style)
                let result = try await GeoProcess.geo(["tiles", "render", archive, "--zoom", "14", "-o", out.path, "--style", style])
                #expect(result.status == 0, "\(result.stderr)")
                drawn[style] = try tiles(in: out)
            }
            let day = try #require(drawn["default"]), night = try #require(drawn["default-night"])
            #expect(!day.isEmpty && Set(day.keys) == Set(night.keys))
            // Monaco's harbour lies in tile 14/8529/5974 (7.40…7.43° E, 43.73…43.75° N).
            let harbour = "14/8529/5974"
            let dayImage = try PNG.decode([UInt8](try #require(day[harbour]))), nightImage = try PNG.decode([UInt8](try #require(night[harbour])))
            func light(_ image: Pixmap) -> Double {
                var sum = 0.0
                for y in stride(from: 0, to: 256, by: 8) { for x in stride(from: 0, to: 256, by: 8) { let c = image.color(x: x, y: y); sum += Double(c.red) + Double(c.green) + Double(c.blue) } }
                return sum
            }
            #expect(light(nightImage) < 0.6 * light(dayImage), "night is darker: \(light(nightImage)) vs \(light(dayImage))")
            // The block holding the harbour tile, drawn whole by geo snapshot.
            let block = Metatile.block(holding: 8529, 5974, zoom: 14)
            let whole = dir.appendingPathComponent("block.png").path
            let snapshot = try await GeoProcess.geo(["snapshot", "--style", "default", "--data", archive, "--center", "\(block.center.latitude),\(block.center.longitude)",
                                                     "--zoom", "13", "--size", "1024x1024", "-o", whole])
            try #require(snapshot.status == 0, "\(snapshot.stderr)")
            let image = try PNG.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: whole))))
            let cut = try #require(try block.tiles(of: image).first { $0.x == 8529 && $0.y == 5974 })
            #expect(cut.image == dayImage, "the tile is the block's drawing at zoom 13, cut")

            // A style file: its one vector source is the archive; water blue over a red ground.
            let stylePath = dir.appendingPathComponent("water.json").path
            try Data(##"{"version":8,"sources":{"v":{"type":"vector","url":"pmtiles://elsewhere.pmtiles"}},"layers":[{"id":"bg","type":"background","paint":{"background-color":"#ff0000"}},{"id":"w","type":"fill","source":"v","source-layer":"water","paint":{"fill-color":"#0000ff","fill-antialias":false}}]}"##.utf8)
                .write(to: URL(fileURLWithPath: stylePath))
            let waterOut = dir.appendingPathComponent("water")
            let water = try await GeoProcess.geo(["tiles", "render", archive, "--zoom", "14", "-o", waterOut.path, "--style", stylePath])
            #expect(water.status == 0, "\(water.stderr)")
            let sea = try PNG.decode([UInt8](try #require(try tiles(in: waterOut)[harbour])))
            var blue = 0, red = 0
            for y in 0..<256 { for x in 0..<256 { let c = sea.color(x: x, y: y); if c == Color(red: 0, green: 0, blue: 255) { blue += 1 } else if c == Color(red: 255, green: 0, blue: 0) { red += 1 } } }
            #expect(blue > 256 * 256 / 10 && red > 256 * 256 / 10, "harbour water and land: \(blue) blue, \(red) red pixels")
            // Two vector sources: which one the archive serves is not said.
            try Data(##"{"version":8,"sources":{"a":{"type":"vector","tiles":["x"]},"b":{"type":"vector","tiles":["y"]}},"layers":[]}"##.utf8)
                .write(to: URL(fileURLWithPath: stylePath))
            let two = try await GeoProcess.geo(["tiles", "render", archive, "--zoom", "14", "-o", waterOut.path, "--style", stylePath])
            #expect(two.exit == .exited(64) && two.stderr.contains("2 vector sources"), "\(two.stderr)")
        }
    }

    @Test(arguments: [
        (["--zoom", "17-14"], "--zoom"),
        (["--zoom", "23"], "--zoom"),
        (["--zoom", "a-b"], "--zoom"),
        (["--zoom", "14", "--max-tiles", "0"], "--max-tiles"),
    ])
    func render_badOptions_areUsageErrors(options: [String], named: String) async throws {
        let result = try await GeoProcess.geo(["tiles", "render", "/nonexistent.osm.pbf", "-o", "/tmp/x"] + options)
        #expect(result.exit == .exited(64), "\(result.stderr)")
        #expect(result.stderr.contains(named))
    }

    /// Label fonts not installed: the built-in style's tiles fail as the painter's do, naming
    /// `geo tiles render` (the command that ran; it named `geo snapshot`), the font and the
    /// Debian package that has it, before any tile is written.
    @Test func render_builtInStyleWithoutFonts_namesTheCommandThatRan() async throws {
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        try await withTemporaryDirectory { dir in
            let out = dir.appendingPathComponent("tiles")
            for style in [["--style", "default"], []] {
                let result = try await GeoProcess.geo(["tiles", "render", url.path, "--zoom", "12", "-o", out.path] + style,
                                                      environment: ["LOCATIONKIT_FONTS": dir.path])
                #expect(result.exit == .exited(66), "\(style): \(result.stderr)")
                #expect(result.stderr.hasPrefix("geo tiles render: ") && result.stderr.contains("font NotoSans-Regular.ttf not found")
                        && result.stderr.contains("fonts-noto-core"), "\(style): \(result.stderr)")
                #expect(try tiles(in: out).isEmpty)
            }
        }
    }

    @Test func render_tooManyTilesOrMissingInput_failsInOneLine() async throws {
        let missing = try await GeoProcess.geo(["tiles", "render", "/nonexistent.osm.pbf", "--zoom", "14", "-o", "/tmp/x"])
        #expect(missing.exit == .exited(66), "\(missing.stderr)")
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        let many = try await GeoProcess.geo(["tiles", "render", url.path, "--zoom", "14-22", "--max-tiles", "1000", "-o", "/tmp/never-written"])
        #expect(many.status != 0 && many.stderr.contains("--max-tiles"), "\(many.stderr)")
        #expect(many.stderr.split(separator: "\n").count <= 3)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written"))
    }
}
