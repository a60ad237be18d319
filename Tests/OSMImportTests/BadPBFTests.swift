import Foundation
import Testing
import GeoBase
import GeoCore
import GeoTestSupport
@testable import OSMImport
import ProtobufWire

/// The data blocks of a good file: byte offset and element count of each.
private func blockLayout(_ url: URL) throws -> [(offset: Int, count: Int)] {
    var layout: [(Int, Int)] = []
    try OSMPBFReader(url: url).read { layout.append(($0.byteOffset, $0.count)) }
    return layout
}

/// Reads `bytes` as a PBF file, returning the elements delivered and the error thrown.
private func readDamaged(_ bytes: [UInt8]) throws -> (delivered: Int, error: OSMError?) {
    return try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("damaged.osm.pbf")
        try Data(bytes).write(to: url)
        var delivered = 0
        do {
            try OSMPBFReader(url: url, options: OSMReadOptions(parallelism: 3)).read { delivered += $0.count }
            return (delivered, nil)
        } catch let error as OSMError {
            return (delivered, error)
        }
    }
}

@Test func truncatedPBF_reportsBadBlockOffsetAndKeepsEarlierBlocks() throws {
    guard let url = try Fixtures.url("osm/andorra.osm.pbf") else { return }
    let bytes = try [UInt8](Data(contentsOf: url))
    let layout = try blockLayout(url)
    try #require(layout.count >= 6)
    // Cut inside the length prefix, the BlobHeader and the blob of several blocks.
    for k in [1, 3, layout.count - 1] {
        let start = layout[k].offset
        let end = k + 1 < layout.count ? layout[k + 1].offset : bytes.count
        for cut in [start + 2, start + 9, (start + end) / 2, end - 1] {
            let (delivered, error) = try readDamaged(Array(bytes[..<cut]))
            let e = try #require(error, "cut at \(cut) must fail")
            #expect(e.code == .truncated, "cut at \(cut)")
            #expect(e.offset == start, "cut at \(cut) lies in the block at \(start)")
            #expect(delivered == layout[..<k].reduce(0) { $0 + $1.count }, "blocks before \(start) are kept")
        }
    }
    // Cutting exactly between blocks is a shorter, valid file.
    let (delivered, error) = try readDamaged(Array(bytes[..<layout[4].offset]))
    #expect(error == nil)
    #expect(delivered == layout[..<4].reduce(0) { $0 + $1.count })
}

@Test(.onOwnThread) func corruptedPBF_flippedBytesInABlob_reportTheBlockOffset() throws {
    guard let url = try Fixtures.url("osm/andorra.osm.pbf") else { return }
    let good = try [UInt8](Data(contentsOf: url))
    let layout = try blockLayout(url)
    for k in [0, 2, 5] {
        let start = layout[k].offset
        let end = layout[k + 1].offset
        for position in [end - 40, (start + end) / 2, end - 5] {
            var bytes = good
            bytes[position] ^= 0x5A
            let (delivered, error) = try readDamaged(bytes)
            let e = try #require(error, "flip at \(position) must be detected (zlib checksum)")
            #expect(e.code == .corrupted, "flip at \(position): \(e)")
            #expect(e.offset == start)
            #expect(delivered == layout[..<k].reduce(0) { $0 + $1.count })
        }
    }
}

@Test(.onOwnThread) func corruptedPBF_randomDamageNeverCrashes() throws {
    guard let url = try Fixtures.url("osm/andorra.osm.pbf") else { return }
    let good = try [UInt8](Data(contentsOf: url))
    var rng = SplitMix64(seed: 7)
    for _ in 0..<40 {
        var bytes = good
        for _ in 0..<3 { bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next()) }
        let (delivered, error) = try readDamaged(bytes)
        #expect(error != nil || delivered > 0)
        if let error { #expect(error.offset != nil, "\(error)") }
    }
}

@Test func absurdLengthPrefix_isCorruptedAtThatBlock() throws {
    guard let url = try Fixtures.url("osm/andorra.osm.pbf") else { return }
    var bytes = try [UInt8](Data(contentsOf: url))
    let layout = try blockLayout(url)
    bytes[layout[2].offset] = 0x7F
    let (delivered, error) = try readDamaged(bytes)
    #expect(error?.code == .corrupted)
    #expect(error?.offset == layout[2].offset)
    #expect(delivered == layout[0].count + layout[1].count)
}

@Test func zstdBlob_isUnsupportedCompressionWithOffset() throws {
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("zstd.osm.pbf")
        try OSMPBFWriter.write(nodes: [OSMNode(id: 1, latitudeE7: 1, longitudeE7: 2)], ways: [], relations: [], to: url)
        var bytes = try [UInt8](Data(contentsOf: url))
        let badOffset = bytes.count
        var blob = WireWriter()
        blob.writeVarintField(2, 10)
        blob.writeBytesField(7, [1, 2, 3])
        var header = WireWriter()
        header.writeStringField(1, "OSMData")
        header.writeVarintField(3, Int64(blob.bytes.count))
        bytes += [0, 0, 0, UInt8(header.bytes.count)] + header.bytes + blob.bytes
        let (delivered, error) = try readDamaged(bytes)
        #expect(error?.code == .unsupportedCompression)
        #expect(error?.offset == badOffset)
        #expect(delivered == 1)
    }
}

@Test func absurdCoordinatesInPBF_areRejectedWithACount() throws {
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("absurd.osm.pbf")
        let nodes = [
            OSMNode(id: 1, latitudeE7: 950_000_000, longitudeE7: 0),
            OSMNode(id: 2, latitudeE7: 10, longitudeE7: 20),
            OSMNode(id: 3, latitudeE7: 0, longitudeE7: -1_900_000_000),
        ]
        try OSMPBFWriter.write(nodes: nodes, ways: [], relations: [], to: url)
        let back = try readAll(url)
        #expect(back.nodes.map(\.id) == [2])
        #expect(back.summary.rejectedNodeCount == 2)
    }
}
