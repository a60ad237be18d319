import Platform
import GRDB
import GRDBSQLite

/// A prepared INSERT of fixes whose values are bound one by one with SQLite's C API
/// (`sqlite3_bind_*` on GRDB's `Statement.sqliteStatement`) and stepped there, for the statements
/// the group commit's writer runs for every fix: appending to `recent`, copying to `positions`,
/// advancing `latest`. A statement may hold several rows (`INSERT … VALUES (…), (…)`): one
/// step then adds them all.
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
    /// Fixes a step inserts (the statement's rows).
    let rows: Int
    /// Parameters of a row: the `leading` column's and then the 11 of `SQLitePositionStore.tableColumns`.
    let width: Int32

    /// SQLite copies the text before the bind returns (`SQLITE_TRANSIENT`, sqlite.org/c3ref/bind_blob.html).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Prepares (or takes from the connection's cache) `INSERT INTO table (leading, tableColumns)
    /// VALUES` with `rows` rows of parameters, followed by `conflict` (an `ON CONFLICT` clause).
    /// - Parameter leading: a column before those of a fix (`recent`'s batch), its value given to `bind`.
    init(_ db: Database, into table: String, leading: String? = nil, rows: Int = 1, conflict: String = "") throws {
        width = leading == nil ? 11 : 12
        self.rows = rows
        let row = "(" + Array(repeating: "?", count: Int(width)).joined(separator: ", ") + ")"
        let sql = "INSERT INTO \(table) (\(leading.map { "\($0), " } ?? "")\(SQLitePositionStore.tableColumns)) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ") + (conflict.isEmpty ? "" : " " + conflict)
        statement = try db.cachedStatement(sql: sql)
        guard let connection = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "closed connection", sql: sql) }
        self.connection = connection
    }

    /// Binds fix `fix` of device `id` as row `row` of the statement, after the value of its
    /// `leading` column (which it has when it was made with one).
    func bind(_ fix: StoredFix, id: Int64, leading: Int64? = nil, row: Int = 0) {
        let s = statement.sqliteStatement
        var i = Int32(row) * width + 1
        if let leading {
            sqlite3_bind_int64(s, i, leading)
            i += 1
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
    }

    /// Runs the statement with the rows bound; returns the rows it changed (fewer than `rows`:
    /// `ON CONFLICT` skipped some).
    /// - Throws: `DatabaseError` with SQLite's code and message (SQLITE_FULL, I/O errors…).
    @discardableResult
    func step() throws -> Int {
        let s = statement.sqliteStatement
        let code = sqlite3_step(s)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(s)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: String(cString: sqlite3_sql(s)))
        }
        sqlite3_reset(s)
        return Int(sqlite3_changes(connection))
    }

    /// Runs the statement (of one row) for one fix; returns whether it changed a row.
    @discardableResult
    func run(_ fix: StoredFix, id: Int64, leading: Int64? = nil) throws -> Bool {
        bind(fix, id: id, leading: leading)
        return try step() > 0
    }

    private static func bind(_ value: Double?, _ s: SQLiteStatement, _ index: Int32) {
        if let value { sqlite3_bind_double(s, index, value) } else { sqlite3_bind_null(s, index) }
    }
}

/// Inserts any number of fixes into one table: `rows` a step through a statement of that many
/// rows, the rest one a step. A step's fixed cost (its program's start, cursor opening and
/// halt, the reset) is then shared by `rows` fixes.
struct SQLiteFixRows {
    let many: SQLiteFixInsert
    let one: SQLiteFixInsert

    init(_ db: Database, into table: String, leading: String? = nil, rows: Int = 32, conflict: String = "") throws {
        many = try SQLiteFixInsert(db, into: table, leading: leading, rows: rows, conflict: conflict)
        one = try SQLiteFixInsert(db, into: table, leading: leading, conflict: conflict)
    }

    /// Inserts `fixes` (device id, fix) in their order, each after the `leading` value.
    func insert(_ fixes: some Collection<(id: Int64, fix: StoredFix)>, leading: Int64? = nil) throws {
        try insert(fixes) { _ in leading }
    }

    /// Inserts `fixes` (device id, fix) in their order, each after its `leading` value.
    func insert(_ fixes: some Collection<(id: Int64, fix: StoredFix)>, leading: (StoredFix) -> Int64?) throws {
        let rows = many.rows, whole = fixes.count / rows * rows
        var k = 0
        for (id, fix) in fixes {
            if k < whole {
                many.bind(fix, id: id, leading: leading(fix), row: k % rows)
                if k % rows == rows - 1 { try many.step() }
            } else {
                try one.run(fix, id: id, leading: leading(fix))
            }
            k += 1
        }
    }
}
