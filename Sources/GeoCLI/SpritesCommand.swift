import ArgumentParser
import TileServer

/// `geo sprites`: the sprite sheets MapLibre styles name.
struct SpritesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sprites",
        abstract: "Sprite sheets (sprite.json + sprite.png, @2x) for MapLibre styles.",
        subcommands: [Build.self]
    )

    /// `geo sprites build DIR -o NAME`: a folder of icons packed at 1× and 2×.
    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "build",
            abstract: "Pack a folder of SVG and PNG icons into NAME.json + NAME.png and NAME@2x.json + NAME@2x.png.",
            discussion: "An icon's name is its path in the folder without the extension (icons/bus.svg in DIR=icons is \"bus\"). SVG icons are drawn by librsvg at each pixel ratio; NAME.png is a 1× icon and NAME@2x.png, beside it, its 2× drawing (without one, the 2× sheet shows the 1× icon with each pixel doubled). Point a style's `sprite` URL at NAME."
        )

        @Argument(help: "The folder of icons (.svg, .png; searched recursively).")
        var folder: String

        @Option(name: .shortAndLong, help: "The sheets' path without extension: NAME.json, NAME.png, NAME@2x.json, NAME@2x.png are written.")
        var output: String

        func run() throws {
            let packed = try CommandLineFileError.mapFiles(command: nil) { try MapFiles.writeSprites(from: folder, to: output) }
            let sizes = packed.sheets.map { "\($0.name).png (\($0.width)×\($0.height))" }
            standardOutput.line("geo sprites: packed \(packed.icons) icon\(packed.icons == 1 ? "" : "s") into \(sizes.joined(separator: " and "))"
                                  + (packed.ignored.isEmpty ? "" : "; not icons, left out: \(packed.ignored.joined(separator: ", "))"))
        }
    }
}
