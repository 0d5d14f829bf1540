import CloudSyncStore
import Foundation

/// The receiver's own SQLite file: what each backend stored. One connection, used under a lock
/// (each request's work is one short transaction).
final class ReceiverDatabase: @unchecked Sendable {
    private let lock = NSLock()
    private let database: SQLiteDatabase

    static let schema = """
        CREATE TABLE IF NOT EXISTS cloudcare_metric (
            device_id TEXT NOT NULL, type TEXT NOT NULL, start_date TEXT NOT NULL, end_date TEXT NOT NULL,
            source_app TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL, metadata TEXT NOT NULL,
            user_id TEXT NOT NULL, received_at INTEGER NOT NULL,
            -- Unlike the real backend's (patient, device, type, endDate), two sources ending a sample
            -- in the same second never collide here.
            PRIMARY KEY (device_id, type, start_date, end_date, source_app, value)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS flo_sample (
            uuid TEXT PRIMARY KEY, data_type TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL,
            start_date TEXT NOT NULL, end_date TEXT NOT NULL, body TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS flo_state (
            id INTEGER PRIMARY KEY CHECK (id = 1), backfill_complete INTEGER NOT NULL, backfill_date TEXT,
            mark_calls INTEGER NOT NULL DEFAULT 0, marked_sample_count INTEGER
        );
        INSERT OR IGNORE INTO flo_state(id, backfill_complete) VALUES (1, 0);
        CREATE TABLE IF NOT EXISTS steps_sample (uuid TEXT PRIMARY KEY) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS pairing (
            id INTEGER PRIMARY KEY, ios_user_id TEXT NOT NULL, ios_device_id TEXT NOT NULL,
            android_user_id TEXT NOT NULL, device_name TEXT, paired_at TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS request_log (
            id INTEGER PRIMARY KEY, at INTEGER NOT NULL, path TEXT NOT NULL, status INTEGER NOT NULL, count INTEGER
        );
        """

    init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        try database.execute(Self.schema)
    }

    /// Runs `body` in one transaction, under the lock.
    func write<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try database.transaction { try body(database) }
    }

    func read<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    /// Every answer to a data request, for tests and for people trying the pipeline.
    func log(path: String, status: Int, count: Int?) {
        _ = try? write { db in
            try db.prepare("INSERT INTO request_log(at, path, status, count) VALUES (?, ?, ?, ?)")
                .run([.int(Int64(Date().timeIntervalSince1970)), .text(path), .int(Int64(status)), count.map { .int(Int64($0)) } ?? .null])
        }
    }
}
