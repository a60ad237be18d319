public import MapData
import MapStyle

/// What the `local://` URLs of the default styles (`DefaultStyle`) lead to: their vector tiles
/// from a map source (an archive, or features in memory through `FeatureMapSource`), their glyph
/// ranges from whoever makes them (`GlyphStackBuilder` over local fonts, as `geo glyphs build`
/// writes them): a `StyleSnapshot` loader that needs no files.
public struct DefaultStyleResources {
    /// The tiles of `DefaultStyle.sourceID`.
    public var tiles: any MapSource
    /// The glyph PBF of a font stack's 256 code points from a start (a multiple of 256); nil
    /// draws no text (every range a warning).
    public var glyphRange: ((_ fontStack: String, _ start: UInt32) throws -> [UInt8])?

    public init(tiles: any MapSource, glyphRange: ((_ fontStack: String, _ start: UInt32) throws -> [UInt8])?) {
        self.tiles = tiles
        self.glyphRange = glyphRange
    }

    /// The bytes of `url`: `local://tiles/Z/X/Y.pbf` (an empty tile where the source has none),
    /// `local://glyphs/STACK/START-END.pbf`, the sprite (`DefaultStyleSprite`).
    /// - Throws: `StyleRenderError` naming the URL for any other URL, a tile address outside
    ///   the source's zooms or the zoom's grid, a range that is not 256 code points from a
    ///   multiple of 256 up to U+FFFF, or no glyph maker; the source's or glyph maker's error.
    public func load(_ url: String) throws -> [UInt8] {
        if url.hasPrefix(DefaultStyle.tileURLPrefix), url.hasSuffix(".pbf") {
            let parts = url.dropFirst(DefaultStyle.tileURLPrefix.count).dropLast(4).split(separator: "/").compactMap { Int($0) }
            guard parts.count == 3, case let (z, x, y) = (parts[0], parts[1], parts[2]),
                  (tiles.metadata.minZoom...tiles.metadata.maxZoom).contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else {
                throw StyleRenderError("\(url): not a tile of the source (zooms \(tiles.metadata.minZoom)…\(tiles.metadata.maxZoom))")
            }
            return try tiles.tile(zoom: z, x: x, y: y)?.bytes ?? []
        }
        if url.hasPrefix(DefaultStyle.glyphURLPrefix), url.hasSuffix(".pbf") {
            let path = url.dropFirst(DefaultStyle.glyphURLPrefix.count).dropLast(4)
            guard let slash = path.lastIndex(of: "/") else { throw StyleRenderError("\(url): not a glyph range URL") }
            let stack = String(path[..<slash])
            let bounds = path[path.index(after: slash)...].split(separator: "-").compactMap { UInt32($0) }
            guard bounds.count == 2, bounds[0] % 256 == 0, bounds[1] == bounds[0] + 255, bounds[1] <= 0xFFFF else {
                throw StyleRenderError("\(url): not a range of 256 code points from a multiple of 256 up to U+FFFF")
            }
            guard let glyphRange else { throw StyleRenderError("\(url): no fonts to make glyphs from") }
            return try glyphRange(stack, bounds[0])
        }
        if let sprite = try DefaultStyleSprite.bytes(at: url) { return sprite }
        throw StyleRenderError("\(url): not a URL of the default style")
    }
}
