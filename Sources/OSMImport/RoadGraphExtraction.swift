public import Foundation
import MapData
public import RoadNetwork

extension OSMTags {
    /// The tags as a dictionary (the first value wins for a repeated key).
    public var dictionary: [String: String] {
        var d: [String: String] = [:]
        d.reserveCapacity(count)
        for tag in self where d[tag.key] == nil { d[tag.key] = tag.value }
        return d
    }
}

extension RoadGraphBuilder {
    /// Adds every node, way and relation of a block read from an OSM file.
    /// - Complexity: O(elements in the block).
    public mutating func add(_ block: OSMElementBlock) {
        for n in block.nodes {
            addNode(id: n.id, latitudeE7: n.latitudeE7, longitudeE7: n.longitudeE7, tags: n.tags.isEmpty ? [:] : n.tags.dictionary)
        }
        for w in block.ways {
            addWay(id: w.id, nodeIDs: w.nodeRefs, tags: w.tags.dictionary)
        }
        for r in block.relations where r.tags["type"] == "restriction" {
            addRelation(id: r.id, members: r.members, tags: r.tags.dictionary)
        }
    }
}

/// The extract stage (OSRM `osrm-extract`): an OSM file in, a `RoadGraph` for one profile out.
public enum RoadGraphExtractor {
    /// What an extraction produced.
    public struct Result: Sendable {
        public var graph: RoadGraph
        /// What the builder kept, trimmed and ignored (missing nodes, restrictions, tags).
        public var report: RoadGraphBuildReport
        /// What the reader saw.
        public var summary: OSMReadSummary
    }

    /// Reads `.osm.pbf`, `.osm` or `.osm.gz` and builds the graph. Ways that reference
    /// nodes missing from a clipped extract are trimmed and counted, never fatal.
    /// With `recovering`, a truncated or damaged file gives the graph of the elements before
    /// the damage, and `summary.damage` says where it is.
    /// - Throws: `OSMError` when the file cannot be read or is corrupt (see `OSMFileReader.read`).
    /// - Complexity: O(file size + W log W) for W way-node references.
    public static func extract(from url: URL, profile: Profile, recovering: Bool = false) throws -> Result {
        var builder = RoadGraphBuilder(profile: profile)
        let summary = try OSMFileReader.read(url: url, options: OSMReadOptions(includesMetadata: false, recovering: recovering)) { block in
            builder.add(block)
        }
        let (graph, report) = builder.build()
        return Result(graph: graph, report: report, summary: summary)
    }
}
