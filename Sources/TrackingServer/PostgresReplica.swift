public import GeoBase
import PostgresNIO

/// A streaming replica of a tracking database (made with `pg_basebackup -R`: PostgreSQL 15
/// documentation, 27.2 "Log-Shipping Standby Servers"), for history reads: the store of the
/// database it copies (the same `shard`) reads a device's positions and its geofence events
/// there, and keeps the writes and the latest positions on the primary. A replica replays its
/// primary's WAL a moment later, so a fix read back at once may not be there yet; a replica that
/// fails a read leaves it to the primary.
public struct PostgresReplica: Sendable {
    let connector: PostgresConnector
    /// The identity of the database it copies (`PostgresPositionStore.shard`).
    public let shard: String

    /// How long `open` waits for a replica to show its primary's identity: one copied from a
    /// primary the server had not opened yet gets it by replay, a moment after the schema is made.
    static let identityWait: Duration = .seconds(10)

    /// Connects to the replica at `url` and reads which database it copies.
    /// - Throws: `PostgresStoreError` for a bad URL, a database that does not answer, or one
    ///   that shows no identity within `identityWait` (not a copy of a tracking database).
    public static func open(url: String, deadline: Duration = .seconds(5)) async throws(PostgresStoreError) -> PostgresReplica {
        let connector = PostgresConnector(try PostgresLocation(url: url), deadline: deadline)
        let end = ContinuousClock.now.advanced(by: identityWait)
        while true {
            if let shard = try await PostgresPositionStore.shard(of: connector) { return PostgresReplica(connector: connector, shard: shard) }
            guard ContinuousClock.now < end else { break }
            try? await Task.sleep(for: .milliseconds(200))
        }
        throw PostgresStoreError(.unavailable, "no tracking database here (no shard identity within \(identityWait)): not a replica of one",
                                 at: "\(connector.location)")
    }
}
