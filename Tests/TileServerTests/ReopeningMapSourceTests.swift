import Foundation
import GeoTestSupport
import MapData
import Synchronization
import TileArchives
import Testing

/// `ReopeningMapSource` under concurrent readers: whichever reader happens to read the folder's
/// change events, a call that begins after an atomic replacement returns the new archive.
struct ReopeningMapSourceTests {
    @Test func aCallAfterAReplacement_getsTheNewArchive_whileOtherThreadsReadTheEvents() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.pmtiles").path
            try TileServerTests.writeArchive(path, maxZoom: 5)
            let source = try ReopeningMapSource(path: path)
            let stop = Atomic<Bool>(false)
            // Two threads asking all the time, so that most change events are read by them.
            let readers = (0..<2).map { _ in
                Thread { while !stop.load(ordering: .relaxed) { _ = source.versioned() } }
            }
            readers.forEach { $0.start() }
            defer { stop.store(true, ordering: .relaxed) }
            for round in 1...40 {
                let zoom = round % 2 == 0 ? 5 : 7
                try TileServerTests.writeArchive(path, maxZoom: zoom)
                #expect(source.current().metadata.maxZoom == zoom, "round \(round): the replacement, from the next call on")
            }
        }
    }
}
