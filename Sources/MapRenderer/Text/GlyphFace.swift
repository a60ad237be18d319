#if (canImport(CFreeType) && canImport(CHarfBuzz)) || canImport(CoreText)
/// A font face `TextRenderer` shapes runs with and draws glyph outlines of. Chosen at compile
/// time: ``FontFace`` (HarfBuzz shaping, FreeType outlines) where those libraries are built,
/// ``CoreTextFace`` on Apple platforms.
public protocol GlyphFace: AnyObject {
    /// A name for messages (usually the file name).
    var name: String { get }
    /// Whether the face has a glyph for `scalar`.
    func covers(_ scalar: Unicode.Scalar) -> Bool
    /// `text`, one run of one script, shaped at `size` pixels per em: glyphs in visual order,
    /// each with its offset from the pen and its advance.
    func shape(_ text: String, size: Double) -> [GlyphFaceGlyph]
    /// The outline of `glyph` at `size` pixels per em, its origin (pen position on the
    /// baseline) at (0, 0), y down; empty for a glyph without contours (a space).
    func outline(glyph: UInt32, size: Double) -> Path
}

/// One glyph as a face shapes it: pixels, y down; `x` and `y` offset it from the pen, which
/// then moves `advance` to the right.
public struct GlyphFaceGlyph: Sendable, Hashable {
    public var glyph: UInt32
    public var x: Double
    public var y: Double
    public var advance: Double

    public init(glyph: UInt32, x: Double, y: Double, advance: Double) {
        self.glyph = glyph
        self.x = x
        self.y = y
        self.advance = advance
    }
}
#endif
