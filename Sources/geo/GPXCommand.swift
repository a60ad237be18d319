import ArgumentParser

/// `geo gpx`: GPX track tools.
struct GPXCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpx",
        abstract: "GPX track tools: clean, smooth and simplify recorded tracks.",
        subcommands: [GPXClean.self, GPXSmooth.self, GPXSimplify.self]
    )
}
