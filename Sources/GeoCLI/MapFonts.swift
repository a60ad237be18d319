#if os(Linux)
import MapRenderer
import SystemIO

/// The label fonts of `geo snapshot`: Noto Sans (Latin, Greek, Cyrillic), Noto Sans Arabic and
/// Noto Sans CJK (Japanese, Chinese, Korean), in that fallback order, from Debian's
/// fonts-noto-core and fonts-noto-cjk. `LOCATIONKIT_FONTS` names another folder to take the
/// same files from instead. (Linux: MapRenderer's text is HarfBuzz + FreeType there; the
/// Core Text path for Apple platforms is not written yet.)
enum MapFonts {
    static let files: [(name: String, index: Int, folders: [String])] = [
        ("NotoSans-Regular.ttf", 0, ["/usr/share/fonts/truetype/noto"]),
        ("NotoSansArabic-Regular.ttf", 0, ["/usr/share/fonts/truetype/noto"]),
        // Face 0 of the collection is Noto Sans CJK JP.
        ("NotoSansCJK-Regular.ttc", 0, ["/usr/share/fonts/opentype/noto"]),
    ]

    /// Reads the fonts and opens them for text.
    /// - Throws: as `faces(environment:)`.
    static func load(environment: [String: String]) throws -> TextRenderer {
        try TextRenderer(faces: try faces(environment: environment))
    }

    /// The fonts, read, in fallback order.
    /// - Throws: `CommandLineFileError` naming a missing file, where it looked and the Debian
    ///   packages that have it; `ValidationError` for a file that is no font.
    static func faces(environment: [String: String]) throws -> [FontFace] {
        var faces: [FontFace] = []
        for file in files {
            let folders = environment["LOCATIONKIT_FONTS"].map { [$0] } ?? file.folders
            guard let path = folders.map({ $0 + "/" + file.name }).first(where: { (try? CommandLineFiles.checkInput($0)) != nil }) else {
                throw CommandLineFileError(description: "geo snapshot: font \(file.name) not found in \(folders.joined(separator: ", ")) (apt-get install fonts-noto-core fonts-noto-cjk, or set LOCATIONKIT_FONTS)", status: 66)
            }
            faces.append(try FontFace(data: try FileDescriptor.readContents(of: path), index: file.index, name: path))
        }
        return faces
    }
}
#endif
