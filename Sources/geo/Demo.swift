import ArgumentParser
import GeoCore

/// `geo demo`: a short tour of what LocationKit can do on the embedded default data.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A short tour of LocationKit on the embedded default data (no arguments needed)."
    )

    func run() async throws {
        print("LocationKit demo")
    }
}
