// Reads every element of an .osm.pbf file with OSMPBFReader and prints the throughput.
// Usage: OSMBench FILE [runs] [--no-metadata]   (best of `runs`, default 3)
import Foundation
import OSMImport

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: OSMBench FILE [runs] [--no-metadata]")
    exit(2)
}
let url = URL(fileURLWithPath: arguments[1])
let runs = arguments.count >= 3 ? Int(arguments[2]) ?? 3 : 3
let includesMetadata = !arguments.contains("--no-metadata")

var best = Double.infinity
var elements = 0
var checksum: Int64 = 0
for _ in 0..<runs {
    let clock = ContinuousClock()
    let start = clock.now
    var sum: Int64 = 0
    let summary = try OSMPBFReader(url: url, options: OSMReadOptions(includesMetadata: includesMetadata)).read { block in
        // Touch what a consumer would: positions, refs, tag counts.
        for i in block.nodes.indices { sum &+= Int64(block.nodes[i].latitudeE7) &+ Int64(block.nodes[i].tags.count) }
        for i in block.ways.indices { sum &+= Int64(block.ways[i].nodeRefs.count) &+ Int64(block.ways[i].tags.count) }
        for i in block.relations.indices { sum &+= Int64(block.relations[i].members.count) }
    }
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    best = min(best, seconds)
    elements = summary.nodeCount + summary.wayCount + summary.relationCount
    checksum = sum
}
print(String(format: "locationkit: %d elements in %.3f s = %.0f elements/s (checksum %lld)", elements, best, Double(elements) / best, checksum))
