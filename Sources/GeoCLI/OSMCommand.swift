import ArgumentParser
import Platform
import GeoCore
import OSMImport

/// `geo osm …`: inspect OpenStreetMap files.
struct OSMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "osm",
        abstract: "Inspect OpenStreetMap files (.osm.pbf, .osm, .osm.gz).",
        subcommands: [Info.self]
    )

    /// `geo osm info FILE`: element counts, extent and read time.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "info", abstract: "Count the nodes, ways and relations of an OSM file and time the read.")

        @Argument(help: "An .osm.pbf, .osm or .osm.gz file.")
        var file: String

        @Flag(help: "Skip element metadata (version, timestamp, user) while reading.")
        var noMetadata = false

        @Flag(help: "Count what comes before damage in a truncated or damaged file (and say where it is) instead of failing.")
        var recover = false

        func run() throws {
            var fileFormat = OSMFileFormat.xml
            let start = ContinuousClock.now
            let statistics = try CommandLineFiles.reading(file, command: "osm", damage: { $0 is OSMError }) {
                try OSMFileReader.statistics(url: URL(fileURLWithPath: file), options: OSMReadOptions(includesMetadata: !noMetadata, recovering: recover),
                                             detected: { fileFormat = $0 })
            }
            for line in statistics.summary.damageLines(file: file) { CommandLineFiles.note("osm", line) }
            let seconds = (ContinuousClock.now - start).seconds
            for line in statistics.report(file: file, format: fileFormat, seconds: seconds) { standardOutput.line(line) }
        }
    }
}
