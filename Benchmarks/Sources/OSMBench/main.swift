// Reads every element of an OSM file and prints the throughput (best of `runs`).
// Usage: OSMBench FILE [runs] [--no-metadata] [--foundation-xml] [--parallelism N]
//   FILE .osm.pbf → OSMPBFReader; .osm / .osm.gz → OSMXMLReader (format detected from bytes).
//   --foundation-xml: instead, only count elements with Foundation's XMLParser (plain XML), the
//   lower bound of the alternative to our hand-written tokenizer.
import Foundation
import GeoCore
#if canImport(FoundationXML)
import FoundationXML
#endif
import OSMImport

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: OSMBench FILE [runs] [--no-metadata] [--foundation-xml] [--parallelism N]")
    exit(2)
}
let url = URL(fileURLWithPath: arguments[1])
let runs = arguments.count >= 3 ? Int(arguments[2]) ?? 3 : 3
let includesMetadata = !arguments.contains("--no-metadata")
let foundation = arguments.contains("--foundation-xml")
let parallelism = arguments.firstIndex(of: "--parallelism").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil }

/// Counts OSM elements with Foundation's SAX parser.
final class ElementCounter: NSObject, XMLParserDelegate {
    var count = 0
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if name == "node" || name == "way" || name == "relation" { count += 1 }
    }
}

var best = Double.infinity
var elements = 0
var checksum: Int64 = 0
var format = OSMFileFormat.xml
for _ in 0..<runs {
    let clock = ContinuousClock()
    let start = clock.now
    var sum: Int64 = 0
    if foundation {
        guard let parser = XMLParser(contentsOf: url) else { fatalError("cannot open \(url.path)") }
        let counter = ElementCounter()
        parser.delegate = counter
        guard parser.parse() else { fatalError("XMLParser: \(String(describing: parser.parserError))") }
        elements = counter.count
    } else {
        let summary = try OSMFileReader.read(url: url, options: OSMReadOptions(includesMetadata: includesMetadata, parallelism: parallelism),
                                             detected: { format = $0 }) { block in
            // Touch what a consumer would: positions, refs, tag counts.
            for i in block.nodes.indices { sum &+= Int64(block.nodes[i].latitudeE7) &+ Int64(block.nodes[i].tags.count) }
            for i in block.ways.indices { sum &+= Int64(block.ways[i].nodeRefs.count) &+ Int64(block.ways[i].tags.count) }
            for i in block.relations.indices { sum &+= Int64(block.relations[i].members.count) }
        }
        elements = summary.nodeCount + summary.wayCount + summary.relationCount
    }
    let elapsed = clock.now - start
    let seconds = elapsed.seconds
    best = min(best, seconds)
    checksum = sum
}
let who = foundation ? "foundation-xml" : "locationkit-\(format.rawValue)"
print(String(format: "%@: %d elements in %.3f s = %.0f elements/s (checksum %lld)", who, elements, best, Double(elements) / best, checksum))
