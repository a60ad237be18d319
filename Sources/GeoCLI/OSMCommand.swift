import ArgumentParser
import Foundation
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
            try CommandLineFiles.checkInput(file)
            let url = URL(fileURLWithPath: file)
            var fileFormat = OSMFileFormat.xml
            let clock = ContinuousClock()
            let start = clock.now
            let statistics: OSMFileStatistics
            do {
                statistics = try OSMFileReader.statistics(url: url, options: OSMReadOptions(includesMetadata: !noMetadata, recovering: recover),
                                                          detected: { fileFormat = $0 })
            } catch let error as OSMError {
                throw CommandLineFileError.damaged("osm", file, error)
            }
            let summary = statistics.summary
            CommandLineFiles.reportDamage(summary.damage, command: "osm", file: file, kept: summary.elementCounts)
            let elapsed = clock.now - start
            let seconds = elapsed.seconds
            let total = summary.nodeCount + summary.wayCount + summary.relationCount
            standardOutput.line("file: \(file)")
            standardOutput.line("format: \(fileFormat.rawValue)")
            if let header = summary.header {
                if let box = header.boundingBox { standardOutput.line("header bbox: \(box)") }
                if let program = header.writingProgram { standardOutput.line("writing program: \(program)") }
                if !header.requiredFeatures.isEmpty { standardOutput.line("required features: \(header.requiredFeatures.joined(separator: ", "))") }
            }
            standardOutput.line("nodes: \(summary.nodeCount)")
            standardOutput.line("ways: \(summary.wayCount)")
            standardOutput.line("relations: \(summary.relationCount)")
            let extent = statistics.nodeExtent
            if !extent.isEmpty {
                standardOutput.line("node bbox: [\(Double(extent.southE7) / 1e7),\(Double(extent.westE7) / 1e7) – \(Double(extent.northE7) / 1e7),\(Double(extent.eastE7) / 1e7)]")
            }
            standardOutput.line("blocks: \(summary.blockCount)")
            standardOutput.line("ignored tags: \(summary.ignoredTagCount)")
            standardOutput.line("rejected nodes: \(summary.rejectedNodeCount)")
            standardOutput.line("dropped metadata values: \(summary.droppedMetadataValueCount)")
            standardOutput.line("time: \(format(seconds, 3)) s (\(format(seconds > 0 ? Double(total) / seconds : 0, 0)) elements/s)")
        }
    }
}
