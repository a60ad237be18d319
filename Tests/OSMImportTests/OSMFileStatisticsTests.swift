import Foundation
import Testing
import GeoBase
import GeoCore
import GeoTestSupport
@testable import OSMImport
import ProtobufWire

/// Node extents from `osmium fileinfo -e -g data.bbox FILE` (osmium-tool 1.x, Debian), in
/// 1e-7 degrees (osmium prints them at that precision): (south, west, north, east).
private enum OsmiumExtents {
    static let monaco: (Int32, Int32, Int32, Int32) = (437_147_967, 73_490_007, 437_700_000, 74_909_960)
    static let andorra: (Int32, Int32, Int32, Int32) = (417_369_089, 10_366_421, 427_883_379, 18_252_606)
}

private func edges(_ extent: OSMNodeExtent) -> [Int32] { [extent.southE7, extent.westE7, extent.northE7, extent.eastE7] }

/// What `OSMFileReader.read` finds: its summary and the extent of the nodes it delivers.
private func readElements(_ url: URL, options: OSMReadOptions = OSMReadOptions()) throws -> OSMFileStatistics {
    var statistics = OSMFileStatistics()
    statistics.summary = try OSMFileReader.read(url: url, options: options) { block in
        for node in block.nodes { statistics.nodeExtent.add(latitudeE7: node.latitudeE7, longitudeE7: node.longitudeE7) }
    }
    return statistics
}

/// `statistics` or the `OSMError` it throws.
private func statisticsOrError(_ url: URL, options: OSMReadOptions = OSMReadOptions()) -> Result<OSMFileStatistics, OSMError> {
    Result { () throws(OSMError) in
        do { return try OSMFileReader.statistics(url: url, options: options) } catch let error as OSMError { throw error } catch {
            throw OSMError(.io, "unexpected \(error)")
        }
    }
}

/// `readElements` or the `OSMError` it throws.
private func elementsOrError(_ url: URL, options: OSMReadOptions = OSMReadOptions()) -> Result<OSMFileStatistics, OSMError> {
    Result { () throws(OSMError) in
        do { return try readElements(url, options: options) } catch let error as OSMError { throw error } catch {
            throw OSMError(.io, "unexpected \(error)")
        }
    }
}

@Test(.onOwnThread) func statistics_countsAndNodeExtentMatchOsmium() throws {
    for (file, counts, extent) in [("osm/monaco.osm.pbf", OsmiumCounts.monaco, OsmiumExtents.monaco),
                                   ("osm/andorra.osm.pbf", OsmiumCounts.andorra, OsmiumExtents.andorra)] {
        guard let url = try Fixtures.url(file) else { return }
        let statistics = try OSMFileReader.statistics(url: url)
        #expect(statistics.summary.nodeCount == counts.nodes, "\(file)")
        #expect(statistics.summary.wayCount == counts.ways, "\(file)")
        #expect(statistics.summary.relationCount == counts.relations, "\(file)")
        #expect(statistics.summary.elementCounts == "\(counts.nodes) nodes, \(counts.ways) ways, \(counts.relations) relations", "\(file)")
        // Exact: both are the file's own 1e-7 degree integers.
        #expect(edges(statistics.nodeExtent) == [extent.0, extent.1, extent.2, extent.3], "\(file) node extent, 1e-7 degrees")
    }
}

@Test(.onOwnThread, arguments: ["osm/monaco.osm.pbf", "osm/andorra.osm.pbf", "osm/monaco-gh.osm.gz", "osm/bautzen.osm"])
func statistics_equalWhatAFullReadFinds(file: String) throws {
    guard let url = try Fixtures.url(file) else { return }
    for includesMetadata in [true, false] {
        let options = OSMReadOptions(includesMetadata: includesMetadata)
        #expect(try OSMFileReader.statistics(url: url, options: options) == readElements(url, options: options), "\(file), metadata \(includesMetadata)")
    }
}

@Test func statistics_countDroppedTagsAndNodesLikeAFullRead() throws {
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("absurd.osm.pbf")
        let long = String(repeating: "x", count: 256)
        // 200 two-byte characters: 400 bytes but 200 characters, so acceptable.
        let wide = String(repeating: "é", count: 200)
        let nodes = [
            OSMNode(id: 1, latitudeE7: 950_000_000, longitudeE7: 0, tags: ["name": "off the map"]),
            OSMNode(id: 2, latitudeE7: 10, longitudeE7: 20, tags: ["name": long, "note": wide]),
            OSMNode(id: 3, latitudeE7: -30, longitudeE7: -40),
        ]
        // An empty key goes on the way: in DenseNodes string 0 (the empty string) ends a node's tags.
        let ways = [OSMWay(id: 7, nodeRefs: [2, 3], tags: [long: "long key", "": "empty key", "highway": "service"])]
        let relations = [OSMRelation(id: 9, members: [OSMMember(type: .way, ref: 7, role: long)], tags: ["type": long])]
        try OSMPBFWriter.write(nodes: nodes, ways: ways, relations: relations, to: url)
        let statistics = try OSMFileReader.statistics(url: url)
        #expect(statistics == (try readElements(url)))
        #expect(statistics.summary.rejectedNodeCount == 1)
        // Node 2's long name, the way's long and empty keys, the relation's long value.
        #expect(statistics.summary.ignoredTagCount == 4)
        #expect(edges(statistics.nodeExtent) == [-30, -40, 10, 20])
    }
}

