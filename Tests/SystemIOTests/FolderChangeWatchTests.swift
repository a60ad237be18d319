import Foundation
import GeoTestSupport
import SystemIO
import Testing

/// `FolderChangeWatch`: quiet while nothing happens, yes after every kind of change a served
/// file goes through (an atomic rename over it, a rewrite in place, a removal), each change
/// reported once.
struct FolderChangeWatchTests {
    @Test func saysYesOncePerChange_atomicRename_rewrite_removal() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("tiles.pmtiles").path
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: file))
            let watch = FolderChangeWatch(folder: dir.path)
            #if os(Linux)
            #expect(!watch.changed(), "nothing happened since the watch began")
            _ = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(!watch.changed(), "reading the file is no change")
            #endif
            let next = dir.appendingPathComponent("tiles.pmtiles.tmp").path
            try Data([4, 5]).write(to: URL(fileURLWithPath: next))
            #expect(rename(next, file) == 0)
            #expect(watch.changed(), "an atomic rename over the file")
            #if os(Linux)
            #expect(!watch.changed(), "the rename was reported once")
            #endif
            let handle = try #require(FileHandle(forWritingAtPath: file))
            try handle.seekToEnd()
            try handle.write(contentsOf: [6])
            try handle.close()
            #expect(watch.changed(), "a write in place")
            try FileManager.default.removeItem(atPath: file)
            #expect(watch.changed(), "a removal")
            #if os(Linux)
            #expect(!watch.changed())
            #endif
        }
    }

    /// A folder that cannot be watched (missing) says yes to every question, so a caller
    /// falls back to checking the file itself.
    @Test func withoutAWatch_everyQuestionIsYes() {
        let watch = FolderChangeWatch(folder: "/nonexistent-\(UInt64.random(in: 0...UInt64.max))")
        #expect(watch.changed() && watch.changed())
    }
}
