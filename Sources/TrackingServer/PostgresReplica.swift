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

    /// Connects to the replica at `url` and reads which database it copies.
    /// - Throws: `PostgresStoreError` for a bad URL, a database that does not answer, or one
    ///   the tracking server never opened (no `shard` table).
    public static func open(url: String, deadline: Duration = .seconds(5)) async throws(PostgresStoreError) -> PostgresReplica {
        let connector = PostgresConnector(try PostgresLocation(url: url), deadline: deadline)
        return PostgresReplica(connector: connector, shard: try await shard(of: connector))
    }

    /// The identity in the database's `shard` table (`PostgresPositionStore.schema`).
    static func shard(of connector: PostgresConnector) async throws(PostgresStoreError) -> String {
        let id = try await connector.suspending { session in
            guard try await session.query("SELECT to_regclass('shard') IS NOT NULL").get().first?.decode(Bool.self) == true else { return nil as String? }
            return try await session.query("SELECT id FROM shard").get().first?.decode(String.self)
        }
        guard let id else {
            throw PostgresStoreError(.unavailable, "no tracking database here (no shard identity: the tracking server has not opened it)",
                                     at: "\(connector.location)")
        }
        return id
    }
}
