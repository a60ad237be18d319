import ArgumentParser
import Platform
import MapRenderer
import StyleRendering
import SystemIO

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
            let paths: [String]
            do { paths = try FileDescriptor.files(under: folder) } catch {
                throw CommandLineFileError.noInput(error.errno == ENOENT || error.errno == ENOTDIR ? "no such folder" : "cannot list (\(error))", folder)
            }
            var files: [(path: String, bytes: [UInt8])] = []
            for path in paths {
                do { files.append((path, try FileDescriptor.readContents(of: folder + "/" + path))) } catch {
                    throw CommandLineFileError.noInput("cannot read (\(error))", folder + "/" + path)
                }
            }
            let (icons, ignored) = try CommandLineFileError.damage(of: folder) { try SpriteIcon.icons(files: files) }
            guard !icons.isEmpty else { throw CommandLineFileError.noInput("no .svg or .png icons in the folder", folder) }
            try FileDescriptor.createDirectories(FileDescriptor.directory(of: output))
            var sizes: [String] = []
            for ratio in [1, 2] {
                let sheet = try CommandLineFileError.damage(of: folder) { try SpriteSheet(icons: icons, pixelRatio: ratio) }
                let name = output + (ratio == 1 ? "" : "@\(ratio)x")
                try AtomicFileReplacement.write(try sheet.indexJSON(), to: name + ".json")
                try AtomicFileReplacement.write(try PNG.encode(sheet.image), to: name + ".png")
                sizes.append("\(name).png (\(sheet.image.width)×\(sheet.image.height))")
            }
            standardOutput.line("geo sprites: packed \(icons.count) icon\(icons.count == 1 ? "" : "s") into \(sizes.joined(separator: " and "))"
                                  + (ignored.isEmpty ? "" : "; not icons, left out: \(ignored.joined(separator: ", "))"))
        }
    }
}
