import ArgumentParser
import Platform
import GeoCore
import OSMImport
import RoadNetwork
import SystemIO

/// `geo extract IN -o OUT.graph --profile car|foot|bike`: the extract stage (OSRM `osrm-extract`).
struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Build a road graph file from an OpenStreetMap extract (.osm.pbf, .osm, .osm.gz)."
    )

    @Argument(help: "The OSM file to read.")
    var input: String

    @Option(name: .shortAndLong, help: "The graph file to write.")
    var output: String

    @Flag(help: "Build the graph from what comes before damage in a truncated or damaged file (and say where it is) instead of failing.")
    var recover = false

    @Option(help: "Travel profile: car, foot or bike.")
    var profile: String = "car"

    func validate() throws {
        guard Profile.named(profile) != nil else { throw ValidationError("unknown profile '\(profile)': use car, foot or bike") }
    }

    func run() throws {
        guard let profile = Profile.named(profile) else { throw ValidationError("unknown profile '\(self.profile)'") }
        let start = ContinuousClock.now
        let result = try CommandLineFiles.reading(input, damage: { $0 is OSMError }) {
            try RoadGraphExtractor.extract(from: URL(fileURLWithPath: input), profile: profile, recovering: recover)
        }
        for line in result.summary.damageLines(file: input) { CommandLineFiles.note("extract", line) }
        let bytes = result.graph.serialized()
        try AtomicFileReplacement.write(bytes, to: output)
        let seconds = (ContinuousClock.now - start).seconds
        for line in result.logLines(profile: profile, fileBytes: bytes.count) + ["time: \(format(seconds, 3)) s"] { try? FileDescriptor.standardError.writeAll(line + "\n") }
    }
}
