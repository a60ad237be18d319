import Foundation
import GeoTestSupport
import Testing
import TrackingServer

/// `PositionStores.open`: the store `geo serve-tracking` writes and `geo loadgen verify` reads.
@Suite struct PositionStoresTests {
    /// Without a PostgreSQL URL: the SQLite file, created by the writer; the reader opens what
    /// the writer stored and cannot register devices itself; a reader of a missing file fails.
    @Test func sqlite_writerCreates_readerReadsOnly() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            await #expect(throws: (any Error).self) { _ = try await PositionStores.open(postgresURLs: [], sqlitePath: path, readOnly: true) }
            #expect(!FileManager.default.fileExists(atPath: path))

            let writer = try await PositionStores.open(postgresURLs: [], sqlitePath: path)
            #expect(writer is SQLitePositionStore)
            try await writer.register([DeviceSettings(name: "phone-1")])
            #expect(FileManager.default.fileExists(atPath: path))

            let reader = try await PositionStores.open(postgresURLs: [], sqlitePath: path, readOnly: true)
            #expect(try await reader.devices().map(\.name) == ["phone-1"])
            await #expect(throws: (any Error).self) { try await reader.register([DeviceSettings(name: "phone-2")]) }
        }
    }

    /// A store that cannot open its database (the path is a folder) throws SQLite's error and
    /// leaves the lock free: a second try fails the same way, not as "in use".
    @Test func sqlite_unopenableDatabase_leavesTheLockFree() throws {
        try withTemporaryDirectory { dir in
            // The lock file is the database path's, beside the folder.
            defer { try? FileManager.default.removeItem(atPath: dir.path + "-lock") }
            for _ in 0..<2 {
                do {
                    _ = try SQLitePositionStore(path: dir.path)
                    Issue.record("a folder opened as a database")
                } catch {
                    #expect(!(error is SQLiteStoreInUse), "\(error)")
                }
            }
        }
    }

    /// One writer per SQLite file: a second writable store is refused, naming the holder's
    /// process, while readers open; once the first stops writing (a server's stop), its writes
    /// fail, its reads go on, and the second opens and writes.
    @Test func sqlite_secondWriterRefused_untilTheFirstStopsWriting() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let first = try SQLitePositionStore(path: path)
            try first.register([DeviceSettings(name: "phone-1")])
            do {
                _ = try SQLitePositionStore(path: path)
                Issue.record("a second writer opened the file")
            } catch let error as SQLiteStoreInUse {
                #expect(error.holder == getpid())
                #expect(error.description.hasPrefix("\(path) is written by another tracking server (process \(getpid());"))
            }
            let reader = try SQLitePositionStore(path: path, readOnly: true)
            #expect(try reader.devices().map(\.name) == ["phone-1"])

            first.stopWriting()
            #expect(throws: SQLiteStoreStopped.self) { try first.register([DeviceSettings(name: "phone-2")]) }
            #expect(throws: SQLiteStoreStopped.self) { try first.commit([SQLiteMoveTests.fix("phone-1", Int64(Date().timeIntervalSince1970) * 1000)]) }
            #expect(try first.devices().map(\.name) == ["phone-1"])
            let second = try SQLitePositionStore(path: path)
            try second.register([DeviceSettings(name: "phone-3")])
            #expect(try reader.devices().map(\.name).sorted() == ["phone-1", "phone-3"])
        }
    }
}
