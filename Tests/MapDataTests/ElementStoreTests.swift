import Foundation
import GeoCore
import GeoTestSupport
import MapData
import OSMImport
import SystemIO
import Testing
import TileArchives

/// `MapFeatureExtractor`'s node and way stores (`MapElementStorage`): in memory or in
/// memory-mapped scratch files, with the same features either way, and bad input refused.
struct ElementStoreTests {
    /// Monaco read with every store in memory and with stores that move to scratch files past
    /// 4 KiB: the same features, and the same tiles byte for byte.
    @Test func monaco_inMemoryAndInScratchFiles_giveByteEqualTiles() throws {
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        try withTemporaryDirectory { dir in
            func extract(_ storage: MapElementStorage) throws -> (set: MapFeatureSet, inFile: Bool) {
                var extractor = MapFeatureExtractor(storage: storage)
                var features: [MapFeature] = []
                let summary = try OSMFileReader.read(url: url, options: OSMReadOptions(includesMetadata: false)) { block in
                    try extractor.add(block)
                    features += extractor.takeFeatures()
                }
                let inFile = extractor.nodesAreInScratchFile
                let rest = try extractor.finish(bounds: summary.header?.boundingBox)
                return (MapFeatureSet(features: features + rest.features, statistics: rest.statistics), inFile)
            }
            let inMemory = try extract(.inMemory)
            let inFiles = try extract(.scratchFiles(in: dir.path, memoryLimit: 4096))
            #expect(!inMemory.inFile)
            #expect(inFiles.inFile, "180 k nodes (2.9 MB) pass a 4 KiB limit")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "scratch files are unlinked at once")
            #expect(inFiles.set.statistics == inMemory.set.statistics)
            #expect(inMemory.set.statistics.nodes > 150_000 && inMemory.set.features.count > 20_000)
            #expect(inFiles.set.features == inMemory.set.features)
            let options = TilingOptions(minZoom: 0, maxZoom: 14, parallelism: 2)
            let a = try MapTiler(features: inMemory.set.features, options: options)
            let b = try MapTiler(features: inFiles.set.features, options: options)
            for z in [0, 10, 14] {
                var dropsA = GeneralisationDrops(), dropsB = GeneralisationDrops()
                let tilesA = try a.blocks(atZoom: z).flatMap { try a.tiles(in: $0, drops: &dropsA) }
                let tilesB = try b.blocks(atZoom: z).flatMap { try b.tiles(in: $0, drops: &dropsB) }
                #expect(tilesB == tilesA, "zoom \(z): the same bytes")
                if z == 14 { #expect(tilesA.count > 20, "Monaco covers dozens of zoom 14 tiles") }
            }
        }
    }

    /// Nodes in any id order (and a repeated id, the later position winning) give the ways the
    /// same points in memory and in a scratch file.
    @Test(arguments: [false, true])
    func nodesOutOfOrder_areSortedOnce_inMemoryOrInAFile(inFile: Bool) throws {
        try withTemporaryDirectory { dir in
            var e = MapFeatureExtractor(storage: inFile ? .scratchFiles(in: dir.path, memoryLimit: 0) : .inMemory)
            // 600 nodes (more than two 256-node runs of the store's sample) along a meridian,
            // added from the highest id down; node 300 comes twice, the later copy 0.01° east.
            for id in stride(from: Int64(600), through: 1, by: -1) {
                try e.addNode(id: id, latitudeE7: 430_000_000 + Int32(id) * 1_000, longitudeE7: 70_000_000, tags: [String: String]())
            }
            try e.addNode(id: 300, latitudeE7: 430_300_000, longitudeE7: 70_100_000, tags: [String: String]())
            #expect(e.nodesAreInScratchFile == inFile)
            try e.addWay(id: 1, nodeRefs: [1, 256, 257, 300, 513, 600], tags: ["highway": "primary"])
            let set = try e.finish()
            guard case .lines(let lines)? = set.features.first?.geometry, let line = lines.first else {
                Issue.record("no line")
                return
            }
            let expected: [(Double, Double)] = [(43.0001, 7.0), (43.0256, 7.0), (43.0257, 7.0), (43.03, 7.01), (43.0513, 7.0), (43.06, 7.0)]
            #expect(line.count == expected.count)
            for (p, (lat, lon)) in zip(line, expected) {
                // Positions are 1e-7° fixed point; the world point round trip keeps 1e-9°.
                #expect(abs(p.coordinate.latitude - lat) < 1e-9 && abs(p.coordinate.longitude - lon) < 1e-9, "\(p.coordinate)")
            }
            #expect(set.statistics.nodes == 601 && set.statistics.waysWithMissingNodes == 0)
        }
    }

    /// A way that names a node the input lacks is skipped and counted; the others are kept.
    @Test func wayWithAMissingNode_isSkippedAndCounted() throws {
        var e = MapFeatureExtractor()
        try e.addNode(id: 1, latitudeE7: 430_000_000, longitudeE7: 70_000_000, tags: [String: String]())
        try e.addNode(id: 2, latitudeE7: 430_010_000, longitudeE7: 70_000_000, tags: [String: String]())
        try e.addWay(id: 10, nodeRefs: [1, 2], tags: ["highway": "primary"])
        try e.addWay(id: 11, nodeRefs: [1, 3], tags: ["highway": "primary"])
        let set = try e.finish()
        #expect(set.features.map(\.id) == [10])
        #expect(set.statistics.waysWithMissingNodes == 1)
    }

    /// A node after ways is refused with its id: ways are assembled as they come.
    @Test func nodeAfterWays_isAnUnsortedInputError() throws {
        var e = MapFeatureExtractor()
        try e.addNode(id: 1, latitudeE7: 430_000_000, longitudeE7: 70_000_000, tags: [String: String]())
        try e.addWay(id: 10, nodeRefs: [1, 2], tags: ["highway": "primary"])
        #expect {
            try e.addNode(id: 2, latitudeE7: 430_010_000, longitudeE7: 70_000_000, tags: [String: String]())
        } throws: { error in
            guard let error = error as? MapDataError else { return false }
            return error.code == .unsorted && error.message.contains("node 2")
        }
    }

    /// A scratch file that cannot grow (a full disk) fails the add with its error, and the
    /// extractor holds what it had.
    @Test func fullScratchDisk_throwsTheFilesError() throws {
        let full = SystemIOError(.noSpace, "cannot grow a scratch file in", errno: ENOSPC, path: "/full")
        var e = MapFeatureExtractor(storage: MapElementStorage(memoryLimit: 64) { FullDisk(capacity: 4096, failure: full) })
        var added = 0
        #expect {
            for id in 1...1_000 {
                try e.addNode(id: Int64(id), latitudeE7: 430_000_000, longitudeE7: 70_000_000, tags: [String: String]())
                added += 1
            }
        } throws: { error in
            (error as? SystemIOError)?.code == .noSpace
        }
        #expect(added == 4096 / 16, "the nodes that fit the 4 KiB the disk had")
    }
}

/// A scratch file on a disk with `capacity` bytes: growing past it throws `failure`.
private final class FullDisk: MapScratchFile {
    let capacity: Int
    let failure: SystemIOError
    private var memory = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    init(capacity: Int, failure: SystemIOError) {
        self.capacity = capacity
        self.failure = failure
    }

    deinit { memory.deallocate() }

    var bytes: UnsafeMutableRawBufferPointer { memory }

    func resize(to count: Int) throws {
        guard count <= capacity else { throw failure }
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: memory[..<min(memory.count, count)]))
        memory.deallocate()
        memory = grown
    }
}
