import Foundation
import Testing
import GeoCore
import GeoTestSupport
import MapData
@testable import OSMImport
import ProtobufWire

/// Frames a block as the PBF spec does: 4-byte length, BlobHeader, Blob (raw).
private func frame(_ type: String, _ content: [UInt8]) -> [UInt8] {
    var blob = WireWriter()
    blob.writeBytesField(1, content)
    var header = WireWriter()
    header.writeStringField(1, type)
    header.writeVarintField(3, Int64(blob.bytes.count))
    let n = header.bytes.count
    return [0, 0, UInt8(n >> 8), UInt8(n & 0xFF)] + header.bytes + blob.bytes
}

/// A file whose single data block uses non-default granularity, offsets and date granularity,
/// plain (non-dense) `Node` messages with `Info`, and features our writer never emits.
@Test func handEncodedBlock_plainNodesGranularityOffsetsAndInfo() throws {
    var header = WireWriter()
    header.writeStringField(4, "OsmSchema-V0.6")
    header.writeStringField(4, "HistoricalInformation")

    var strings = WireWriter()
    for s in ["", "amenity", "cafe", "alice", "outer"] { strings.writeStringField(1, s) }

    // Node 7 at raw (lat 48_123, lon -11_456): granularity 1000 nanodegrees plus offsets
    // 500 and -300 nanodegrees → 48.123000500°, -11.456000300° → 1e-7 units 481_230_005, -114_560_003.
    var info = WireWriter()
    info.writeVarintField(1, 4)            // version
    info.writeVarintField(2, 1_500)        // timestamp in units of date_granularity (2000 ms)
    info.writeVarintField(3, 99)           // changeset
    info.writeVarintField(4, 12)           // uid
    info.writeVarintField(5, 3)            // user_sid → "alice"
    info.writeVarintField(6, 0)            // visible = false
    var node = WireWriter()
    node.writeSignedField(1, 7)
    node.writePacked(2, [1])
    node.writePacked(3, [2])
    node.writeMessageField(4, info)
    node.writeSignedField(8, 48_123_000)
    node.writeSignedField(9, -11_456_000)

    var relation = WireWriter()
    relation.writeVarintField(1, 3)
    relation.writePacked(8, [4, 0])
    relation.writePackedSigned(9, [7, 93])   // delta coded: 7, 100
    relation.writePacked(10, [0, 2])

    var group1 = WireWriter()
    group1.writeMessageField(1, node)
    var group2 = WireWriter()
    group2.writeMessageField(4, relation)

    var block = WireWriter()
    block.writeMessageField(1, strings)
    block.writeMessageField(2, group1)
    block.writeMessageField(2, group2)
    block.writeVarintField(17, 1_000)      // granularity
    block.writeVarintField(18, 2_000)      // date_granularity
    block.writeVarintField(19, 500)        // lat_offset
    block.writeVarintField(20, -300)       // lon_offset

    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("hand-encoded.osm.pbf")
        try Data(frame("OSMHeader", header.bytes) + frame("OSMData", block.bytes)).write(to: url)
        let all = try readAll(url)
        let n = try #require(all.nodes.first)
        #expect(n.id == 7)
        #expect(n.latitudeE7 == 481_230_005)
        #expect(n.longitudeE7 == -114_560_003)
        #expect(n.tags == ["amenity": "cafe"])
        #expect(n.metadata == OSMMetadata(version: 4, timestamp: 3_000, changeset: 99, uid: 12, user: "alice", visible: false))
        #expect(all.relations == [OSMRelation(id: 3, members: [OSMMember(type: .node, ref: 7, role: "outer"),
                                                               OSMMember(type: .relation, ref: 100, role: "")])])
        #expect(all.summary.header?.requiredFeatures == ["OsmSchema-V0.6", "HistoricalInformation"])

        // Without metadata the same file reads with metadata nil.
        let lean = try readAll(url, options: OSMReadOptions(includesMetadata: false))
        #expect(lean.nodes.first?.metadata == nil)
    }
}

@Test func unknownRequiredFeature_isRejectedAtOffsetZero() throws {
    var header = WireWriter()
    header.writeStringField(4, "OsmSchema-V0.6")
    header.writeStringField(4, "Sort.Geographic.Future")
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("required-feature.osm.pbf")
        try Data(frame("OSMHeader", header.bytes)).write(to: url)
        let error = #expect(throws: OSMError.self) { try OSMPBFReader(url: url) }
        #expect(error?.code == .unsupportedFeature)
        #expect(error?.offset == 0)
    }
}

@Test func deletedElements_roundTripTheirVisibleFlag() throws {
    let m = OSMMetadata(version: 2, timestamp: 1_700_000_000, changeset: 5, uid: 1, user: "bob", visible: false)
    let nodes = [OSMNode(id: 1, latitudeE7: 0, longitudeE7: 0, metadata: m),
                 OSMNode(id: 2, latitudeE7: 10, longitudeE7: 10, metadata: OSMMetadata(version: 1, user: "bob"))]
    let ways = [OSMWay(id: 1, nodeRefs: [1, 2], metadata: m)]
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("deleted.osm.pbf")
        try OSMPBFWriter.write(nodes: nodes, ways: ways, relations: [], to: url)
        let back = try readAll(url)
        #expect(back.nodes == nodes)
        #expect(back.ways == ways)
    }
}

@Test func wireReader_varintsAndZigzag() throws {
    var w = WireWriter()
    let values: [Int64] = [0, -1, 1, 63, -64, 64, 300, Int64.max, Int64.min]
    for v in values { w.writeSignedVarint(v) }
    w.writeVarint(UInt64.max)
    try w.bytes.withUnsafeBytes { raw throws in
        var r = WireReader(raw)
        for v in values { #expect(try r.readSignedVarint() == v) }
        #expect(try r.readVarint() == UInt64.max)
        #expect(r.isAtEnd)
    }
    // An 11-byte varint is malformed; a varint cut short runs past the end.
    try [UInt8](repeating: 0xFF, count: 11).withUnsafeBytes { raw throws in
        var r = WireReader(raw)
        #expect(throws: WireError.self) { try r.readVarint() }
    }
    try [UInt8]([0x80, 0x80]).withUnsafeBytes { raw throws in
        var r = WireReader(raw)
        #expect(throws: WireError.self) { try r.readVarint() }
    }
}
