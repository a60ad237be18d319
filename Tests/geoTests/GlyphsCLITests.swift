import Foundation
import GeoTestSupport
import MapData
import Testing

/// `geo glyphs build`: the 256 ranges of a font stack from a local font (Debian fonts-noto-core).
@Test func glyphsBuild_writesEveryRangeOfTheStack() async throws {
    let font = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
    guard FileManager.default.fileExists(atPath: font) else {
        if Fixtures.isCI { throw FixtureError.missing("\(font) (scripts/setup.sh installs fonts-noto-core)") }
        return
    }
    try await withTemporaryDirectory { dir in
        let out = dir.appendingPathComponent("Noto Sans Regular")
        let r = try await GeoProcess.geo(["glyphs", "build", font, "-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("256 ranges") && r.stdout.contains("\"Noto Sans Regular\""), "\(r.stdout)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(files.count == 256 && files.contains("0-255.pbf") && files.contains("65280-65535.pbf"))
        let latin = try GlyphPBF.decode([UInt8](try Data(contentsOf: out.appendingPathComponent("0-255.pbf"))))
        #expect(latin.first?.name == "Noto Sans Regular" && latin.first?.range == "0-255")
        #expect(latin.first?.glyphs.contains { $0.id == 65 && $0.width > 10 } == true)
        // Noto Sans has no CJK ideographs: their range is written, empty.
        let cjk = try GlyphPBF.decode([UInt8](try Data(contentsOf: out.appendingPathComponent("19968-20223.pbf"))))
        #expect(cjk.first?.glyphs.isEmpty == true)

        let missing = try await GeoProcess.geo(["glyphs", "build", dir.appendingPathComponent("none.ttf").path, "-o", out.path])
        #expect(missing.status == 66 && missing.stderr.contains("none.ttf"), "\(missing.stderr)")
        let notFont = dir.appendingPathComponent("not.ttf")
        try "not a font".write(to: notFont, atomically: true, encoding: .utf8)
        let damaged = try await GeoProcess.geo(["glyphs", "build", notFont.path, "-o", out.path])
        #expect(damaged.status == 65 && damaged.stderr.contains("not.ttf"), "\(damaged.stderr)")
    }
}
