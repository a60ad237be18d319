import Foundation
import Testing
import GeoTestSupport
@testable import MapData
import TileArchives
import ZlibCompression

/// Tile ids from the reference reader, PyPI `pmtiles` 3.8.1 `zxy_to_tileid` (an outside oracle).
private let referenceTileIDs: [((Int, Int, Int), UInt64)] = [
    ((0, 0, 0), 0), ((1, 0, 0), 1), ((1, 0, 1), 2), ((1, 1, 1), 3), ((1, 1, 0), 4), ((2, 1, 3), 11),
    ((12, 2132, 1493), 19_832_288), ((14, 8529, 5974), 317_316_626), ((20, 545_210, 381_409), 1_299_730_753_212),
    ((26, 67_108_863, 0), 6_004_799_503_160_660),
]

@Test func pmtilesTileID_matchesTheReferenceReaderBothWays() throws {
    for ((z, x, y), id) in referenceTileIDs {
        #expect(PMTiles.tileID(zoom: z, x: x, y: y) == id, "\(z)/\(x)/\(y)")
        let back = try PMTiles.tile(id: id)
        #expect(back.zoom == z && back.x == x && back.y == y, "\(id)")
    }
}

/// Tile i's bytes: distinct, of varied lengths, so directories do not compress to nothing.
private func content(_ i: Int) -> [UInt8] { Array("tile \(i)".utf8) + [UInt8](repeating: UInt8(i % 251), count: (i * 7919) % 97) }

/// An archive of `count` distinct tiles at zoom 12 plus two identical ones.
private func sampleArchive(count: Int) throws -> (bytes: [UInt8], tiles: [(Int, Int, [UInt8])]) {
    var writer = PMTilesWriter(tileType: .mvt, tileCompression: .none)
    var tiles: [(Int, Int, Int, [UInt8])] = []
    for i in 0..<count {
        tiles.append((12, i % 4096, (i / 4096) * 257 % 4096, content(i)))
    }
    tiles.append((13, 0, 0, Array("same".utf8)))
    tiles.append((13, 0, 1, Array("same".utf8)))
    tiles.sort { PMTiles.tileID(zoom: $0.0, x: $0.1, y: $0.2) < PMTiles.tileID(zoom: $1.0, x: $1.1, y: $1.2) }
    for t in tiles { try writer.add(zoom: t.0, x: t.1, y: t.2, data: t.3) }
    let bytes = try writer.finished(metadata: "{\"name\":\"t\"}", bounds: (-10, -10, 10, 10), center: (0, 0), centerZoom: 12)
    return (bytes, tiles.map { ($0.1, $0.2, $0.3) })
}

@Test(.onOwnThread) func pmtiles_roundTrip_smallAndWithLeafDirectories() throws {
    for count in [10, 80_000] {
        let (bytes, _) = try sampleArchive(count: count)
        let reader = try PMTilesReader(bytes)
        #expect(reader.header.addressedTiles == UInt64(count + 2))
        // The two identical zoom-13 tiles (ids 22369621 and 22369622, consecutive) share one entry.
        #expect(reader.header.tileContents == UInt64(count + 1))
        #expect(reader.header.tileEntries == UInt64(count + 1))
        #expect((reader.header.leafLength > 0) == (count > 10), "80 000 entries (about 20 KiB of gzip directory) do not fit the 16 KiB root")
        #expect(reader.header.rootOffset + reader.header.rootLength <= UInt64(PMTiles.rootLimit))
        for i in [0, count / 2, count - 1] {
            #expect(try reader.tile(zoom: 12, x: i % 4096, y: (i / 4096) * 257 % 4096) == content(i))
        }
        #expect(try reader.tile(zoom: 13, x: 0, y: 1) == Array("same".utf8))
        #expect(try reader.tile(zoom: 13, x: 1, y: 1) == nil)
        #expect(try reader.metadata() == "{\"name\":\"t\"}")
        #expect(try reader.entries().reduce(0) { $0 + Int($1.runLength) } == count + 2)
    }
}

