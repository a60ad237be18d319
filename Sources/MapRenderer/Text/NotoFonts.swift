#if canImport(CFreeType) && canImport(CHarfBuzz)
/// The label fonts of the project's maps: Noto Sans (Latin, Greek, Cyrillic), Noto Sans Arabic
/// and Noto Sans CJK (Japanese, Chinese, Korean), in that fallback order, where Debian's
/// fonts-noto-core and fonts-noto-cjk install them; `LOCATIONKIT_FONTS` names another folder
/// to take the same files from instead. The caller reads the files (MapRenderer reads none).
public enum NotoFonts {
    /// One font file: its name, the face of it to open, the folders it is looked for in.
    public struct File: Sendable {
        public var name: String
        public var index: Int
        public var folders: [String]
    }

    /// The files in fallback order.
    public static let files: [File] = [
        File(name: "NotoSans-Regular.ttf", index: 0, folders: ["/usr/share/fonts/truetype/noto"]),
        File(name: "NotoSansArabic-Regular.ttf", index: 0, folders: ["/usr/share/fonts/truetype/noto"]),
        // Face 0 of the collection is Noto Sans CJK JP.
        File(name: "NotoSansCJK-Regular.ttc", index: 0, folders: ["/usr/share/fonts/opentype/noto"]),
    ]

    /// The fonts, opened, in fallback order; each named by its path.
    /// - Parameters:
    ///   - environment: `LOCATIONKIT_FONTS`, when set, is the one folder every file is taken from.
    ///   - read: the bytes of the file at a path, nil when there is none (missing, or a directory).
    /// - Throws: `RenderError.fontNotFound` naming the missing file, where it was looked for and
    ///   the Debian packages that have it; `RenderError.font` for a file that is no font; what
    ///   `read` throws.
    public static func faces(environment: [String: String], read: (String) throws -> [UInt8]?) throws -> [FontFace] {
        var faces: [FontFace] = []
        for file in files {
            let folders = environment["LOCATIONKIT_FONTS"].map { [$0] } ?? file.folders
            var found: (path: String, bytes: [UInt8])?
            for path in folders.map({ $0 + "/" + file.name }) {
                if let bytes = try read(path) {
                    found = (path, bytes)
                    break
                }
            }
            guard let found else {
                throw RenderError(.fontNotFound, "font \(file.name) not found in \(folders.joined(separator: ", ")) (apt-get install fonts-noto-core fonts-noto-cjk, or set LOCATIONKIT_FONTS)")
            }
            faces.append(try FontFace(data: found.bytes, index: file.index, name: found.path))
        }
        return faces
    }
}
#endif
