import Platform
import GRDB
import GRDBSQLite

/// The rows of a SELECT whose first columns are `SQLitePositionStore.tableColumns`, read as fixes
/// with SQLite's C API (`sqlite3_step` and `sqlite3_column_*` on GRDB's `Statement.sqliteStatement`),
/// for the reads of fix rows: the writer's start over `recent` and `latest`, a device's history
/// (`positions(device:from:to:limit:)`), a read-only store's latest fixes (`latest(_:device:)`).
///
/// Why not GRDB's `Row` (the house rule keeps the library's API unless a measurement says
/// otherwise): a server restarted on the file of 19,700 devices killed after 25 s read the
/// 335,887 fixes of `recent` through `Row.fetchAll` in 1.09 s, 3.2 µs a fix, before it listened.
/// Each column went through the generic `DatabaseValueConvertible.decode`, whose metadata lookup
/// (`swift_getGenericMetadata`) alone was 11 % of the start's perf samples, and each fix made
/// its device's name and its source as new strings. Here a fix's device name is the caller's
/// (one string a device, shared), and its source the row before's when the bytes are the same.
struct SQLiteFixCursor {
    /// Made for this cursor (not cached): finalized with it, so a read left part-way holds nothing.
    private let statement: Statement
    private let connection: SQLiteConnection
    /// The last row's source: a table's rows share a few.
    private var source = ""

    init(_ db: Database, sql: String, arguments: StatementArguments = []) throws {
        statement = try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        guard let connection = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "closed connection", sql: sql) }
        self.connection = connection
    }

    /// The next row's device id and fix, whose device is `name(id)`; a row whose device has no
    /// name is skipped (as a join with `devices` would). nil after the last row.
    /// - Throws: `DatabaseError` with SQLite's code and message (a corrupt page, an I/O error).
    mutating func next(name: (Int64) -> String?) throws -> (id: Int64, fix: StoredFix)? {
        let s = statement.sqliteStatement
        while true {
            let code = sqlite3_step(s)
            if code == SQLITE_DONE { return nil }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: statement.sql)
            }
            let id = sqlite3_column_int64(s, 0)
            guard let device = name(id) else { continue }
            let text = UnsafeBufferPointer(start: sqlite3_column_text(s, 10), count: Int(sqlite3_column_bytes(s, 10)))
            if !source.utf8.elementsEqual(text) { source = String(decoding: text, as: UTF8.self) }
            let fix = StoredFix(device: device, fixTime: sqlite3_column_int64(s, 1), payloadHash: sqlite3_column_int64(s, 2),
                                latitude: sqlite3_column_double(s, 3), longitude: sqlite3_column_double(s, 4), altitude: double(5),
                                accuracy: double(6), speed: double(7), course: double(8), receivedAt: sqlite3_column_int64(s, 9), source: source)
            return (id, fix)
        }
    }

    /// Column `index` of the row `next` returned last, as an integer: a column after the fix's
    /// (`recent`'s batch).
    func integer(at index: Int32) -> Int64 {
        sqlite3_column_int64(statement.sqliteStatement, index)
    }

    private func double(_ index: Int32) -> Double? {
        let s = statement.sqliteStatement
        return sqlite3_column_type(s, index) == SQLITE_NULL ? nil : sqlite3_column_double(s, index)
    }
}
