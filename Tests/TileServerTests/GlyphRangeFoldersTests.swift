#if os(Linux)
import Foundation
import GeoTestSupport
import MapData
import MapRenderer
import SystemIO
import Testing
import TileServer

/// `GlyphStackBuilder.writeRanges(to:)`, the files of `geo glyphs build`: 256 range files into a
/// folder it creates, each decoding (GlyphPBF) to the stack's range; the count returned is
/// every decoded glyph; a second write over the folder replaces the files with the same.
@Test func writeRanges_writesEveryRange_andCountsTheGlyphsTheFilesHold() throws {
    let font = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
    guard FileManager.default.fileExists(atPath: font) else {
        if Fixtures.isCI { throw FixtureError.missing("\(font) (scripts/setup.sh installs fonts-noto-core)") }
        return
    }
    let builder = GlyphStackBuilder(faces: [try FontFace(data: try FileDescriptor.readContents(of: font), index: 0, name: font)], name: "Test Stack")
    try withTemporaryDirectory { dir in
        let folder = dir.appendingPathComponent("fonts/Test Stack").path // the parent is created too
        let written = try builder.writeRanges(to: folder)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.count == 256 && files.contains("0-255.pbf") && files.contains("65280-65535.pbf"))
        var decoded = 0
        for start in stride(from: 0, to: 0x10000, by: 256) {
            let name = "\(start)-\(start + 255)"
            let stacks = try GlyphPBF.decode(try FileDescriptor.readContents(of: folder + "/" + name + ".pbf"))
            #expect(stacks.count == 1 && stacks.first?.name == "Test Stack" && stacks.first?.range == name)
            decoded += stacks.first?.glyphs.count ?? 0
        }
        // Noto Sans covers Latin, Greek and Cyrillic: hundreds of glyphs, not a whole font's 65,536.
        #expect(written == decoded && (500..<10_000).contains(written))
        #expect(try builder.writeRanges(to: folder) == written)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 256)
    }
}
#endif
