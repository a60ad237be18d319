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
        static let configuration = CommandConfiguration(abstract: "Count the nodes, ways and relations of an OSM file and time the read.")

        @Argument(help: "An .osm.pbf, .osm or .osm.gz file.")
        var file: String

        @Flag(help: "Skip element metadata (version, timestamp, user) while reading.")
        var noMetadata = false

        func run() throws {
            let url = URL(fileURLWithPath: file)
            var format = OSMFileFormat.xml
            var south = Int32.max, north = Int32.min, west = Int32.max, east = Int32.min
            let clock = ContinuousClock()
            let start = clock.now
            let summary = try OSMFileReader.read(url: url, options: OSMReadOptions(includesMetadata: !noMetadata),
                                                  detected: { format = $0 }) { block in
                for n in block.nodes {
                    south = min(south, n.latitudeE7)
                    north = max(north, n.latitudeE7)
                    west = min(west, n.longitudeE7)
                    east = max(east, n.longitudeE7)
                }
            }
            let elapsed = clock.now - start
            let seconds = elapsed.seconds
            let total = summary.nodeCount + summary.wayCount + summary.relationCount
            print("file: \(file)")
            print("format: \(format.rawValue)")
            if let header = summary.header {
                if let box = header.boundingBox { print("header bbox: \(box)") }
                if let program = header.writingProgram { print("writing program: \(program)") }
                if !header.requiredFeatures.isEmpty { print("required features: \(header.requiredFeatures.joined(separator: ", "))") }
            }
            print("nodes: \(summary.nodeCount)")
            print("ways: \(summary.wayCount)")
            print("relations: \(summary.relationCount)")
            if summary.nodeCount > 0 {
                print("node bbox: [\(Double(south) / 1e7),\(Double(west) / 1e7) – \(Double(north) / 1e7),\(Double(east) / 1e7)]")
            }
            print("blocks: \(summary.blockCount)")
            print("ignored tags: \(summary.ignoredTagCount)")
            print("rejected nodes: \(summary.rejectedNodeCount)")
            print(String(format: "time: %.3f s (%.0f elements/s)", seconds, seconds > 0 ? Double(total) / seconds : 0))
        }
    }
}
