import Foundation
import Logging
import PostgresNIO

/// The receiver's PostgreSQL schema and how a database is brought to it.
enum PostgresMigration {
    /// Each entry moves the schema from version `index` to `index + 1`: statements separated by
    /// ";\n" (sent one by one: the extended protocol takes one statement at a time).
    static let steps: [String] = [
        // 1: the tables of SQLite's version 2, each row with its owner. Key columns compare bytes
        // (COLLATE "C"): identities are not prose, and a database created with a language's
        // collation would otherwise compare every key through it (slower, and not the same order
        // as SQLite's).
        """
        CREATE TABLE cloudcare_metric (
            owner TEXT COLLATE "C" NOT NULL,
            device_id TEXT COLLATE "C" NOT NULL, type TEXT COLLATE "C" NOT NULL, start_date TEXT COLLATE "C" NOT NULL,
            end_date TEXT COLLATE "C" NOT NULL, source_app TEXT COLLATE "C" NOT NULL, value DOUBLE PRECISION NOT NULL, unit TEXT NOT NULL, metadata TEXT NOT NULL,
            user_id TEXT NOT NULL, received_at BIGINT NOT NULL,
            -- Unlike the real backend's (patient, device, type, endDate), two readings that differ
            -- only in value or start date, or two sources ending a sample in the same second, never collide.
            PRIMARY KEY (owner, device_id, type, start_date, end_date, source_app, value)
        );
        CREATE TABLE flo_sample (
            owner TEXT COLLATE "C" NOT NULL, uuid TEXT COLLATE "C" NOT NULL, data_type TEXT NOT NULL, value DOUBLE PRECISION NOT NULL,
            unit TEXT NOT NULL, start_date TEXT NOT NULL, end_date TEXT NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (owner, uuid)
        );
        CREATE TABLE flo_state (
            owner TEXT COLLATE "C" PRIMARY KEY, backfill_complete BOOLEAN NOT NULL, backfill_date TEXT,
            mark_calls INTEGER NOT NULL DEFAULT 0, marked_sample_count INTEGER
        );
        CREATE TABLE steps_sample (owner TEXT COLLATE "C" NOT NULL, uuid TEXT COLLATE "C" NOT NULL, PRIMARY KEY (owner, uuid));
        CREATE TABLE pairing (
            id BIGSERIAL PRIMARY KEY, owner TEXT NOT NULL, ios_user_id TEXT NOT NULL, ios_device_id TEXT NOT NULL,
            android_user_id TEXT NOT NULL, device_name TEXT, paired_at TEXT NOT NULL
        );
        CREATE TABLE request_log (
            id BIGSERIAL PRIMARY KEY, at BIGINT NOT NULL, path TEXT NOT NULL, status INTEGER NOT NULL, count INTEGER, owner TEXT
        );
        """,
        // 2: each steps sample's JSON line in its row (an SQLite receiver appends them to a file;
        // version 1 made a file's name of the database's address and answered every POST /steps 500).
        """
        ALTER TABLE steps_sample ADD COLUMN line TEXT;
        """,
        // 3: row-level security, the second check of who reads what (docs/serve.md, "Who reads what").
        // Each of serve's transactions says whose rows it works on (`cloudsync.owner`, set local to
        // it); the policy lets it see and write that owner's rows only. FORCE: serve's role owns the
        // tables, and an owner is otherwise exempt. (A superuser is exempt whatever the table says:
        // serve is meant to run as a role of its own, `createuser cloudsync`.) `request_log` holds no
        // health data and rows without an owner, and has no policy.
        """
        ALTER TABLE cloudcare_metric ENABLE ROW LEVEL SECURITY;
        ALTER TABLE cloudcare_metric FORCE ROW LEVEL SECURITY;
        CREATE POLICY owner_only ON cloudcare_metric USING (owner = current_setting('cloudsync.owner', true)) WITH CHECK (owner = current_setting('cloudsync.owner', true));
        ALTER TABLE flo_sample ENABLE ROW LEVEL SECURITY;
        ALTER TABLE flo_sample FORCE ROW LEVEL SECURITY;
        CREATE POLICY owner_only ON flo_sample USING (owner = current_setting('cloudsync.owner', true)) WITH CHECK (owner = current_setting('cloudsync.owner', true));
        ALTER TABLE flo_state ENABLE ROW LEVEL SECURITY;
        ALTER TABLE flo_state FORCE ROW LEVEL SECURITY;
        CREATE POLICY owner_only ON flo_state USING (owner = current_setting('cloudsync.owner', true)) WITH CHECK (owner = current_setting('cloudsync.owner', true));
        ALTER TABLE steps_sample ENABLE ROW LEVEL SECURITY;
        ALTER TABLE steps_sample FORCE ROW LEVEL SECURITY;
        CREATE POLICY owner_only ON steps_sample USING (owner = current_setting('cloudsync.owner', true)) WITH CHECK (owner = current_setting('cloudsync.owner', true));
        ALTER TABLE pairing ENABLE ROW LEVEL SECURITY;
        ALTER TABLE pairing FORCE ROW LEVEL SECURITY;
        CREATE POLICY owner_only ON pairing USING (owner = current_setting('cloudsync.owner', true)) WITH CHECK (owner = current_setting('cloudsync.owner', true));
        """,
    ]

    /// Taken (per transaction) by the migration: instances starting together migrate once.
    static let lock: Int64 = 0x636C_6F75_6473_796E   // "cloudsyn"

    /// Brings the database to the current version in one transaction, under an advisory lock:
    /// a second instance waits for the first and then finds nothing to do. Each applied step is
    /// recorded in `cloudsync_migration` (with the server process that applied it).
    static func apply(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS cloudsync_migration (
                    version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), backend_pid INTEGER NOT NULL)
                """, logger: logger)
            var version = 0
            for try await applied in try await connection.query("SELECT coalesce(max(version), 0) FROM cloudsync_migration",
                                                                logger: logger).decode(Int.self) {
                version = applied
            }
            guard version <= steps.count else {
                throw StorageError("the database's schema is version \(version), newer than this cloudsync knows (\(steps.count))")
            }
            for step in version..<steps.count {
                for statement in steps[step].components(separatedBy: ";\n") where !statement.allSatisfy(\.isWhitespace) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO cloudsync_migration(version, backend_pid) VALUES (\(step + 1), pg_backend_pid())",
                                           logger: logger)
            }
        }
    }
}
