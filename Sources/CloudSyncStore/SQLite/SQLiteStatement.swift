package import CloudSyncModel
import CSQLite3

/// A prepared statement, finalized when released. Reused with `reset`.
package final class SQLiteStatement: StoreStatement {
    let handle: OpaquePointer
    unowned let database: SQLiteDatabase
    let sql: String

    init(database: SQLiteDatabase, sql: String) throws {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw database.error(status, sql: sql) }
        handle = statement
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Binding (1-based indexes, as SQLite counts)
    //
    // Every bind is checked: an index out of range (a statement edited without its binds) or a
    // value too large fails here, with the statement, instead of running with a NULL.

    package func bind(_ index: Int32, _ value: Int64) throws { try check(sqlite3_bind_int64(handle, index, value)) }
    package func bind(_ index: Int32, _ value: Double) throws { try check(sqlite3_bind_double(handle, index, value)) }
    package func bind(_ index: Int32, _ value: String) throws {
        try check(sqlite3_bind_text(handle, index, value, -1, cloudsync_sqlite_transient()))
    }
    package func bindNull(_ index: Int32) throws { try check(sqlite3_bind_null(handle, index)) }

    /// Binds bytes as TEXT, copied by SQLite (the bytes may be reused right after).
    package func bind(_ index: Int32, bytes: ByteText) throws {
        let pointer = UnsafeRawPointer(bytes.baseAddress ?? ByteText(literal: "").baseAddress!).assumingMemoryBound(to: CChar.self)
        try check(sqlite3_bind_text(handle, index, pointer, Int32(bytes.count), cloudsync_sqlite_transient()))
    }

    /// Binds bytes as a BLOB, copied by SQLite.
    package func bind(_ index: Int32, blob: UnsafeRawBufferPointer) throws {
        try check(sqlite3_bind_blob(handle, index, blob.baseAddress, Int32(blob.count), cloudsync_sqlite_transient()))
    }

    @inline(__always)
    private func check(_ status: Int32) throws {
        if status != SQLITE_OK { throw database.error(status, sql: sql) }
    }

    // MARK: Running

    /// Steps once: true when a row is available.
    @discardableResult
    package func step() throws -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(status, sql: sql)
        }
    }

    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets for the next use, keeping the values bound: for a statement whose parameters are all
    /// bound again before each step (the import's row insert, where `sqlite3_clear_bindings` was
    /// 0.9% of the CPU samples).
    package func rewind() { sqlite3_reset(handle) }

    // MARK: Columns (0-based)

    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    package func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: pointer)
    }

    /// A BLOB column's bytes, valid until the next step or reset.
    package func blob(_ column: Int32) -> UnsafeRawBufferPointer {
        guard let pointer = sqlite3_column_blob(handle, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// The column's bytes, valid until the next step or reset.
    package func bytes(_ column: Int32) -> ByteText {
        guard let pointer = sqlite3_column_text(handle, column) else { return ByteText(literal: "") }
        return ByteText(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
    }
}

@available(*, unavailable)
extension SQLiteStatement: Sendable {}
