import Foundation
import Testing
import SystemIO
import GeoBase
import GeoCore
import GeoTestSupport
@testable import OSMImport

/// 100 cut offsets from a fixed seed: half anywhere in `1..<count`, half just after a newline
/// (the cuts a line-by-line copy leaves), sorted.
private func seededCuts(_ bytes: [UInt8], seed: UInt64) -> [Int] {
    var rng = SplitMix64(seed: seed)
    let lineEnds = bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
    let anywhere = (0..<50).map { _ in Int.random(in: 1..<bytes.count, using: &rng) }
    let atLines = (0..<50).map { _ in lineEnds.randomElement(using: &rng) ?? 1 }
    return (anywhere + atLines).sorted()
}

@Test(.onOwnThread) func osmXML_cutAtSeededOffsets_isAnErrorAndKeepsAPrefix() throws {
    guard let url = try Fixtures.url("osm/bautzen.osm") else { return }
    let bytes = try [UInt8](Data(contentsOf: url))
    let full = try readXML(String(decoding: bytes, as: UTF8.self))
    let close = Array("</osm>".utf8)
    let rootEnd = try #require((0...(bytes.count - close.count)).first { bytes[$0..<($0 + close.count)].elementsEqual(close) }) + close.count
    for cut in seededCuts(bytes, seed: 13) {
        var nodes: [OSMNode] = [], ways: [OSMWay] = []
        var thrown: OSMError?
        do {
            try OSMXMLReader.read(bytes: Array(bytes[..<cut])) { block in
                nodes += block.nodes
                ways += block.ways
            }
        } catch let error as OSMError {
            thrown = error
        }
        if cut >= rootEnd {
            #expect(thrown == nil, "cut at \(cut) is after </osm>")
            continue
        }
        let error = try #require(thrown, "cut at \(cut) of \(bytes.count) bytes was read as complete")
        #expect(error.code == .truncated, "cut at \(cut): \(error)")
        #expect(error.line != nil && error.column != nil && (error.offset ?? .max) <= cut, "cut at \(cut): \(error)")
        // What was delivered before the error is a prefix of the whole file's elements.
        #expect(nodes == Array(full.nodes.prefix(nodes.count)) && ways == Array(full.ways.prefix(ways.count)), "cut at \(cut)")
    }
}

@Test(.onOwnThread) func pbf_cutAtSeededOffsets_isAnErrorUnlessExactlyBetweenBlobs() throws {
    guard let url = try Fixtures.url("osm/andorra.osm.pbf") else { return }
    let bytes = try [UInt8](Data(contentsOf: url))
    // Where each file block starts, walked with the reader's own framing.
    let descriptor = try FileDescriptor(opening: url.path)
    defer { try? descriptor.close() }
    var frames = PBFFrameStream(descriptor)
    var boundaries: Set<Int> = []
    while let frame = try frames.nextFrame() { boundaries.insert(frame.nextOffset) }
    var full = 0
    try OSMPBFReader(url: url).read { full += $0.count }
    var rng = SplitMix64(seed: 13)
    // Half anywhere, half exactly at a block boundary (which no reader can detect).
    let cuts = (0..<90).map { _ in Int.random(in: 1..<bytes.count, using: &rng) }
        + boundaries.sorted().dropLast().shuffled(using: &rng).prefix(10)
    try withTemporaryDirectory { dir in
        let cutURL = dir.appendingPathComponent("cut.osm.pbf")
        for cut in cuts {
            try Data(bytes[..<cut]).write(to: cutURL)
            var delivered = 0
            var thrown: OSMError?
            do { try OSMPBFReader(url: cutURL).read { delivered += $0.count } } catch let error as OSMError { thrown = error }
            if boundaries.contains(cut) {
                // A PBF file has no end marker: a cut between blocks is a shorter valid file.
                #expect(thrown == nil && delivered < full, "cut at block boundary \(cut)")
            } else {
                let error = try #require(thrown, "cut at \(cut) of \(bytes.count) bytes was read as complete")
                #expect(error.code == .truncated, "cut at \(cut): \(error)")
                #expect((error.offset ?? .max) < cut, "cut at \(cut): the bad block starts before the cut")
            }
        }
    }
}

@Test(.onOwnThread) func recoveringRead_keepsTheElementsBeforeTheDamageAndSaysWhere() throws {
    guard let url = try Fixtures.url("osm/bautzen.osm") else { return }
    let bytes = try [UInt8](Data(contentsOf: url))
    let full = try readXML(String(decoding: bytes, as: UTF8.self))
    try withTemporaryDirectory { dir in
        let cutURL = dir.appendingPathComponent("cut.osm")
        for cut in [bytes.count / 3, bytes.count * 2 / 3, bytes.count - 20] {
            try Data(bytes[..<cut]).write(to: cutURL)
            var nodes: [OSMNode] = [], ways: [OSMWay] = []
            let summary = try OSMFileReader.read(url: cutURL, options: OSMReadOptions(recovering: true)) { block in
                nodes += block.nodes
                ways += block.ways
            }
            let damage = try #require(summary.damage, "cut at \(cut)")
            #expect(damage.code == .truncated && (damage.offset ?? .max) <= cut, "cut at \(cut): \(damage)")
            #expect(summary.nodeCount == nodes.count && summary.wayCount == ways.count)
            #expect(nodes.count > 0 && nodes == Array(full.nodes.prefix(nodes.count)) && ways == Array(full.ways.prefix(ways.count)))
            #expect(nodes.count + ways.count < full.nodes.count + full.ways.count, "cut at \(cut) loses something")
            // Without recovering the same file is an error.
            #expect(throws: OSMError.self) { try OSMFileReader.read(url: cutURL) { _ in } }
        }
    }
}
