import CloudSyncModel
import CloudSyncStore
import Foundation
import ServiceLifecycle

/// The receiver's storage in one SQLite file (`serve --db PATH`, the default). One connection, used
/// under a lock: each method is one short transaction.
final class SQLiteReceiverStorage: ReceiverStorage, @unchecked Sendable {
    private let lock = NSLock()
    private let database: SQLiteDatabase
    let steps: StepsFile

    /// Each entry moves the schema from version `index` to `index + 1` (`PRAGMA user_version`).
    static let migrations: [String] = [
        // 1: one user (the schema before users existed; files made then are at version 0 with these tables).
        """
        CREATE TABLE IF NOT EXISTS cloudcare_metric (
            device_id TEXT NOT NULL, type TEXT NOT NULL, start_date TEXT NOT NULL, end_date TEXT NOT NULL,
            source_app TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL, metadata TEXT NOT NULL,
            user_id TEXT NOT NULL, received_at INTEGER NOT NULL,
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
        """,
        // 2: users (`serve --tokens`). Every row has an owner, the user whose token stored it, and
        // every identity is per owner: one user's uploads are never seen or counted for another.
        // Rows stored before belong to `default`, the user of a single --token-file.
        """
        CREATE TABLE cloudcare_metric_2 (
            owner TEXT NOT NULL,
            device_id TEXT NOT NULL, type TEXT NOT NULL, start_date TEXT NOT NULL, end_date TEXT NOT NULL,
            source_app TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL, metadata TEXT NOT NULL,
            user_id TEXT NOT NULL, received_at INTEGER NOT NULL,
            -- Unlike the real backend's (patient, device, type, endDate), two readings that differ
            -- only in value or start date, or two sources ending a sample in the same second, never collide.
            PRIMARY KEY (owner, device_id, type, start_date, end_date, source_app, value)
        ) WITHOUT ROWID;
        INSERT INTO cloudcare_metric_2 SELECT 'default', * FROM cloudcare_metric;
        DROP TABLE cloudcare_metric;
        ALTER TABLE cloudcare_metric_2 RENAME TO cloudcare_metric;

        CREATE TABLE flo_sample_2 (
            owner TEXT NOT NULL, uuid TEXT NOT NULL, data_type TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL,
            start_date TEXT NOT NULL, end_date TEXT NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (owner, uuid)
        ) WITHOUT ROWID;
        INSERT INTO flo_sample_2 SELECT 'default', * FROM flo_sample;
        DROP TABLE flo_sample;
        ALTER TABLE flo_sample_2 RENAME TO flo_sample;

        CREATE TABLE flo_state_2 (
            owner TEXT PRIMARY KEY, backfill_complete INTEGER NOT NULL, backfill_date TEXT,
            mark_calls INTEGER NOT NULL DEFAULT 0, marked_sample_count INTEGER
        ) WITHOUT ROWID;
        INSERT INTO flo_state_2 SELECT 'default', backfill_complete, backfill_date, mark_calls, marked_sample_count FROM flo_state;
        DROP TABLE flo_state;
        ALTER TABLE flo_state_2 RENAME TO flo_state;

        CREATE TABLE steps_sample_2 (owner TEXT NOT NULL, uuid TEXT NOT NULL, PRIMARY KEY (owner, uuid)) WITHOUT ROWID;
        INSERT INTO steps_sample_2 SELECT 'default', uuid FROM steps_sample;
        DROP TABLE steps_sample;
        ALTER TABLE steps_sample_2 RENAME TO steps_sample;

        ALTER TABLE pairing ADD COLUMN owner TEXT NOT NULL DEFAULT 'default';
        ALTER TABLE request_log ADD COLUMN owner TEXT;
        """,
    ]

    /// Nothing runs beside the file: each call opens no connection of its own.
    var service: (any Service)? { nil }

    /// `path` is the receiver's own file, or (`serve --store`) the person's staging store itself,
    /// so that one person's server keeps one database: there the tables sit beside the store's, their
    /// version in `receiver_schema` (the store's is `PRAGMA user_version`), and each write waits its
    /// turn in the store's waiting room like the store's own writers (`StoreLocks`), never behind a
    /// whole import.
    init(path: String, steps: StepsFile) throws {
        self.steps = steps
        database = try SQLiteDatabase(path: path)
        try database.turnOnWAL()
        try database.execute("PRAGMA synchronous = NORMAL")
        isInStore = try database.hasTable("import_run")
        if isInStore { try database.waitInTheStoreWritersRoom() }
        try migrate()
    }

    /// Whether the file is a staging store (see `init`).
    let isInStore: Bool

    /// Brings the file to the current version, one step per transaction. BEGIN IMMEDIATE takes the
    /// write lock first and the version is read inside it, so instances starting together on one
    /// file migrate once.
    private func migrate() throws {
        if isInStore { try database.transaction { try database.execute("CREATE TABLE IF NOT EXISTS receiver_schema(version INTEGER NOT NULL)") } }
        while true {
            let done = try database.transaction { () -> Bool in
                let version = Int(try database.scalarInt(isInStore ? "SELECT max(version) FROM receiver_schema" : "PRAGMA user_version") ?? 0)
                guard version < Self.migrations.count else { return true }
                try database.execute(Self.migrations[version])
                try database.execute(isInStore ? "DELETE FROM receiver_schema; INSERT INTO receiver_schema VALUES (\(version + 1))"
                                               : "PRAGMA user_version = \(version + 1)")
                return false
            }
            if done { return }
        }
    }

