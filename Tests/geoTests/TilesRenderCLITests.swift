import Foundation
import GeoTestSupport
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
