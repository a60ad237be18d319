import Foundation
import GeoTestSupport
import Testing
@testable import TrackingServer

/// `SQLiteCheckpointer`: the pages a commit left in the WAL reach the database file without
/// the writer checkpointing (its threshold, 64 MiB of WAL, is far above these commits).
@Suite struct SQLiteCheckpointerTests {
    static func fileSize(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? -1
    }

    @Test func committedPages_reachTheDatabaseFile_withinSeconds() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let store = try SQLitePositionStore(path: path)
            let now = Int64(Date().timeIntervalSince1970) * 1000
            // ~2 MB of rows: some 500 pages, all in the WAL after the commit.
            let rows = (0..<20_000).map { i in
                StoredFix(device: "d\(i % 100)", fixTime: now - Int64(i) * 1000, payloadHash: Int64(i), latitude: 52.5, longitude: 13.4,
                          receivedAt: now, source: "osmand")
            }
            let before = try Self.fileSize(path)
            #expect(try store.commit(rows) == rows.count)
            var after = before
            for _ in 0..<100 where after < before + 1_000_000 {
                try await Task.sleep(for: .milliseconds(50))
                after = try Self.fileSize(path)
            }
            #expect(after >= before + 1_000_000, "database file \(before) → \(after) bytes")
            store.stopWriting()
        }
    }
}
