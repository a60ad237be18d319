import ArgumentParser
import Platform
import MapStyle
import TileServer

/// `geo style`: the MapLibre Style Specification v8.
struct StyleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "style",
        abstract: "MapLibre Style Specification v8: styles and their expressions.",
        subcommands: [Validate.self, Expression.self, Default.self]
    )

    /// `geo style validate STYLE.json`: every problem of a style, one line each.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check a MapLibre style (v8) against the style specification.",
            discussion: "Prints one line per problem, `PATH: message` with the value's JSON path as maplibre's validator names it (layers[2].paint.fill-color), and what a renderer does instead (the default, or the layer left out). Exits 0 when there is none, 1 when there are problems, 65 when the file is not a v8 style at all."
        )

        @Argument(help: "The style document (style.json).")
        var file: String

        func run() throws {
            let style = try CommandLineFileError.mapFiles(command: nil) { try MapFiles.style(at: file) }
            for d in style.diagnostics { standardOutput.line(d.recovery.map { "\(d) (\($0))" } ?? d.description) }
            if !style.diagnostics.isEmpty { throw ExitCode.failure }
        }
    }

    /// `geo style expression FILE`: one expression conformance test, evaluated.
    struct Expression: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "expression",
            abstract: "Evaluate one maplibre-style-spec expression test fixture (test.json).",
            discussion: "Prints one JSON object shaped as the fixture's `expected`: the compiled result (type, feature and zoom dependence, or the parse errors with their key paths) and one output per input."
        )

        @Argument(help: "The fixture: a test.json of maplibre-style-spec's expression tests.")
        var file: String

        func run() throws {
            let bytes = try CommandLineFileError.mapFiles(command: nil) { try MapFiles.contents(file) }
            standardOutput.line(try CommandLineFileError.damage(of: file) { try ExpressionTestFixture.run(Data(bytes)) })
        }
    }

    /// `geo style default [--night]`: a built-in style's JSON (`DefaultStyle`), to edit, serve
    /// or draw elsewhere (its tiles and glyphs are `local://` URLs).
    struct Default: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "default",
            abstract: "Print the built-in default style (MapLibre v8 JSON): the day look, or --night.",
            discussion: "The style `geo snapshot --style default` (or default-night) draws: layers over the tiles `geo tiles build` writes, at local://tiles/{z}/{x}/{y}.pbf, glyphs at local://glyphs/{fontstack}/{range}.pbf (`geo glyphs build`)."
        )

        @Flag(help: "The night scheme.")
        var night = false

        func run() throws {
            standardOutput.line(try DefaultStyle.jsonText(night ? .night : .day))
        }
    }
}
