/// The store a tracking command names: PostgreSQL at a `postgres://` URL (`--postgres`), else
/// the SQLite file at a path (`--db`) — `geo serve-tracking` writes it, `geo loadgen verify`
/// reads what it wrote.
public enum PositionStores {
    /// Opens PostgreSQL at `postgresURL` when given, else the SQLite file `sqlitePath`.
    /// - Parameter readOnly: for a reader of what a server wrote (`geo loadgen verify`): SQLite
    ///   opened read-only (commits fail), no PostgreSQL schema created; otherwise each is
    ///   created when absent.
    /// - Throws: what `PostgresPositionStore.open` or `SQLitePositionStore(path:)` throws (a
    ///   read-only SQLite file that does not exist cannot be opened).
    public static func open(postgresURL: String?, sqlitePath: String, readOnly: Bool = false) async throws -> any PositionStore {
        if let postgresURL { return try await PostgresPositionStore.open(url: postgresURL, createSchema: !readOnly) }
        return try SQLitePositionStore(path: sqlitePath, readOnly: readOnly)
    }
}
