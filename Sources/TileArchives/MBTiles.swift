import CSQLite3
import MapData
import SystemIO

/// SQLite's "copy the bytes now" destructor (`SQLITE_TRANSIENT`, a macro Swift cannot import).
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// An open SQLite database with the few calls MBTiles needs; errors carry SQLite's message.
private final class SQLiteDatabase {
    let handle: OpaquePointer
    let path: String

    init(path: String, readOnly: Bool) throws(TileArchiveError) {
        var db: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw TileArchiveError(.invalidArchive, message, path: path)
        }
        handle = db
        self.path = path
    }

    deinit { sqlite3_close(handle) }

    func error(_ what: String) -> TileArchiveError {
        let code = sqlite3_errcode(handle)
        let message = "\(what): \(String(cString: sqlite3_errmsg(handle)))"
        return TileArchiveError(code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? .truncated : .invalidArchive, message, path: path)
    }

    func execute(_ sql: String) throws(TileArchiveError) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    func prepare(_ sql: String) throws(TileArchiveError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error(sql) }
        return statement
    }
}

/// Writes an MBTiles 1.3 file (https://github.com/mapbox/mbtiles-spec/blob/master/1.3/spec.md):
/// the `metadata` and `tiles` tables, rows in TMS order (`tile_row` = 2^z − 1 − y), one transaction.
struct MBTilesWriter {
    private let replacement: AtomicFileReplacement
    private let db: SQLiteDatabase
    private let insert: OpaquePointer
    private var rows = 0

    /// Most tiles an MBTiles archive is written with: 2^20 (1,048,576, every tile of zoom 10,
    /// several times the zoom 0–14 tiles of a large country).
    /// MBTiles 1.3 has no runs, so a polygon filling the world at zoom 14 would be 2^28 rows
    /// (gigabytes, hours); past this the build stops with `.tooLarge`, and PMTiles, which
    /// stores such a run as one entry, is the archive for it.
    static let maximumTiles = 1 << 20

    init(replacing path: String) throws {
        // Asked before opening: opening a FIFO would wait for a reader and then hand it nothing.
        guard try !AtomicFileReplacement.writesThrough(path) else {
            throw TileArchiveError(.invalidArgument, "an MBTiles archive is an SQLite database and must be a regular file", path: path)
        }
        replacement = try AtomicFileReplacement(replacing: path)
        do {
            db = try SQLiteDatabase(path: replacement.temporaryPath, readOnly: false)
            try db.execute("""
                PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                BEGIN;
                """)
            insert = try db.prepare("INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)")
        } catch {
            replacement.discard()
            throw error
        }
    }

    /// Adds a tile, or each tile of a run (one row each).
    /// - Throws: `TileArchiveError.tooLarge` past `maximumTiles`, else SQLite's error.
    mutating func add(_ tile: EncodedTile) throws(TileArchiveError) {
        guard rows + tile.runLength <= Self.maximumTiles else {
            throw TileArchiveError(.tooLarge, "zoom \(tile.zoom) takes the archive past \(Self.maximumTiles) tiles at tile \(tile.zoom)/\(tile.x)/\(tile.y) (MBTiles stores a row per tile, and polygons that fill whole squares make millions): write .pmtiles, which stores a run of equal tiles as one entry, or lower --maxzoom", path: replacement.path)
        }
        rows += tile.runLength
        let first = PMTiles.tileID(zoom: tile.zoom, x: tile.x, y: tile.y)
        for i in 0..<tile.runLength {
            var (x, y) = (tile.x, tile.y)
            if i > 0 {
                do { (_, x, y) = try PMTiles.tile(id: first + UInt64(i)) } catch { throw TileArchiveError(.invalidArgument, "\(error)", path: db.path) }
            }
            sqlite3_reset(insert)
            sqlite3_bind_int(insert, 1, Int32(tile.zoom))
            sqlite3_bind_int(insert, 2, Int32(x))
            sqlite3_bind_int(insert, 3, Int32((1 << tile.zoom) - 1 - y))
            _ = tile.data.withUnsafeBytes { sqlite3_bind_blob(insert, 4, $0.baseAddress, Int32($0.count), transient) }
            guard sqlite3_step(insert) == SQLITE_DONE else { throw db.error("insert tile \(tile.zoom)/\(x)/\(y)") }
        }
    }

    func finish(metadata: [(String, String)]) throws {
        do {
            let statement = try db.prepare("INSERT INTO metadata (name, value) VALUES (?, ?)")
            defer { sqlite3_finalize(statement) }
            for (name, value) in metadata {
                sqlite3_reset(statement)
                sqlite3_bind_text(statement, 1, name, -1, transient)
                sqlite3_bind_text(statement, 2, value, -1, transient)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw db.error("insert metadata \(name)") }
            }
            sqlite3_finalize(insert)
            try db.execute("COMMIT;")
            try replacement.commit()
            try replacement.descriptor.close()
        } catch {
            replacement.discard()
            throw error
        }
    }
}

