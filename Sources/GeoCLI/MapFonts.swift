#if os(Linux)
import MapRenderer

/// The label fonts of `geo snapshot`, `geo map` and `geo tiles render`: `NotoFonts`, read
/// through SystemIO. (Linux: MapRenderer's text is HarfBuzz + FreeType there; the Core Text
/// path for Apple platforms is not written yet.)
enum MapFonts {
    /// The fonts, opened for text.
    static func load(environment: [String: String]) throws -> TextRenderer {
        try TextRenderer(faces: try faces(environment: environment))
    }

    /// The fonts in fallback order.
    /// - Throws: `CommandLineFileError` (66) for a missing file, naming it, where it was looked
    ///   for and the Debian packages that have it; `RenderError` for a file that is no font.
    static func faces(environment: [String: String]) throws -> [FontFace] {
        do {
            return try NotoFonts.faces(environment: environment, read: CommandLineFiles.contentsIfPresent)
        } catch let error as RenderError where error.code == .fontNotFound {
            throw CommandLineFileError(description: "geo snapshot: \(error.message)", status: 66)
        }
    }
}
#endif