@Test(.onOwnThread) func pmtiles_truncatedAnywhere_isATypedErrorNeverACrash() throws {
    let (bytes, _) = try sampleArchive(count: 80_000)
    for cut in [0, 5, 126, 127, 200, 16_000, bytes.count / 2, bytes.count - 1] {
        let truncated = Array(bytes[..<cut])
        #expect(throws: MapDataError.self, "cut at \(cut)") {
            let reader = try PMTilesReader(truncated)
            for e in try reader.entries() { _ = try reader.tileBytes(e) }
        }
    }
    var badMagic = bytes
    badMagic[0] = UInt8(ascii: "X")
    #expect(throws: MapDataError.self) { _ = try PMTilesReader(badMagic) }
}

/// PMTilesFuzz (issue 13 §5): a header whose section offset lies far past the end of the file
/// (here the leaf section at 1.9 × 10¹⁸) is `.truncated` at the header field's byte, never an
/// offset outside the file; a leaf entry whose offset overflows the leaf section's is an error,
/// not a trap.
/// Archive bytes that count the reads made of them.
private final class CountedReads: TileArchiveBytes {
    let bytes: [UInt8]
    var reads = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var size: Int { bytes.count }
    func read(offset: Int, count: Int) throws -> [UInt8] {
        reads += 1
        return try bytes.read(offset: offset, count: count)
    }
}

/// A leaf directory is read and decoded once, not for every tile: a tile asked again is one
/// read (its bytes), where it was two (its leaf, then its bytes).
@Test(.onOwnThread) func pmtiles_leafDirectories_areDecodedOncePerReader() throws {
    let count = 80_000
    let archive = CountedReads(try sampleArchive(count: count).bytes)
    let reader = try PMTilesReader(archive)
    #expect(reader.header.leafLength > 0)
    for i in [0, count / 2, count - 1] {
        #expect(try reader.tile(zoom: 12, x: i % 4096, y: (i / 4096) * 257 % 4096) == content(i))
        let before = archive.reads
        #expect(try reader.tile(zoom: 12, x: i % 4096, y: (i / 4096) * 257 % 4096) == content(i))
        #expect(archive.reads - before == 1, "tile \(i): \(archive.reads - before) reads")
    }
}

/// The leaf cache holds at most `entryLimit` entries, the least recently used dropped first;
/// a leaf over the limit by itself is not held.
@Test func pmtilesLeafCache_staysWithinItsEntries() {
    let cache = PMTilesLeafCache()
    let leaf = [PMTilesEntry](repeating: PMTilesEntry(tileID: 1, offset: 0, length: 1, runLength: 1), count: PMTilesLeafCache.entryLimit / 4)
    for i in 0..<10 { cache.insert((leaf, i), for: .init(offset: UInt64(i), length: 1)) }
    #expect(cache.held.directories == 4 && cache.held.entries == PMTilesLeafCache.entryLimit)
    #expect(cache.directory(.init(offset: 9, length: 1))?.1 == 9 && cache.directory(.init(offset: 5, length: 1)) == nil)
    cache.insert((leaf + leaf + leaf + leaf + leaf, 99), for: .init(offset: 99, length: 1))
    #expect(cache.directory(.init(offset: 99, length: 1)) == nil && cache.held.entries == PMTilesLeafCache.entryLimit)
}

