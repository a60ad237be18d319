import ArgumentParser
import Foundation
import MapStyle
import SystemIO

/// `geo style`: the MapLibre Style Specification v8.
struct StyleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "style",
        abstract: "MapLibre Style Specification v8: styles and their expressions.",
        subcommands: [Expression.self]
    )

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
            try CommandLineFiles.checkInput(file)
            let bytes: [UInt8]
            do { bytes = try FileDescriptor.readContents(of: file) } catch {
                throw CommandLineFileError.noInput("cannot read (\(error))", file)
            }
            do {
                StandardOutput().line(try ExpressionTestFixture.run(Data(bytes)))
            } catch {
                throw CommandLineFileError.damaged("style expression", file, error)
            }
        }
    }
}
