import ArgumentParser
import MapRenderer
import TileServer

/// `geo glyphs`: the glyph PBFs MapLibre styles name.
struct GlyphsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glyphs",
        abstract: "Glyph PBF ranges (signed distance fields) for MapLibre styles.",
        subcommands: [Build.self]
    )

    /// `geo glyphs build FONT… -o DIR`: the 256 ranges of a font stack.
    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "build",
            abstract: "Write the glyph PBF ranges (0-255.pbf … 65280-65535.pbf) of a font stack made from local fonts.",
            discussion: "Each glyph is a signed distance field at 24 px per em with a 3 px border (radius 8, cutoff 0.25), as node-fontnik makes them; a code point takes its glyph from the first font that has it. Point a style's `glyphs` URL at the folder's parent: {fontstack} is the stack's name."
        )

        @Argument(help: "Font files (.ttf, .otf; PATH#N for face N of a .ttc collection), in fallback order.")
        var fonts: [String]

        @Option(name: .shortAndLong, help: "The folder to write the ranges into (created).")
        var output: String

        @Option(help: "The font stack's name (default: the fonts' \"Family Style\" names joined by \", \").")
        var name: String?

        func run() throws {
            #if os(Linux)
            let faces = try CommandLineFileError.mapFiles(command: nil) { try fonts.map(MapFiles.fontFace) }
            let builder = GlyphStackBuilder(faces: faces, name: name)
            let glyphs = try builder.writeRanges(to: output)
            standardOutput.line("geo glyphs: wrote 256 ranges, \(glyphs) glyphs of \"\(builder.name)\", to \(output)")
            #else
            throw ValidationError("geo glyphs build needs FreeType, which this platform's build does not use yet")
            #endif
        }
    }
}
