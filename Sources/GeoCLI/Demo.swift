import ArgumentParser
import DemoTour
import Platform
import TileServer

/// `geo demo`: a short tour of what LocationKit can do on the embedded default data
/// (``DemoTour``), narrated on standard output.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A short tour of LocationKit on the embedded default data (no arguments needed)."
    )

    @Option(help: "Where the sample city's snapshot goes (default: locationkit-demo-sample-city.png in the temporary folder).")
    var snapshot: String?

    func run() async throws {
        let png = snapshot ?? FileManager.default.temporaryDirectory.appendingPathComponent("locationkit-demo-sample-city.png").path
        try await DemoTour.run(snapshot: png, text: { try CommandLineFileError.mapFiles(command: "demo") { try MapFiles.text() } }, line: { standardOutput.line($0) })
    }
}
