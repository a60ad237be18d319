import Foundation
import GeoTestSupport
import MapRenderer
import SystemIO
import Testing

@Test func notoFonts_areDebiansFilesInFallbackOrder() throws {
    guard let faces = try notoFaces() else { return }
    // Where Debian's fonts-noto-core and fonts-noto-cjk install them.
    #expect(faces.map(\.name) == ["/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
                                  "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf",
                                  "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"])
}

@Test func notoFonts_aMissingFileIsNamedWithTheFolderLookedIn() throws {
    try withTemporaryDirectory { dir in
        var looked: [String] = []
        let error = #expect(throws: RenderError.self) {
            try NotoFonts.faces(environment: ["LOCATIONKIT_FONTS": dir.path]) { looked.append($0); return try FileDescriptor.readContentsIfPresent(of: $0) }
        }
        #expect(error?.code == .fontNotFound)
        #expect(error?.message == "font NotoSans-Regular.ttf not found in \(dir.path) (apt-get install fonts-noto-core fonts-noto-cjk, or set LOCATIONKIT_FONTS)")
        #expect(looked == [dir.path + "/NotoSans-Regular.ttf"], "LOCATIONKIT_FONTS replaces Debian's folders, and the first missing file stops the search")
    }
}

@Test func notoFonts_aFileThatIsNoFontIsAFontErrorNamingIt() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("NotoSans-Regular.ttf")
        try Data("not a font".utf8).write(to: path)
        let error = #expect(throws: RenderError.self) {
            try NotoFonts.faces(environment: ["LOCATIONKIT_FONTS": dir.path], read: { try FileDescriptor.readContentsIfPresent(of: $0) })
        }
        #expect(error?.code == .font)
        #expect(error?.message.hasPrefix(path.path + ": not a font FreeType can read") == true, "\(String(describing: error))")
    }
}
