import GeoBase
/// The store a tracking command names: PostgreSQL at `postgres://` URLs (`--postgres`; two or
/// more are shards), else the SQLite file at a path (`--db`) — `geo serve-tracking` writes it,
/// `geo loadgen verify` reads what it wrote.
public enum PositionStores {
    /// The longest one PostgreSQL statement of a reader may take: `geo loadgen verify` reads a
    /// whole run's fix times in one (11.9 M of a 10-minute run outlived the server's 5 s; 2.4 M
    /// took 4.9 s).
    static let readerDeadline: Duration = .seconds(600)

    /// Opens PostgreSQL at `postgresURLs` when given (one database, or a `ShardedPositionStore`
    /// over several), else the SQLite file `sqlitePath`.
    /// - Parameters:
    ///   - replicaURLs: streaming replicas (`PostgresReplica`) of those databases, each serving
    ///     the history reads of the one it copies.
    ///   - readOnly: for a reader of what a server wrote (`geo loadgen verify`): SQLite
    ///     opened read-only (commits fail), PostgreSQL's schema not created (otherwise it is,
    ///     when absent) and its statements allowed `readerDeadline`.
    /// - Throws: what `PostgresPositionStore.open`, `PostgresReplica.open`,
    ///   `ShardedPositionStore.init` or `SQLitePositionStore(path:)` throws (a read-only SQLite
    ///   file that does not exist cannot be opened); `PostgresStoreError` `.badShards` for a
    ///   replica of none of the databases, or replicas without PostgreSQL.
    public static func open(postgresURLs: [String], replicaURLs: [String] = [], sqlitePath: String,
                            readOnly: Bool = false) async throws -> any PositionStore {
        guard !postgresURLs.isEmpty else {
            guard replicaURLs.isEmpty else { throw PostgresStoreError(.badShards, "a replica without its database (--postgres)", at: "--postgres-replica") }
            return try SQLitePositionStore(path: sqlitePath, readOnly: readOnly)
        }
        var stores: [PostgresPositionStore] = []
        for url in postgresURLs {
            stores.append(try await readOnly ? PostgresPositionStore.open(url: url, createSchema: false, deadline: readerDeadline)
                                             : PostgresPositionStore.open(url: url))
        }
        // After the schemas: a replica copied from a database the server had not opened gets
        // their identity by replay.
        for url in replicaURLs {
            let replica = try await PostgresReplica.open(url: url)
            guard let store = stores.first(where: { $0.shard == replica.shard }) else {
                throw PostgresStoreError(.badShards, "copies none of the --postgres databases (shard \(replica.shard))", at: "\(replica.connector.location)")
            }
            store.attach(replica)
        }
        return stores.count == 1 ? stores[0] : try ShardedPositionStore(stores)
    }
}