@Test func pmtiles_sectionOrLeafFarPastTheEnd_isAnErrorAtAByteInsideTheFile() throws {
    let (bytes, _) = try sampleArchive(count: 10)
    for (field, value) in [(40, UInt64(1_945_555_039_024_054_839)), (8, UInt64.max), (56, UInt64(bytes.count))] {
        var damaged = bytes
        withUnsafeBytes(of: value.littleEndian) { damaged.replaceSubrange(field..<(field + 8), with: $0) }
        let error = #expect(throws: MapDataError.self, "field at \(field)") { try PMTilesReader(damaged) }
        #expect(error?.code == .truncated)
        #expect(error?.offset == field, "\(String(describing: error))")
    }
    // Leaf directories: a large archive has them; its leaf section moved to the file's end makes
    // every leaf entry's offset point past it.
    let (large, _) = try sampleArchive(count: 80_000)
    var moved = large
    withUnsafeBytes(of: UInt64(large.count).littleEndian) { moved.replaceSubrange(40..<48, with: $0) }
    withUnsafeBytes(of: UInt64(0).littleEndian) { moved.replaceSubrange(48..<56, with: $0) }
    let error = #expect(throws: MapDataError.self) { _ = try PMTilesReader(moved).entries() }
    #expect(error.flatMap(\.offset).map { (0..<large.count).contains($0) } == true, "\(String(describing: error))")
}

/// A gzip bomb as the root directory: 40 KiB of gzip that inflates to 40 MiB of zeros (which
/// would decode as an empty directory). The reader stops at `PMTiles.maximumDirectorySize` with
/// `.invalidArchive` at the directory's first byte instead of inflating it all.
@Test func pmtiles_directoryThatInflatesPastTheLimit_isRejected() throws {
    let bomb = try Gzip.compress([UInt8](repeating: 0, count: 40 << 20), level: 9)
    #expect(bomb.count < 64 << 10, "the bomb is small: \(bomb.count) bytes")
    var header = PMTilesHeader()
    header.rootOffset = UInt64(PMTiles.headerSize)
    header.rootLength = UInt64(bomb.count)
    for keyPath in [\PMTilesHeader.metadataOffset, \.leafOffset, \.tileDataOffset] { header[keyPath: keyPath] = header.rootOffset + header.rootLength }
    let archive = header.encoded() + bomb
    let error = #expect(throws: MapDataError.self) { _ = try PMTilesReader(archive) }
    #expect(error?.code == .invalidArchive)
    #expect(error?.offset == PMTiles.headerSize, "\(String(describing: error))")
    // The same directory inflated within the limit (a short bomb) is read: the limit, not gzip, refused it.
    var small = header
    let fine = try Gzip.compress([UInt8](repeating: 0, count: 1 << 20), level: 9)
    small.rootLength = UInt64(fine.count)
    for keyPath in [\PMTilesHeader.metadataOffset, \.leafOffset, \.tileDataOffset] { small[keyPath: keyPath] = small.rootOffset + small.rootLength }
    #expect(try PMTilesReader(small.encoded() + fine).entries().isEmpty)
}

@Test func mbtiles_worldCitiesDecodes() throws {
    guard let url = try Fixtures.url("tiles/world_cities.mbtiles") else { return }
    let reader = try MBTilesReader(path: url.path)
    #expect(try reader.metadata()["format"] == "pbf")
    var tiles = 0, features = 0
    try reader.forEachTile { z, x, y, data in
        let raw = data.starts(with: [0x1F, 0x8B]) ? try Gzip.decompress(data, limit: VectorTile.defaultInflateLimit) : data
        let tile = try VectorTile(decoding: raw)
        for layer in tile.layers {
            for f in layer.features { _ = try layer.geometry(of: f); features += 1 }
        }
        #expect((0...6).contains(z) && (0..<(1 << z)).contains(x) && (0..<(1 << z)).contains(y))
        tiles += 1
    }
    // `sqlite3 world_cities.mbtiles 'select count(*) from tiles'` says 196.
    #expect(tiles == 196)
    #expect(features > 196)
}

