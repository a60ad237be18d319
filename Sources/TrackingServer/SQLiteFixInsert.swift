import Platform
import GRDB
import GRDBSQLite

/// A prepared INSERT of fixes whose values are bound one by one with SQLite's C API
/// (`sqlite3_bind_*` on GRDB's `Statement.sqliteStatement`) and stepped there, for the statements
/// the group commit's writer runs once per fix: appending to `recent`, copying to `positions`,
/// advancing `latest`.
///
/// Why not GRDB's `execute(arguments:)` (the house rule keeps the library's API unless a
/// measurement says otherwise): under tracking.sh, 1,000 Overland devices × batches of 100, the
/// writer thread was most of a core, and 34 % of its perf samples were GRDB's per-row work
/// (SQLite itself 22 %): a `StatementArguments` array of `DatabaseValue`s (and one more to
/// prepend the batch), checked against the statement's parameters, and before each step the
/// statement's SQL read back into a `String` and trimmed (`statementWillExecute` →
/// `checkForAbortedTransaction(sql:)`). These statements run inside the writer's
/// `DatabasePool.write` transaction, have no transaction observer to notify and are reset after
/// every step, so GRDB's execution adds nothing they need.
struct SQLiteFixInsert {
    let statement: Statement
    let connection: SQLiteConnection

    /// SQLite copies the text before the bind returns (`SQLITE_TRANSIENT`, sqlite.org/c3ref/bind_blob.html).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Prepares (or takes from the connection's cache) `sql`, whose parameters are the
    /// `leading` integers given to `insert` and then `SQLitePositionStore.tableColumns`.
    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        guard let connection = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "closed connection", sql: sql) }
        self.connection = connection
    }

    /// Runs the statement for one fix of device `id`, after the `leading` parameters (the batch
    /// of `recent`). Returns whether it changed a row (false: `ON CONFLICT` skipped it).
    /// - Throws: `DatabaseError` with SQLite's code and message (SQLITE_FULL, I/O errors…).
    @discardableResult
    func run(_ fix: StoredFix, id: Int64, leading: Int64? = nil) throws -> Bool {
        let s = statement.sqliteStatement
        var i: Int32 = 1
        if let leading {
            sqlite3_bind_int64(s, 1, leading)
            i = 2
        }
        sqlite3_bind_int64(s, i, id)
        sqlite3_bind_int64(s, i + 1, fix.fixTime)
        sqlite3_bind_int64(s, i + 2, fix.payloadHash)
        sqlite3_bind_double(s, i + 3, fix.latitude)
        sqlite3_bind_double(s, i + 4, fix.longitude)
        Self.bind(fix.altitude, s, i + 5)
        Self.bind(fix.accuracy, s, i + 6)
        Self.bind(fix.speed, s, i + 7)
        Self.bind(fix.course, s, i + 8)
        sqlite3_bind_int64(s, i + 9, fix.receivedAt)
        sqlite3_bind_text(s, i + 10, fix.source, -1, Self.transient)
        let code = sqlite3_step(s)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(s)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: String(cString: sqlite3_sql(s)))
        }
        sqlite3_reset(s)
        return sqlite3_changes(connection) > 0
    }

    private static func bind(_ value: Double?, _ s: SQLiteStatement, _ index: Int32) {
        if let value { sqlite3_bind_double(s, index, value) } else { sqlite3_bind_null(s, index) }
    }
}
