import Foundation
import Testing
import GeoTestSupport
@testable import OSMImport
import XMLStreaming
import ZlibCompression
import GeoBase

private let twoNodes = """
    <?xml version="1.0" encoding="UTF-8"?>
    <osm version="0.6"><node id="1" lat="43.7" lon="7.4"/><node id="2" lat="-43.7" lon="-7.4"/></osm>
    """

/// A FIFO can be opened and read once: reading it must not open it twice (the format is sniffed
/// from the descriptor the reader goes on with). Before, the second open waited for a writer
/// that never came.
@Test(.onOwnThread) func osmFileReader_readsAFIFOWithOneOpen() throws {
    try withTemporaryDirectory { dir in
        let fifo = dir.appendingPathComponent("in.osm")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let writer = Thread {
            // Opening for writing waits for the reader's open, as a shell's `> fifo` does.
            guard let handle = FileHandle(forWritingAtPath: fifo.path) else { return }
            handle.write(Data(twoNodes.utf8))
            try? handle.close()
        }
        writer.start()
        var format: OSMFileFormat?
        var ids: [Int64] = []
        let summary = try OSMFileReader.read(url: fifo, detected: { format = $0 }) { ids += $0.nodes.map(\.id) }
        #expect(format == .xml)
        #expect(ids == [1, 2])
        #expect(summary.nodeCount == 2)
    }
}

/// PBF is read as a stream from the one descriptor: a FIFO fed a real extract (`cat x.osm.pbf >
/// fifo`) reads the same elements, blocks and offsets as the file itself.
@Test(.onOwnThread) func osmFileReader_readsPBFFromAFIFO() throws {
    guard let url = try Fixtures.url("osm/andorra.osm.pbf") else { return }
    let bytes = try Data(contentsOf: url)
    var fromFile: [(offset: Int, count: Int)] = []
    let fileSummary = try OSMFileReader.read(url: url) { fromFile.append(($0.byteOffset, $0.count)) }
    try withTemporaryDirectory { dir in
        let fifo = dir.appendingPathComponent("in.osm.pbf")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let writer = Thread {
            // Opening for writing waits for the reader's open, as a shell's `> fifo` does.
            guard let handle = FileHandle(forWritingAtPath: fifo.path) else { return }
            handle.write(bytes)
            try? handle.close()
        }
        writer.start()
        var format: OSMFileFormat?
        var fromFIFO: [(offset: Int, count: Int)] = []
        let summary = try OSMFileReader.read(url: fifo, detected: { format = $0 }) { fromFIFO.append(($0.byteOffset, $0.count)) }
        #expect(format == .pbf)
        #expect(fromFIFO.map(\.offset) == fromFile.map(\.offset) && fromFIFO.map(\.count) == fromFile.map(\.count))
        #expect(summary.nodeCount == fileSummary.nodeCount && summary.wayCount == fileSummary.wayCount
                && summary.relationCount == fileSummary.relationCount && summary.nodeCount > 0)
    }
}

/// A PBF stream cut inside a block is `.truncated` at that block's offset, from a FIFO as
/// from a file.
@Test(.onOwnThread) func osmFileReader_truncatedPBFFromAFIFO_namesTheBlock() throws {
    try withTemporaryDirectory { dir in
        let fifo = dir.appendingPathComponent("in.osm.pbf")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // A BlobHeader's length prefix (big-endian 13) and the start of the header, then the end.
        let start: [UInt8] = [0, 0, 0, 13, 0x0A, 0x09] + Array("OSMHeader".utf8)
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo.path) else { return }
            handle.write(Data(start))
            try? handle.close()
        }
        writer.start()
        let error = #expect(throws: OSMError.self) { try OSMFileReader.read(url: fifo) { _ in } }
        #expect(error?.code == .truncated && error?.offset == 0, "\(String(describing: error))")
    }
}

/// Character data is skipped by the OSM reader, and the scanner drops it as it goes: 16 MiB of
/// white space between two tags leaves the window at its initial 256 KiB (it used to grow to
/// hold the whole run, 512 MiB for a 500 MiB `.osm.gz` of spaces).
@Test func xmlScanner_discardingTextKeepsTheWindowAtItsInitialSize() throws {
    let text = "<osm>" + String(repeating: " ", count: 16 << 20) + "</osm>"
    var scanner = XMLScanner(source: SpacesSource(Array(text.utf8)))
    scanner.discardsText = true
    let initial = scanner.capacity
    var kinds: [XMLTokenKind] = []
    while try scanner.next() != .endOfInput { kinds.append(scanner.kind) }
    #expect(kinds == [.startTag, .text, .endTag])
    #expect(scanner.capacity == initial, "window \(scanner.capacity) bytes, started at \(initial)")
}

/// The gzip path end to end: a `.osm.gz` whose 64 MiB of white space compress to under 1 MiB
/// reads as the nodes around it.
@Test(.onOwnThread) func osmFileReader_readsGzipOfWhiteSpace() throws {
    let xml = #"<osm version="0.6"><node id="1" lat="1" lon="2"/>"# + String(repeating: "\n ", count: 32 << 20)
        + #"<node id="2" lat="3" lon="4"/></osm>"#
    let gz = try Gzip.compress(Array(xml.utf8), level: 9)
    #expect(gz.count < 1 << 20, "the test input compresses well: \(gz.count) bytes")
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("spaces.osm.gz")
        try Data(gz).write(to: url)
        var ids: [Int64] = []
        try OSMFileReader.read(url: url) { ids += $0.nodes.map(\.id) }
        #expect(ids == [1, 2])
    }
}

/// Inflation is metered: the inflated bytes waiting for the scanner stay under 2 MiB (deflate
/// expands at most 1032:1, times the 1 KiB step) where a 1 MiB compressed chunk of spaces
/// used to inflate at once into 64 MiB.
@Test(.onOwnThread) func osmXMLSource_boundsTheInflatedBuffer() throws {
    let gz = try Gzip.compress(Array(("<osm>" + String(repeating: " ", count: 64 << 20) + "</osm>").utf8), level: 9)
    var given = false
    var source = OSMXMLSource(chunks: {
        if given { return nil }
        given = true
        return gz
    })
    var buffer = [UInt8](repeating: 0, count: 1 << 18)
    var total = 0, largest = 0
    while true {
        let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
        if n == 0 { break }
        total += n
        largest = max(largest, source.bufferedBytes)
    }
    #expect(total == (64 << 20) + 11)
    #expect(largest <= 2 << 20, "\(largest) inflated bytes held at once")
}

private struct SpacesSource: ByteSource {
    let bytes: [UInt8]
    var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(buffer.count, bytes.count - position)
        bytes.withUnsafeBytes { buffer.baseAddress?.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
        position += n
        return n
    }
}
