import ArgumentParser
import Platform
import OSMImport
import SystemIO

/// `geo sample-city -o city.osm.pbf`: writes the embedded default city as a real PBF file.
struct SampleCityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample-city",
        abstract: "Write Lindenau, LocationKit's generated sample city (48.0 N 11.0 E, fictional), as an .osm.pbf file."
    )

    @Option(name: .shortAndLong, help: "Output file (.osm.pbf).")
    var output: String

    @Option(help: "Seed for building sizes, street names and POI placement.")
    var seed: UInt64 = 1

    func run() throws {
        let city = SampleCity.generate(seed: seed)
        try city.write(to: URL(fileURLWithPath: output))
        // A note, on standard error: with `-o /dev/stdout` standard output is the file itself.
        try? FileDescriptor.standardError.writeAll("wrote \(output): \(city.nodes.count) nodes, \(city.ways.count) ways, \(city.relations.count) relations, bbox \(city.boundingBox)\n")
    }
}
