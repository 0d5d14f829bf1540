import CSQLite3
import CSQLiteRows
#if canImport(Glibc)
import Glibc
#endif

/// One SQLite connection (the system library through its C API). Owns the handle; statements are
/// prepared once and reused. Not thread-safe: one connection per thread.
package final class SQLiteDatabase: StoreDatabase {
    package let path: String
    package var dialect: SQLDialect { .sqlite }
    let handle: OpaquePointer

    package struct OpenMode: Sendable {
        var flags: Int32
        package static let readWrite = OpenMode(flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        package static let readOnly = OpenMode(flags: SQLITE_OPEN_READONLY)
    }

    /// Process-wide settings, applied once before the first connection (SQLite refuses them after).
    private static let configured: Void = { _ = cloudsync_sqlite_disable_memory_statistics() }()

    /// `shownAs`: the path messages name, when the file is not yet where it will be (a new store's
    /// file beside its path: `NewStoreLoad`).
    package init(path: String, mode: OpenMode = .readWrite, shownAs: String? = nil) throws {
        Self.configured
        self.path = shownAs ?? path
        if mode.flags & SQLITE_OPEN_CREATE != 0 { PrivateFile.create(path) }
        var db: OpaquePointer?
        let status = sqlite3_open_v2(path, &db, mode.flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(db)
            throw SQLiteError(code: status, extendedCode: status, message: message, sql: nil, path: self.path)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // Another cloudsync writing while we want to write: wait (see `waitForLocks`).
        sqlite3_busy_timeout(db, 5000)
    }

    /// How long a statement waits for a lock another connection holds before it fails with
    /// SQLITE_BUSY (the store says how long each of its writers waits).
    package func waitForLocks(upTo seconds: Double) {
        sqlite3_busy_timeout(handle, Int32(max(0, min(seconds, 86_400)) * 1000))
    }

    /// Where this connection waits for the write lock among the store's other writers (see
    /// `StoreLocks`); nil: a connection on its own.
    var waitingRoom: StoreLocks?

    /// Makes this connection (one that is not a `StagingStore`'s, on a store's file: `serve --store`'s
    /// own tables) wait for the write lock in the store's waiting room, as the store's writers do.
    package func waitInTheStoreWritersRoom() throws {
        waitingRoom = try StoreLocks(storePath: path)
    }

    /// Takes the write lock now (BEGIN IMMEDIATE), waiting in the store's waiting room.
    package func beginWriting() throws {
        if let waitingRoom {
            try waitingRoom.waitingForTheWriteLock { try execute("BEGIN IMMEDIATE") }
        } else {
            try execute("BEGIN IMMEDIATE")
        }
    }

    deinit {
        sqlite3_close_v2(handle)
        cellChunkStorage?.deallocate()
    }

    private var cellChunkStorage: UnsafeMutablePointer<cloudsync_cell_chunk>?

    /// The chunk the virtual table `cloudsync_cells` reads (`CellRows`), registered on this
    /// connection the first time it is asked for; it lives as long as the connection.
    func cellChunk() throws -> UnsafeMutablePointer<cloudsync_cell_chunk> {
        if let cellChunkStorage { return cellChunkStorage }
        let chunk = UnsafeMutablePointer<cloudsync_cell_chunk>.allocate(capacity: 1)
        chunk.initialize(to: cloudsync_cell_chunk(cells: nil, count: 0, columns: 0, bytes: nil))
        let status = cloudsync_cells_register(handle, chunk)
        guard status == SQLITE_OK else {
            chunk.deallocate()
            throw error(status, sql: "cloudsync_cells")
        }
        cellChunkStorage = chunk
        return chunk
    }

    /// Runs SQL without results (one or several statements).
    package func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if status != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: status & 0xFF, extendedCode: status, message: message, sql: sql, path: path)
        }
    }

    package func prepare(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(database: self, sql: sql)
    }

    /// WAL, also when another process opens the new file at the same moment: changing the journal
    /// mode takes the file whole, and SQLite answers SQLITE_BUSY at once rather than wait (two
    /// `serve` instances started together on one new file failed so). Tried again for up to 10 s.
    package func turnOnWAL() throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                try execute("PRAGMA journal_mode = WAL")
                return
            } catch let error as SQLiteError where error.isBusy && ContinuousClock.now < deadline {
                usleep(20_000)
            }
        }
    }

    package var changes: Int { Int(sqlite3_changes(handle)) }
    /// False while a transaction is open.
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    package func othersCommits() throws -> Int64? { try scalarInt("PRAGMA data_version") }

    package func rowBatch(_ columns: [RowBatchColumn], sql: String, rowsPerChunk: Int) throws -> any RowBatch {
        try CellRows(database: self, columns: columns.count, sql: sql, rowsPerChunk: rowsPerChunk)
    }

    func error(_ status: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: status & 0xFF, extendedCode: sqlite3_extended_errcode(handle),
                    message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
    }
}

@available(*, unavailable)
extension SQLiteDatabase: Sendable {}

