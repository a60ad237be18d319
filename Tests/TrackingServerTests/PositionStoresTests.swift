import Foundation
import Testing
import TrackingServer

/// `PositionStores.open`: the store `geo serve-tracking` writes and `geo loadgen verify` reads.
@Suite struct PositionStoresTests {
    /// Without a PostgreSQL URL: the SQLite file, created by the writer; the reader opens what
    /// the writer stored and cannot register devices itself; a reader of a missing file fails.
    @Test func sqlite_writerCreates_readerReadsOnly() async throws {
        let dir = try TrackingServerTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.sqlite").path
        await #expect(throws: (any Error).self) { _ = try await PositionStores.open(postgresURL: nil, sqlitePath: path, readOnly: true) }
        #expect(!FileManager.default.fileExists(atPath: path))

        let writer = try await PositionStores.open(postgresURL: nil, sqlitePath: path)
        #expect(writer is SQLitePositionStore)
        try await writer.register([DeviceSettings(name: "phone-1")])
        #expect(FileManager.default.fileExists(atPath: path))

        let reader = try await PositionStores.open(postgresURL: nil, sqlitePath: path, readOnly: true)
        #expect(try await reader.devices().map(\.name) == ["phone-1"])
        await #expect(throws: (any Error).self) { try await reader.register([DeviceSettings(name: "phone-2")]) }
    }
}
