import CloudSyncStore
import Foundation

/// The receiver's storage in one SQLite file (`serve --db PATH`, the default). One connection, used
/// under a lock: each method is one short transaction.
final class SQLiteReceiverStorage: ReceiverStorage, @unchecked Sendable {
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

    func storeCloudCare(userId: String, deviceId: String, metrics: [ReceivedMetric]) throws -> Int {
        try write { db in
            let insert = try db.prepare("""
                INSERT OR IGNORE INTO cloudcare_metric(device_id, type, start_date, end_date, source_app, value, unit, metadata, user_id, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let now = Int64(Date().timeIntervalSince1970)
            var stored = 0
            for metric in metrics {
                try insert.run([.text(deviceId), .text(metric.type), .text(metric.startDate), .text(metric.endDate),
                                .text(metric.sourceApp), .double(metric.value), .text(metric.unit), .text(metric.metadata),
                                .text(userId), .int(now)])
                stored += db.changes
            }
            return stored
        }
    }

    func floState() throws -> FloState {
        try read { db in
            let row = try db.prepare("SELECT backfill_complete, backfill_date FROM flo_state WHERE id = 1")
            _ = try row.step()
            return FloState(backfillComplete: row.int64(0) != 0, backfillDate: row.text(1))
        }
    }

    func markFloBackfillComplete(date: String, sampleCount: Int) throws {
        try write { db in
            try db.prepare("""
                UPDATE flo_state SET backfill_complete = 1, backfill_date = ?, mark_calls = mark_calls + 1,
                    marked_sample_count = ? WHERE id = 1
                """).run([.text(date), .int(Int64(sampleCount))])
        }
    }

    func storeFloSamples(_ samples: [ReceivedFloSample]) throws -> Int {
        try write { db in
            let insert = try db.prepare("""
                INSERT OR IGNORE INTO flo_sample(uuid, data_type, value, unit, start_date, end_date, body) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            var inserted = 0
            for sample in samples {
                try insert.run([.text(sample.uuid), .text(sample.dataType), .double(sample.value), .text(sample.unit),
                                .text(sample.startDate), .text(sample.endDate), .text(sample.body)])
                inserted += db.changes
            }
            return inserted
        }
    }

    func stepsCount() throws -> Int {
        Int(try read { try $0.scalarInt("SELECT count(*) FROM steps_sample") } ?? 0)
    }

    func deleteSteps() throws {
        try write { try $0.execute("DELETE FROM steps_sample") }
    }

    func storeSteps(_ samples: [ReceivedStepsSample], appendingTo file: URL) throws -> Int {
        try write { db in
            let insert = try db.prepare("INSERT OR IGNORE INTO steps_sample(uuid) VALUES (?)")
            var lines = Data()
            var fresh = 0
            for sample in samples {
                try insert.run([.text(sample.uuid)])
                guard db.changes > 0 else { continue }
                fresh += 1
                lines.append(Data(sample.line.utf8))
                lines.append(UInt8(ascii: "\n"))
            }
            if !FileManager.default.fileExists(atPath: file.path) { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: lines)
            return fresh
        }
    }

    func storePairing(_ pairing: ReceivedPairing) throws -> Int64 {
        try write { db in
            try db.prepare("INSERT INTO pairing(ios_user_id, ios_device_id, android_user_id, device_name, paired_at) VALUES (?, ?, ?, ?, ?)")
                .run([.text(pairing.iosUserId), .text(pairing.iosDeviceId), .text(pairing.androidUserId),
                      pairing.deviceName.map { .text($0) } ?? .null, .text(pairing.pairedAt)])
            return db.lastInsertRowID
        }
    }

    func log(path: String, status: Int, count: Int?) {
        _ = try? write { db in
            try db.prepare("INSERT INTO request_log(at, path, status, count) VALUES (?, ?, ?, ?)")
                .run([.int(Int64(Date().timeIntervalSince1970)), .text(path), .int(Int64(status)), count.map { .int(Int64($0)) } ?? .null])
        }
    }

    /// Runs `body` in one transaction, under the lock.
    private func write<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try database.transaction { try body(database) }
    }

    private func read<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }
}
