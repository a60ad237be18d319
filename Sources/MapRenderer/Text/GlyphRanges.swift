#if canImport(CFreeType) && canImport(CHarfBuzz)
import CFreeType
public import MapData
import Synchronization

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

/// Glyph PBF ranges made on request from local fonts for whatever font stack a style names
/// (`geo serve`'s `/fonts/…` when no `geo glyphs build` folder has the stack, `geo snapshot`'s
/// built-in styles): the faces the stack lists (by "Family Style" name, any case) in its order,
/// then the other faces as fallbacks, so that a label in any script the local fonts cover is
/// drawn whatever the stack names — as tileserver-gl falls back to the fonts it has. FreeType
/// faces are not thread-safe: one range is made at a time.
public final class LocalGlyphRanges: Sendable {
    private let faces: Mutex<[FontFace]>

    public init(faces: sending [FontFace]) {
        self.faces = Mutex(faces)
    }

    /// The glyph PBF (`GlyphPBF`) of the 256 code points from `start` (a multiple of 256, at
    /// most 65280) of the stack `stack` (the `text-font` list joined by ","; spaces after a
    /// comma ignored).
    public func range(stack: String, startingAt start: UInt32) -> [UInt8] {
        let names = stack.split(separator: ",").map { $0.drop { $0 == " " }.lowercased() }
        return faces.withLock { faces in
            let listed = names.compactMap { name in faces.firstIndex { $0.fullName.lowercased() == name } }
            var order: [Int] = []
            for i in listed + Array(faces.indices) where !order.contains(i) { order.append(i) }
            return GlyphPBF.encode([GlyphStackBuilder(faces: order.map { faces[$0] }, name: stack).range(startingAt: start)])
        }
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