@Test func mbtiles_writeThenRead_andTruncatedIsATypedError() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("t.mbtiles").path
        var writer = try TileArchiveWriter(kind: .mbtiles, path: path)
        try writer.add(EncodedTile(zoom: 3, x: 2, y: 1, data: [1, 2, 3]))
        try writer.add(EncodedTile(zoom: 3, x: 5, y: 6, data: [4]))
        try writer.finish(name: "t", minZoom: 3, maxZoom: 3, bounds: (-1, -1, 1, 1))
        let reader = try MBTilesReader(path: path)
        #expect(try reader.tile(zoom: 3, x: 2, y: 1) == [1, 2, 3])
        #expect(try reader.tile(zoom: 3, x: 5, y: 6) == [4])
        #expect(try reader.tile(zoom: 3, x: 2, y: 6) == nil) // the TMS row of y = 1, not a tile here
        // An address outside the zoom's grid is a typed error, not an Int32 conversion trap.
        for (z, x, y) in [(3, 8, 0), (3, 0, -1), (3, Int.max, 0), (30, 0, Int.min), (31, 0, 0)] {
            #expect(throws: TileArchiveError.self, "\(z)/\(x)/\(y)") { try reader.tile(zoom: z, x: x, y: y) }
        }
        #expect(try reader.metadata()["maxzoom"] == "3")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let cutPath = dir.appendingPathComponent("cut.mbtiles").path
        for cut in [10, 100, bytes.count / 2] {
            try Data(bytes[..<cut]).write(to: URL(fileURLWithPath: cutPath))
            #expect(throws: TileArchiveError.self, "cut at \(cut)") {
                let r = try MBTilesReader(path: cutPath)
                try r.forEachTile { _, _, _, _ in }
            }
        }
        // Cut inside the last page: SQLite reads the missing bytes as zeros and opens the file;
        // only the header's page count tells, and the reader refuses the file at once.
        try Data(bytes[..<(bytes.count - 1)]).write(to: URL(fileURLWithPath: cutPath))
        #expect { try MBTilesReader(path: cutPath) } throws: { ($0 as? TileArchiveError)?.code == .truncated }
    }
}

@Test(.onOwnThread) func pmtilesWriter_spillingTileDataToAFile_writesTheSameArchiveAsInMemory() throws {
    // 3 000 distinct 5 KiB tiles (15 MiB, past the 8 MiB spill size) and repeats of a small one.
    var tiles: [EncodedTile] = []
    for i in 0..<3000 {
        let x = i % 64, y = i / 64
        let data = Array("tile \(i)".utf8) + (0..<5120).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
        tiles.append(EncodedTile(zoom: 10, x: x, y: y, data: data))
    }
    for x in 100..<110 { tiles.append(EncodedTile(zoom: 10, x: x, y: 0, data: Array("sea".utf8))) }
    tiles.sort { PMTiles.tileID(zoom: $0.zoom, x: $0.x, y: $0.y) < PMTiles.tileID(zoom: $1.zoom, x: $1.x, y: $1.y) }
    var memory = PMTilesWriter(tileType: .mvt, tileCompression: .gzip)
    for t in tiles { try memory.add(zoom: t.zoom, x: t.x, y: t.y, data: t.data) }
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("t.pmtiles").path
        var writer = try TileArchiveWriter(kind: .pmtiles, path: path)
        for t in tiles { try writer.add(t) }
        try writer.finish(name: "t", minZoom: 10, maxZoom: 10, bounds: (-1, -1, 1, 1))
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let expected = try memory.finished(metadata: TileMetadata.json(name: "t", minZoom: 10, maxZoom: 10), bounds: (-1, -1, 1, 1),
                                           center: (0, 0), centerZoom: 10)
        #expect(written == expected)
        let reader = try PMTilesReader(written)
        #expect(reader.header.tileContents == 3001, "the repeated small tile is stored once")
        #expect(try reader.tile(zoom: 10, x: 5, y: 40) == tiles.first { $0.x == 5 && $0.y == 40 }?.data)
        // Only the archive is left in the folder: the spill file is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["t.pmtiles"])
    }
}
