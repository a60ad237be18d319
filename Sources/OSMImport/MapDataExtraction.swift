public import Foundation
public import MapData

extension OSMTags: MapTagSource {
    public func forEachTag(_ body: (String, String) -> Void) {
        for tag in elements { body(tag.key, tag.value) }
    }
}

extension MapFeatureExtractor {
    /// Adds every node, way and relation of a block read from an OSM file.
    /// - Throws: as `addNode` and `addWay` do (a node after ways, a full disk).
    /// - Complexity: O(elements in the block).
    public mutating func add(_ block: OSMElementBlock) throws {
        for n in block.nodes {
            try addNode(id: n.id, latitudeE7: n.latitudeE7, longitudeE7: n.longitudeE7, tags: n.tags)
        }
        for w in block.ways {
            try addWay(id: w.id, nodeRefs: w.nodeRefs, tags: w.tags)
        }
        for r in block.relations {
            addRelation(id: r.id, members: r.members, tags: r.tags)
        }
    }
}

/// Map data from an OSM file: every element through `MapFeatureExtractor`.
public enum MapDataExtraction {
    /// Reads `url` (`.osm.pbf`, `.osm`, `.osm.gz`) into map features; the sea is drawn within
    /// the box the file declares (PBF header, `<bounds>`), else within its nodes' box.
    /// - Throws: `OSMError` for unreadable or bad input, `MapDataError.unsorted` for a node
    ///   after ways.
    public static func read(url: URL, options: OSMReadOptions = OSMReadOptions(includesMetadata: false)) throws -> MapFeatureSet {
        var features: [MapFeature] = []
        let statistics = try read(url: url, options: options) { features += $0 }
        return MapFeatureSet(features: features, statistics: statistics)
    }

    /// Reads `url` as `read(url:options:)` does, handing the features to `deliver` block by
    /// block as they are made (in the same order) instead of keeping them.
    /// - Parameter storage: where node positions and way node lists are kept (`MapElementStorage`).
    /// - Throws: `OSMError` for unreadable or bad input, `MapDataError.unsorted` for a node
    ///   after ways, what the scratch files throw (a full disk), or what `deliver` throws.
    public static func read(url: URL, options: OSMReadOptions = OSMReadOptions(includesMetadata: false),
                            storage: MapElementStorage = .inMemory,
                            deliver: ([MapFeature]) throws -> Void) throws -> MapExtractionStatistics {
        var extractor = MapFeatureExtractor(storage: storage)
        let summary = try OSMFileReader.read(url: url, options: options) { block in
            try extractor.add(block)
            try deliver(extractor.takeFeatures())
        }
        let rest = try extractor.finish(bounds: summary.header?.boundingBox)
        try deliver(rest.features)
        var statistics = rest.statistics
        statistics.nodesOutOfRange = summary.rejectedNodeCount
        return statistics
    }
}

extension SampleCity {
    /// The city's map features, made by the import path's `MapFeatureExtractor` from the
    /// elements in memory — the same features as its `.osm.pbf` read back, with no file written
    /// — the sea drawn within the city's bounding box.
    /// - Throws: none expected on generated data (`MapFeatureExtractor`'s errors).
    public func mapFeatures() throws -> [MapFeature] {
        var extractor = MapFeatureExtractor()
        try extractor.add(OSMElementBlock(nodes: nodes, ways: ways, relations: relations))
        return extractor.takeFeatures() + (try extractor.finish(bounds: boundingBox)).features
    }
}
