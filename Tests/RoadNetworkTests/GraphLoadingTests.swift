import GeoBase
import GeoCore
import GeoTestSupport
@testable import RoadNetwork
import Testing

// Loading a graph the way `geo match` and `geo route` do: the file read into one buffer, the
// spatial index's cells ordered by a radix sort. Both must give exactly what they replaced.

/// A byte source handing out `bytes` at most `piece` bytes a read, as a pipe does.
private struct PiecewiseSource: ByteSource {
    let bytes: [UInt8]
    let piece: Int
    var offset = 0

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(piece, buffer.count, bytes.count - offset)
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
        offset += n
        return n
    }
}

@Test func graphFile_readFromASourceInPieces_isTheGraphAndReadsNoFurther() throws {
    let bytes = crossroads().graph.serialized()
    for piece in [1, 7, 4096, bytes.count + 100] {
        var source = PiecewiseSource(bytes: bytes + [1, 2, 3], piece: piece)
        let graph = try RoadGraph(reading: &source)
        #expect(graph.serialized() == bytes, "pieces of \(piece) bytes")
        #expect(source.offset == bytes.count, "read past the announced size in pieces of \(piece) bytes")
    }
    for cut in [10, 24, bytes.count / 2, bytes.count - 1] {
        var source = PiecewiseSource(bytes: Array(bytes.prefix(cut)), piece: 5)
        do { _ = try RoadGraph(reading: &source); Issue.record("a file cut at \(cut) was read") } catch let error as RoadNetworkError {
            #expect(error.code == .truncated, "cut at \(cut): \(error)")
        }
    }
}

/// Read from a source, a damaged file gets the error `init(serialized:)` gives the same bytes
/// (the CRC is taken while the columns are read): a flipped byte anywhere in the payload is a
/// checksum mismatch, even where it breaks a column count first; a header announcing a terabyte
/// over a real payload is truncated, read in bounded pieces rather than allocated up front.
@Test func graphFile_damagedFromASource_isTheErrorOfTheBuffer() throws {
    let bytes = crossroads().graph.serialized()
    func code(_ file: [UInt8]) -> (source: RoadNetworkError.Code?, buffer: RoadNetworkError.Code?) {
        var source = PiecewiseSource(bytes: file, piece: 4096)
        var fromSource: RoadNetworkError.Code?, fromBuffer: RoadNetworkError.Code?
        do { _ = try RoadGraph(reading: &source) } catch { fromSource = (error as? RoadNetworkError)?.code }
        do { _ = try RoadGraph(serialized: file) } catch { fromBuffer = error.code }
        return (fromSource, fromBuffer)
    }
    for at in [24, 30, 40, bytes.count / 2, bytes.count - 9] {
        var damaged = bytes
        damaged[at] ^= 0xFF
        let got = code(damaged)
        #expect(got.source == .checksumMismatch && got.buffer == .checksumMismatch, "byte \(at) flipped: \(got)")
    }
    var huge = bytes
    withUnsafeBytes(of: (UInt64(1) << 40).littleEndian) { for (i, b) in $0.enumerated() { huge[8 + i] = b } }
    let got = code(huge)
    #expect(got.source == .truncated && got.buffer == .truncated, "a terabyte announced: \(got)")
}

/// Memory that stays in place, as a mapped file's pages do: `source` copied `shift` bytes past
/// an 8-byte aligned start.
private final class HeldBytes: StableBytes, @unchecked Sendable {
    let storage: UnsafeMutableRawBufferPointer
    let bytes: UnsafeRawBufferPointer

    init(_ source: [UInt8], shift: Int) {
        storage = .allocate(byteCount: source.count + shift, alignment: 8)
        storage.copyBytes(from: [UInt8](repeating: 0, count: shift) + source)
        bytes = UnsafeRawBufferPointer(rebasing: storage[shift...])
    }

    deinit { storage.deallocate() }
}

/// A source whose bytes are held in place (a regular file, to `RoadGraph(reading:)`).
private struct InPlaceSource: ByteSource {
    let held: HeldBytes
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { 0 }
    mutating func mapRemaining() throws -> (any StableBytes)? { held }
}

/// A graph read from bytes held in place uses its columns there (no copy) when the payload is
/// 8-byte aligned, copies them when it is not, outlives every other reference to those bytes,
/// and a damaged file gets the errors `init(serialized:)` gives the same bytes.
@Test func graphFile_readInPlace_isTheGraphWithColumnsInTheHeldBytes() throws {
    let bytes = crossroads().graph.serialized()
    for shift in [0, 3] {
        var source = InPlaceSource(held: HeldBytes(bytes, shift: shift))
        let region = source.held.bytes
        let graph = try RoadGraph(reading: &source)
        source = InPlaceSource(held: HeldBytes([], shift: 0))   // the graph now keeps the bytes alive alone
        let inside = graph.shapeLatitudes.withUnsafeBufferPointer { column in
            column.baseAddress.map { UnsafeRawPointer($0) >= region.baseAddress! && UnsafeRawPointer($0) < region.baseAddress! + region.count }
        }
        #expect(inside == (shift == 0), "payload shifted by \(shift) bytes")
        #expect(graph.serialized() == bytes, "payload shifted by \(shift) bytes")
        #expect(graph.length(of: graph.segments.first!).meters == graph.segmentLengths[0] && graph.segmentLengths[0] > 0)
    }
    for at in [24, bytes.count / 2] {
        var damaged = bytes
        damaged[at] ^= 0xFF
        var source = InPlaceSource(held: HeldBytes(damaged, shift: 0))
        do { _ = try RoadGraph(reading: &source); Issue.record("byte \(at) flipped was read") } catch let error as RoadNetworkError {
            #expect(error.code == .checksumMismatch, "byte \(at) flipped: \(error)")
        }
    }
    var source = InPlaceSource(held: HeldBytes(Array(bytes.prefix(bytes.count / 2)), shift: 0))
    do { _ = try RoadGraph(reading: &source); Issue.record("half a file was read") } catch let error as RoadNetworkError {
        #expect(error.code == .truncated)
    }
}

@Test func spatialIndex_radixSortIsTheComparisonSortByKeyThenPiece() {
    var rng = SeededGenerator(state: 42)
    // Cells of a city (keys sharing their high bytes, negative cell numbers included), and
    // keys differing in every byte.
    let cities = (0..<3).map { _ -> [UInt64] in
        let cx = Int.random(in: -3000...3000, using: &rng), cy = Int.random(in: -3000...3000, using: &rng)
        return (0..<40).map { _ in SpatialIndex.key(cx + Int.random(in: -300...300, using: &rng), cy + Int.random(in: -300...300, using: &rng)) }
    }
    let wide = (0..<40).map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) }
    for cells in cities + [wide, [7], []] {
        var entries: [(key: UInt64, piece: UInt32)] = []
        for piece in UInt32(0)..<2000 { entries.append((cells.randomElement(using: &rng) ?? 0, piece)) }
        if cells.isEmpty { entries = [] }
        let radix = SpatialIndex.stablySortedByKey(entries)
        let reference = entries.sorted { ($0.key, $0.piece) < ($1.key, $1.piece) }
        #expect(radix.map(\.key) == reference.map(\.key) && radix.map(\.piece) == reference.map(\.piece))
    }
}