/// Andorra rewritten with raw (uncompressed) blocks, so that damage reaches the block decoder
/// (a zlib checksum would catch it first), then cut or overwritten at seeded places.
@Test(.onOwnThread) func statistics_damagedPBF_failsAndRecoversLikeAFullRead() throws {
    guard let url = try Fixtures.url("osm/andorra.osm.pbf") else { return }
    let all = try readAll(url)
    var rng = SplitMix64(seed: 29)
    try withTemporaryDirectory { dir in
        let rawURL = dir.appendingPathComponent("raw.osm.pbf")
        try OSMPBFWriter.write(nodes: all.nodes, ways: all.ways, relations: all.relations, to: rawURL,
                               options: .init(elementsPerBlock: 2_000, compressionLevel: 0))
        let good = try [UInt8](Data(contentsOf: rawURL))
        let damagedURL = dir.appendingPathComponent("damaged.osm.pbf")
        var failures = 0
        for trial in 0..<30 {
            var bytes = good
            if trial % 3 == 0 {
                bytes.removeLast(Int(rng.next() % UInt64(bytes.count - 1)))
            } else {
                for _ in 0..<3 { bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next()) }
            }
            try Data(bytes).write(to: damagedURL)
            for recovering in [false, true] {
                let options = OSMReadOptions(recovering: recovering)
                let statistics = statisticsOrError(damagedURL, options: options)
                #expect(statistics == elementsOrError(damagedURL, options: options), "trial \(trial), recovering \(recovering)")
                if case .failure = statistics { failures += 1 }
            }
        }
        #expect(failures > 5, "the damage is seen")
    }
}

/// How decoding `block` into `Content` ends: its counts, or the error message.
private func outcome<Content: OSMBlockContent>(_ block: WireWriter, as: Content.Type) -> String {
    block.bytes.withUnsafeBytes { raw in
        do {
            let decoded: DecodedBlock<Content> = try PBFDecoder.primitiveBlock(raw, includesMetadata: true)
            return "\(decoded.block.counts), ignored \(decoded.ignoredTags), rejected \(decoded.rejectedNodes)"
        } catch {
            return "error: \(PBFDecoder.describe(error))"
        }
    }
}

/// A block with the string table `["", "highway", "alice"]`, one dense node whose DenseInfo
/// names user `userIndex`, and one relation with `role` and member `type`.
private func block(userIndex: Int64 = 2, tagValue: Int64 = 1, role: Int64 = 1, type: Int64 = 1) -> WireWriter {
    var strings = WireWriter()
    for s in ["", "highway", "alice"] { strings.writeStringField(1, s) }
    var info = WireWriter()
    info.writePacked(1, [3])                    // version
    info.writePackedSigned(2, [1_000])          // timestamp
    info.writePackedSigned(3, [5])              // changeset
    info.writePackedSigned(4, [7])              // uid
    info.writePackedSigned(5, [userIndex])      // user_sid
    var dense = WireWriter()
    dense.writePackedSigned(1, [42])
    dense.writeMessageField(5, info)
    dense.writePackedSigned(8, [10])
    dense.writePackedSigned(9, [20])
    dense.writePacked(10, [1, tagValue, 0])
    var relation = WireWriter()
    relation.writeVarintField(1, 3)
    relation.writePacked(8, [role])
    relation.writePackedSigned(9, [42])
    relation.writePacked(10, [type])
    var nodes = WireWriter()
    nodes.writeMessageField(2, dense)
    var relations = WireWriter()
    relations.writeMessageField(4, relation)
    var block = WireWriter()
    block.writeMessageField(1, strings)
    block.writeMessageField(2, nodes)
    block.writeMessageField(2, relations)
    return block
}

@Test(arguments: [
    ("good", block(), false),
    ("user_sid outside the table", block(userIndex: 3), true),
    ("negative user_sid", block(userIndex: -1), true),
    ("tag value outside the table", block(tagValue: 5), true),
    ("role outside the table", block(role: 9), true),
    ("member type 3", block(type: 3), true),
])
func statistics_badIndicesInABlock_failAsInAFullDecode(name: String, block: WireWriter, fails: Bool) {
    let statistics = outcome(block, as: OSMBlockStatistics.self)
    #expect(statistics == outcome(block, as: OSMElementBlock.self), "\(name)")
    #expect(statistics.hasPrefix("error") == fails, "\(name): \(statistics)")
}

/// `geo osm info`'s report of Monaco: the header as `osmium fileinfo` shows it (bbox
/// (7.349,43.71,7.491,43.77), generator osmconvert 0.7T), osmium's counts and node extent
/// (latitude, longitude first), and the rate from the given time: 207,707 elements in 0.5 s.
@Test(.onOwnThread) func statisticsReport_monaco_linesWithOsmiumsNumbers_andTheRate() throws {
    guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    let statistics = try OSMFileReader.statistics(url: url)
    let lines = statistics.report(file: "monaco.osm.pbf", format: .pbf, seconds: 0.5)
    let (s, w, n, e) = OsmiumExtents.monaco
    let degrees = { (e7: Int32) in "\(Double(e7) / 1e7)" }
    #expect(lines == [
        "file: monaco.osm.pbf", "format: pbf", "header bbox: [43.71,7.349 – 43.77,7.491]", "writing program: osmconvert 0.7T",
        "required features: OsmSchema-V0.6, DenseNodes",
        "nodes: \(OsmiumCounts.monaco.nodes)", "ways: \(OsmiumCounts.monaco.ways)", "relations: \(OsmiumCounts.monaco.relations)",
        "node bbox: [\(degrees(s)),\(degrees(w)) – \(degrees(n)),\(degrees(e))]",
        "blocks: \(statistics.summary.blockCount)", "ignored tags: 0", "rejected nodes: 0", "dropped metadata values: 0",
        "time: 0.500 s (415414 elements/s)",
    ])
    #expect(statistics.report(file: "m", format: .pbf, seconds: 0).last == "time: 0.000 s (0 elements/s)", "no rate from no time")
}
