import Foundation
import GeoBase
import GeoCore
import MapData
import MapRenderer
import MapStyle
import OSMImport
import StyleRendering
import Testing
import TileArchives
import TileServer

/// `RasterTileFolder.styleBlocks`: what `geo tiles render --style` draws each block with.
@Suite struct RasterTileStyleBlocksTests {
    /// The built-in style draws a block of 4 × 4 tiles as one 1024² image; without glyph ranges
    /// the sample city's labels are not drawn and each range that was needed is a warning.
    @Test func builtInStyle_drawsTheWholeBlockAndWarnsOfMissingGlyphs() throws {
        let source = try DrawnMapData.features(try SampleCity.generate().mapFeatures()).mapSource(name: "city")
        var warnings: [String] = []
        let draw = RasterTileFolder.styleBlocks(.day, options: DefaultStyle.Options(), data: source, glyphRange: nil) { warnings.append($0) }
        let image = try draw(Metatile.block(holding: 8692, 5694, zoom: 14))
        #expect(image.width == 1024 && image.height == 1024)
        #expect(!warnings.isEmpty)
        #expect(warnings.allSatisfy { $0.contains("glyph") })
        // Not one colour: the city's streets and blocks are drawn over the background.
        let pixels = image.bytes
        #expect(Set(stride(from: 0, to: pixels.count, by: 4 * 997).map { pixels[$0] }).count > 1)
    }

    /// A style file hands the data to its one vector source; a style with none or two is
    /// refused before anything is drawn.
    @Test func styleFile_needsExactlyOneVectorSource() throws {
        let source = try DrawnMapData.features(try SampleCity.generate().mapFeatures()).mapSource(name: "city")
        func style(_ sources: String) throws -> StyleDocument {
            try StyleDocument(data: Data("""
                {"version": 8, "sources": {\(sources)}, "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#123456"}}]}
                """.utf8))
        }
        let paths = StyleResourcePaths(base: nil, stylePath: "style.json")
        for sources in ["", #""a": {"type": "vector"}, "b": {"type": "vector"}"#] {
            let error = #expect(throws: TileServerError.self) { try RasterTileFolder.styleBlocks(try style(sources), data: source, resources: paths) { _ in } }
            #expect(error?.code == .invalidStyle)
            #expect(error?.message == "has \(sources.isEmpty ? 0 : 2) vector sources")
        }
        let draw = try RasterTileFolder.styleBlocks(try style(#""only": {"type": "vector"}"#), data: source, resources: paths) { _ in }
        let image = try draw(Metatile.block(holding: 8692, 5694, zoom: 14))
        // The background layer alone: #123456 everywhere, opaque.
        #expect(image.width == 1024 && Array(image.bytes[0..<4]) == [0x12, 0x34, 0x56, 0xFF])
    }
}
