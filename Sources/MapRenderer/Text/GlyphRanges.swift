#if canImport(CFreeType) && canImport(CHarfBuzz)
import CFreeType
public import MapData

/// The glyph PBF ranges of a font stack made from local fonts (`geo glyphs build`): for each
/// code point the first face whose cmap maps it gives the glyph, as MapLibre combines a
/// `text-font` stack and as node-fontnik's `composite` merges ranges.
public struct GlyphStackBuilder {
    public let faces: [FontFace]
    /// The stack's name, as the style's `text-font` list joined by ", " names it.
    public let name: String

    /// A stack of `faces` named `name`, or the faces' "Family Style" names joined by ", "
    /// (fontnik's names).
    public init(faces: [FontFace], name: String? = nil) {
        self.faces = faces
        self.name = name ?? faces.map(\.fullName).joined(separator: ", ")
    }

    /// The glyphs of the 256 code points from `start` (a multiple of 256, at most 65280).
    /// - Complexity: O(glyphs × bordered pixels × (segments within 8 px)).
    public func range(startingAt start: UInt32) -> GlyphFontStack {
        let first = start / 256 * 256
        var glyphs: [SDFGlyph] = []
        for value in first..<min(first + 256, 0x10000) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for face in faces where face.covers(scalar) {
                if let g = face.sdfGlyph(scalar) { glyphs.append(g) }
                break
            }
        }
        return GlyphFontStack(name: name, range: "\(first)-\(first + 255)", glyphs: glyphs)
    }
}

extension FontFace {
    /// The face's family and style names, "Noto Sans Regular" (FreeType's `family_name` and
    /// `style_name`); the file name when the face has no family name.
    public var fullName: String {
        guard let face, let family = face.pointee.family_name else { return name }
        let style = face.pointee.style_name.map { String(cString: $0) }
        return String(cString: family) + (style.map { " " + $0 } ?? "")
    }
}
#endif
