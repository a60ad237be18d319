import MapStyle

/// What the `local://` URLs of the default styles (`DefaultStyle`) lead to: their glyph ranges
/// from whoever makes them (`LocalGlyphRanges` over local fonts, as `geo glyphs build` writes
/// them) and their sprite (`DefaultStyleSprite`): a `StyleSnapshot` loader that needs no files.
/// The styles' tiles are not loaded by URL: their map source is handed to `StyleSnapshot` as
/// `sources[DefaultStyle.sourceID]` (as `MapSnapshotter` does).
public struct DefaultStyleResources {
    /// The glyph PBF of a font stack's 256 code points from a start (a multiple of 256); nil
    /// draws no text (every range a warning).
    public var glyphRange: ((_ fontStack: String, _ start: UInt32) throws -> [UInt8])?

    public init(glyphRange: ((_ fontStack: String, _ start: UInt32) throws -> [UInt8])?) {
        self.glyphRange = glyphRange
    }

    /// The bytes of `url`: `local://glyphs/STACK/START-END.pbf`, or the sprite's files.
    /// - Throws: `StyleRenderError` naming the URL for any other URL, a range that is not 256
    ///   code points from a multiple of 256 up to U+FFFF, or no glyph maker; the glyph maker's
    ///   error; `RenderError` only if the sprite could not be made.
    public func load(_ url: String) throws -> [UInt8] {
        if let sprite = try DefaultStyleSprite.bytes(at: url) { return sprite }
        guard url.hasPrefix(DefaultStyle.glyphURLPrefix), url.hasSuffix(".pbf") else {
            throw StyleRenderError("\(url): not a URL of the default style")
        }
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
}