    func floState(owner: String) throws -> FloState {
        try read { db in
            let row = try db.prepare("SELECT backfill_complete, backfill_date FROM flo_state WHERE owner = ?")
            try row.bind([.text(owner)])
            guard try row.step() else { return FloState(backfillComplete: false, backfillDate: nil) }
            return FloState(backfillComplete: row.int64(0) != 0, backfillDate: row.text(1))
        }
    }

    func markFloBackfillComplete(owner: String, date: String, sampleCount: Int) throws {
        try write { db in
            try db.prepare("""
                INSERT INTO flo_state(owner, backfill_complete, backfill_date, mark_calls, marked_sample_count) VALUES (?1, 1, ?2, 1, ?3)
                ON CONFLICT(owner) DO UPDATE SET backfill_complete = 1, backfill_date = ?2, mark_calls = mark_calls + 1,
                    marked_sample_count = ?3
                """).run([.text(owner), .text(date), .int(Int64(sampleCount))])
        }
    }

    func legacySamples(owner: String, in table: LegacyTable, offset: Int, limit: Int) throws -> LegacyChunk {
        try read { db in
            var chunk = LegacyChunk()
            let add = { (sample: Result<HealthMetric, DateProblem>?) in chunk.add(sample) }
            switch table {
            case .cloudCare:
                let rows = try db.prepare("""
                    SELECT type, start_date, end_date, source_app, value, unit, metadata FROM cloudcare_metric WHERE owner = ?
                    ORDER BY device_id, type, start_date, end_date, source_app, value LIMIT ? OFFSET ?
                    """)
                try rows.bind([.text(owner), .int(Int64(limit)), .int(Int64(offset))])
                while try rows.step() {
                    guard let metadata = LegacyTable.decode([String: JSONValue].self, rows.text(6) ?? "") else { add(nil); continue }
                    add(MetricBody(type: rows.text(0) ?? "", startDate: rows.text(1) ?? "", endDate: rows.text(2) ?? "", value: rows.double(4),
                                   unit: rows.text(5) ?? "", sourceApp: rows.text(3) ?? "", metadata: metadata).healthMetric())
                }
            case .flo:
                let rows = try db.prepare("SELECT body FROM flo_sample WHERE owner = ? ORDER BY uuid LIMIT ? OFFSET ?")
                try rows.bind([.text(owner), .int(Int64(limit)), .int(Int64(offset))])
                while try rows.step() { add(LegacyTable.decode(FloSamplesBody.Sample.self, rows.text(0) ?? "")?.healthMetric()) }
            case .steps:
                // The lines were in the owner's file, not in the table: read at once.
                guard offset == 0, let text = try? String(contentsOf: steps.url(for: owner), encoding: .utf8) else { return chunk }
                for line in text.split(separator: "\n") { add(LegacyTable.decode(StepsBody.Sample.self, String(line))?.healthMetric()) }
            }
            return chunk
        }
    }

    func dropLegacyRows(owner: String) throws {
        try write { db in
            for table in LegacyTable.allCases { try db.prepare("DELETE FROM \(table.name) WHERE owner = ?").run([.text(owner)]) }
            let file = steps.url(for: owner).path
            if FileManager.default.fileExists(atPath: file) { try FileManager.default.removeItem(atPath: file) }
        }
    }

    func erase(owner: String) throws -> [String: Int] {
        try write { db in
            var erased: [String: Int] = [:]
            for table in OwnedTables.names {
                try db.prepare("DELETE FROM \(table) WHERE owner = ?").run([.text(owner)])
                erased[table] = db.changes
            }
            // In the transaction: a file that cannot be removed keeps the rows too.
            let file = steps.url(for: owner).path
            if FileManager.default.fileExists(atPath: file) { try FileManager.default.removeItem(atPath: file) }
            return erased
        }
    }

    func storePairing(owner: String, _ pairing: ReceivedPairing) throws -> Int64 {
        try write { db in
            try db.prepare("""
                INSERT INTO pairing(owner, ios_user_id, ios_device_id, android_user_id, device_name, paired_at) VALUES (?, ?, ?, ?, ?, ?)
                """)
                .run([.text(owner), .text(pairing.iosUserId), .text(pairing.iosDeviceId), .text(pairing.androidUserId),
                      pairing.deviceName.map { .text($0) } ?? .null, .text(pairing.pairedAt)])
            return db.lastInsertRowID
        }
    }

    func log(owner: String?, path: String, status: Int, count: Int?) {
        _ = try? write { db in
            try db.prepare("INSERT INTO request_log(at, path, status, count, owner) VALUES (?, ?, ?, ?, ?)")
                .run([.int(Int64(Date().timeIntervalSince1970)), .text(path), .int(Int64(status)), count.map { .int(Int64($0)) } ?? .null,
                      owner.map { .text($0) } ?? .null])
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