/// Reads an MBTiles 1.3 file.
public final class MBTilesReader {
    private let db: SQLiteDatabase

    /// Opens `path` read-only and checks that it has the MBTiles tables.
    /// - Throws: `TileArchiveError` `.truncated` for a damaged or cut database, `.invalidArchive`
    ///   for anything else SQLite refuses or a database without `tiles` and `metadata`.
    public init(path: String) throws(TileArchiveError) {
        db = try SQLiteDatabase(path: path, readOnly: true)
        let statement = try db.prepare("SELECT count(*) FROM sqlite_master WHERE name IN ('tiles', 'metadata')")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw db.error("read the schema") }
        guard sqlite3_column_int(statement, 0) == 2 else { throw TileArchiveError(.invalidArchive, "no MBTiles 'tiles' and 'metadata' tables", path: path) }
        try Self.checkLength(path)
    }

    /// Checks that the file holds every page its header counts. SQLite reads the part of a page
    /// past a cut file's end as zeros (its unix VFS fills a short read), so a file cut inside
    /// its tiles' pages would read as tiles that do not decode rather than as a cut file. The
    /// header's database size (SQLite file format §1.3: page size at offset 16, 1 meaning
    /// 65,536; the size in pages at 28, valid when the change counter at 24 equals the
    /// version-valid-for number at 92) is the main file's as of its last commit or checkpoint.
    /// - Throws: `TileArchiveError.truncated` naming both lengths, `.invalidArchive` when the
    ///   file cannot be read.
    private static func checkLength(_ path: String) throws(TileArchiveError) {
        let header: [UInt8], length: Int64
        do {
            let file = try FileDescriptor(opening: path)
            defer { try? file.close() }
            header = try file.read(count: 100, atOffset: 0)
            length = try file.size()
        } catch {
            throw TileArchiveError(.invalidArchive, "cannot read the database header: \(error)", path: path)
        }
        guard header.count == 100 else { throw TileArchiveError(.truncated, "the file ends inside the 100-byte database header", path: path) }
        func word(_ at: Int) -> Int64 { header[at..<(at + 4)].reduce(0) { $0 << 8 | Int64($1) } }
        let pageSize: Int64 = header[16] == 0 && header[17] == 1 ? 65_536 : Int64(header[16]) << 8 | Int64(header[17])
        guard word(24) == word(92), word(28) > 0 else { return }
        let expected = word(28) * pageSize
        guard length >= expected else {
            throw TileArchiveError(.truncated, "cut short: the database's \(word(28)) pages of \(pageSize) bytes are \(expected) bytes, the file \(length)", path: path)
        }
    }

    /// The `metadata` table as name → value.
    public func metadata() throws(TileArchiveError) -> [String: String] {
        let statement = try db.prepare("SELECT name, value FROM metadata")
        defer { sqlite3_finalize(statement) }
        var out: [String: String] = [:]
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return out }
            guard status == SQLITE_ROW else { throw db.error("read metadata") }
            guard let name = sqlite3_column_text(statement, 0) else { continue }
            out[String(cString: name)] = sqlite3_column_text(statement, 1).map { String(cString: $0) } ?? ""
        }
    }

    /// The stored bytes of tile z/x/y (XYZ addressing), or nil.
    public func tile(zoom: Int, x: Int, y: Int) throws(TileArchiveError) -> [UInt8]? {
        guard (0...30).contains(zoom), (0..<(1 << zoom)).contains(x), (0..<(1 << zoom)).contains(y) else {
            throw TileArchiveError(.invalidArgument, "no tile \(zoom)/\(x)/\(y): zoom 0…30, x and y 0..<2^zoom", path: db.path)
        }
        let statement = try db.prepare("SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int(statement, 1, Int32(zoom))
        sqlite3_bind_int(statement, 2, Int32(x))
        sqlite3_bind_int(statement, 3, Int32((1 << zoom) - 1 - y))
        let status = sqlite3_step(statement)
        if status == SQLITE_DONE { return nil }
        guard status == SQLITE_ROW else { throw db.error("read tile \(zoom)/\(x)/\(y)") }
        return Self.blob(statement, 0)
    }

    /// Calls `body` with every tile (XYZ addressing), in storage order.
    public func forEachTile(_ body: (_ zoom: Int, _ x: Int, _ y: Int, _ data: [UInt8]) throws -> Void) throws {
        let statement = try db.prepare("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")
        defer { sqlite3_finalize(statement) }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw db.error("read tiles") }
            let z = Int(sqlite3_column_int(statement, 0))
            guard (0...30).contains(z) else { throw TileArchiveError(.invalidArchive, "tile row with zoom_level \(z)", path: db.path) }
            let row = Int(sqlite3_column_int(statement, 2))
            try body(z, Int(sqlite3_column_int(statement, 1)), (1 << z) - 1 - row, Self.blob(statement, 3))
        }
    }

    private static func blob(_ statement: OpaquePointer, _ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let base = sqlite3_column_blob(statement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
    }
}
