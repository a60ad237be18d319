#if canImport(CFreeType) && canImport(CHarfBuzz)
import MapData
public import MapRenderer
import SystemIO

extension GlyphStackBuilder {
    /// Writes the stack's 256 glyph PBF ranges, `0-255.pbf` … `65280-65535.pbf`, into `folder`
    /// (created with the folders above it), each file replaced atomically: what `geo glyphs
    /// build` writes and a style's `glyphs` URL (or `geo serve --fonts`) reads.
    /// - Returns: the glyphs written, every range together.
    /// - Throws: `SystemIOError` naming the folder or file that could not be written.
    public func writeRanges(to folder: String) throws -> Int {
        try FileDescriptor.createDirectories(folder)
        var glyphs = 0
        for start in stride(from: UInt32(0), to: 0x10000, by: 256) {
            let range = range(startingAt: start)
            try AtomicFileReplacement.write(GlyphPBF.encode([range]), to: folder + "/" + range.range + ".pbf")
            glyphs += range.glyphs.count
        }
        return glyphs
    }
}
#endif
