import Foundation
import Logging
import PostgresNIO

/// The receiver's storage in PostgreSQL (`serve --db postgres://USER@HOST:PORT/DB`): several
/// `serve` processes on one database behave as one backend. A pool of connections (PostgresNIO's
/// `PostgresClient`). Each write is one transaction, acknowledged only once PostgreSQL answered its
/// COMMIT; dedup is the database's, by unique keys and `INSERT … ON CONFLICT DO NOTHING`, so
/// concurrent uploads of the same data store it once.
final class PostgresReceiverStorage: ReceiverStorage {
    private let client: PostgresClient
    private let running: Task<Void, Never>
    private let logger: Logger

    /// Each entry moves the schema from version `index` to `index + 1`: statements separated by
    /// ";\n" (sent one by one: the extended protocol takes one statement at a time).
    static let migrations: [String] = [
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
    ]

    /// Taken (per transaction) by the migration: instances starting together migrate once.
    static let migrationLock: Int64 = 0x636C_6F75_6473_796E   // "cloudsyn"

    init(location: PostgresLocation, logger: Logger) async throws {
        var configuration = location.configuration
        // A request waits at most this long for the database; then the receiver answers 503.
        configuration.options.connectTimeout = .seconds(5)
        // PostgresNIO warns when a query comes before `run()` has begun, which the first may:
        // errors only (a request that cannot reach the database says so in its answer, 503).
        var logger = logger
        logger.logLevel = .error
        self.logger = logger
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let client = self.client
        running = Task { await client.run() }
        do {
            try await migrate()
        } catch {
            running.cancel()
            throw error
        }
    }

    deinit { running.cancel() }

    /// Brings the database to the current version in one transaction, under an advisory lock:
    /// a second instance waits for the first and then finds nothing to do. Each applied step is
    /// recorded in `cloudsync_migration` (with the server process that applied it).
    private func migrate() async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS cloudsync_migration (
                    version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), backend_pid INTEGER NOT NULL)
                """, logger: logger)
            var version = 0
            for try await (applied) in try await connection.query("SELECT coalesce(max(version), 0) FROM cloudsync_migration",
                                                                  logger: logger).decode(Int.self) {
                version = applied
            }
            guard version <= Self.migrations.count else {
                throw StorageError("the database's schema is version \(version), newer than this cloudsync knows (\(Self.migrations.count))")
            }
            for step in version..<Self.migrations.count {
                for statement in Self.migrations[step].components(separatedBy: ";\n") where !statement.allSatisfy(\.isWhitespace) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO cloudsync_migration(version, backend_pid) VALUES (\(step + 1), pg_backend_pid())",
                                           logger: logger)
            }
        }
    }

    /// How long one call may wait for the database (a free connection included) before the
    /// request is answered 503: long enough for a busy pool, short enough that an uploader's
    /// request (30 s) never times out first.
    static let deadline: Duration = .seconds(5)

    func storeCloudCare(owner: String, userId: String, deviceId: String, metrics: [ReceivedMetric]) async throws -> Int {
        guard !metrics.isEmpty else { return 0 }
        let now = Int64(Date().timeIntervalSince1970)
        // One statement per envelope: the metrics as arrays, unnested into rows.
        return try await write { connection, logger in
            try await Self.count(connection.query("""
                WITH stored AS (
                    INSERT INTO cloudcare_metric(owner, device_id, type, start_date, end_date, source_app, value, unit, metadata,
                                                 user_id, received_at)
                    SELECT \(owner), \(deviceId), m.type, m.start_date, m.end_date, m.source_app, m.value, m.unit, m.metadata,
                           \(userId), \(now)
                    FROM unnest(\(metrics.map(\.type))::text[], \(metrics.map(\.startDate))::text[], \(metrics.map(\.endDate))::text[],
                                \(metrics.map(\.sourceApp))::text[], \(metrics.map(\.value))::float8[], \(metrics.map(\.unit))::text[],
                                \(metrics.map(\.metadata))::text[])
                         AS m(type, start_date, end_date, source_app, value, unit, metadata)
                    ON CONFLICT DO NOTHING RETURNING 1)
                SELECT count(*) FROM stored
                """, logger: logger))
        }
    }

    func cloudCareSummary(owner: String) async throws -> CloudCareSummary {
        try await call { connection, logger in
            var summary = CloudCareSummary(metrics: 0, byType: [:])
            let rows = try await connection.query("""
                SELECT type, count(*), min(start_date), max(end_date) FROM cloudcare_metric WHERE owner = \(owner) GROUP BY type
                """, logger: logger)
            for try await (type, count, first, last) in rows.decode((String, Int, String, String).self) {
                summary.byType[type] = count
                summary.metrics += count
                if summary.first.map({ first < $0 }) ?? true { summary.first = first }
                if summary.last.map({ last > $0 }) ?? true { summary.last = last }
            }
            return summary
        }
    }

    func floState(owner: String) async throws -> FloState {
        try await call { connection, logger in
            var state = FloState(backfillComplete: false, backfillDate: nil)
            let rows = try await connection.query("SELECT backfill_complete, backfill_date FROM flo_state WHERE owner = \(owner)", logger: logger)
            for try await (complete, date) in rows.decode((Bool, String?).self) { state = FloState(backfillComplete: complete, backfillDate: date) }
            return state
        }
    }

    func markFloBackfillComplete(owner: String, date: String, sampleCount: Int) async throws {
        try await write { connection, logger in
            _ = try await connection.query("""
                INSERT INTO flo_state(owner, backfill_complete, backfill_date, mark_calls, marked_sample_count)
                VALUES (\(owner), true, \(date), 1, \(sampleCount))
                ON CONFLICT (owner) DO UPDATE SET backfill_complete = true, backfill_date = excluded.backfill_date,
                    mark_calls = flo_state.mark_calls + 1, marked_sample_count = excluded.marked_sample_count
                """, logger: logger)
        }
    }

    func storeFloSamples(owner: String, _ samples: [ReceivedFloSample]) async throws -> Int {
        guard !samples.isEmpty else { return 0 }
        return try await write { connection, logger in
            try await Self.count(connection.query("""
                WITH stored AS (
                    INSERT INTO flo_sample(owner, uuid, data_type, value, unit, start_date, end_date, body)
                    SELECT \(owner), s.uuid, s.data_type, s.value, s.unit, s.start_date, s.end_date, s.body
                    FROM unnest(\(samples.map(\.uuid))::text[], \(samples.map(\.dataType))::text[], \(samples.map(\.value))::float8[],
                                \(samples.map(\.unit))::text[], \(samples.map(\.startDate))::text[], \(samples.map(\.endDate))::text[],
                                \(samples.map(\.body))::text[])
                         AS s(uuid, data_type, value, unit, start_date, end_date, body)
                    ON CONFLICT DO NOTHING RETURNING 1)
                SELECT count(*) FROM stored
                """, logger: logger))
        }
    }

    func stepsCount(owner: String) async throws -> Int {
        try await call { connection, logger in
            try await Self.count(connection.query("SELECT count(*) FROM steps_sample WHERE owner = \(owner)", logger: logger))
        }
    }

    func deleteSteps(owner: String) async throws {
        try await write { connection, logger in
            _ = try await connection.query("DELETE FROM steps_sample WHERE owner = \(owner)", logger: logger)
        }
    }

    func storeSteps(owner: String, _ samples: [ReceivedStepsSample], appendingTo file: URL) async throws -> Int {
        let lines = Dictionary(samples.map { ($0.uuid, $0.line) }, uniquingKeysWith: { first, _ in first })
        return try await write { connection, logger in
            var fresh: [String] = []
            let rows = try await connection.query("""
                INSERT INTO steps_sample(owner, uuid) SELECT \(owner), u FROM unnest(\(samples.map(\.uuid))::text[]) AS u
                ON CONFLICT DO NOTHING RETURNING uuid
                """, logger: logger)
            for try await uuid in rows.decode(String.self) { fresh.append(uuid) }
            // In the transaction: if the file cannot be written, none is marked as stored.
            try StepsFile.append(fresh.map { lines[$0] ?? "" }, to: file)
            return fresh.count
        }
    }

    func storePairing(owner: String, _ pairing: ReceivedPairing) async throws -> Int64 {
        try await write { connection, logger in
            var id: Int64?
            let rows = try await connection.query("""
                INSERT INTO pairing(owner, ios_user_id, ios_device_id, android_user_id, device_name, paired_at)
                VALUES (\(owner), \(pairing.iosUserId), \(pairing.iosDeviceId), \(pairing.androidUserId), \(pairing.deviceName), \(pairing.pairedAt))
                RETURNING id
                """, logger: logger)
            for try await stored in rows.decode(Int64.self) { id = stored }
            guard let id else { throw StorageError("the database stored the pairing without giving its id") }
            return id
        }
    }

    func log(owner: String?, path: String, status: Int, count: Int?) async {
        // One statement on its own (no transaction to wait for): a row of the log acknowledges nothing.
        _ = try? await call { connection, logger in
            _ = try await connection.query("""
                INSERT INTO request_log(at, path, status, count, owner) VALUES (\(Int64(Date().timeIntervalSince1970)), \(path), \(status), \(count), \(owner))
                """, logger: logger)
        }
    }

    /// A write: one transaction, which returns only once PostgreSQL answered its COMMIT. A single
    /// statement's rows are not enough: PostgreSQL sends them before it commits (at the protocol's
    /// Sync), and a server stopped in between (`pg_ctl stop -m fast`) flushes them with its goodbye
    /// and rolls the statement back, which would acknowledge a batch that was never stored.
    private func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) async throws -> T {
        try await call { connection, logger in
            try await connection.withTransaction(logger: logger) { connection in try await body(connection, logger) }
        }
    }

    /// One call on one pooled connection, within `deadline` (`DatabaseDeadline`); a database that is
    /// down, restarting or too slow becomes `StorageUnavailable` (503 with Retry-After). Other errors
    /// (a constraint, a file, a bug) stay what they are.
    private func call<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) async throws -> T {
        do {
            return try await DatabaseDeadline.run(within: Self.deadline) { [client, logger] in
                var leased = false
                do {
                    return try await client.withConnection { connection in
                        leased = true
                        return try await body(connection, logger)
                    }
                } catch where !leased {
                    throw PostgresFailure.NoConnection(underlying: error)
                }
            }
        } catch {
            if let reason = PostgresFailure.unavailableReason(error) { throw StorageUnavailable(reason: reason) }
            throw PostgresFailure.unwrapped(error)
        }
    }

    /// The single count a statement answers (every row read: the statement has then completed).
    private static func count(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await value in rows.decode(Int.self) { count = value }
        return count
    }
}

/// Where `serve --db` finds PostgreSQL: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (or
/// `postgresql://`), with `?host=/dir` for a Unix socket directory (libpq's spelling) and
/// `?sslmode=disable|prefer|require`.
struct PostgresLocation: Sendable, CustomStringConvertible {
    var configuration: PostgresClient.Configuration
    /// The URL without its password, for messages.
    var description: String
    /// The server's socket, for a `?host=/dir` address.
    var socketPath: String?

    static func isPostgres(_ text: String) -> Bool { text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") }

    init(_ text: String) throws {
        guard Self.isPostgres(text), let url = URLComponents(string: text) else {
            throw StorageError("'\(text)' is not a postgres://USER@HOST:PORT/DATABASE address")
        }
        guard let user = url.user, !user.isEmpty else { throw StorageError("\(text): the address names no user (postgres://USER@HOST/DB)") }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw StorageError("\(text): the address names no database (postgres://USER@HOST/DB)") }
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let port = url.port ?? 5432
        if let directory = query["host"], directory.hasPrefix("/") {
            socketPath = "\(directory)/.s.PGSQL.\(port)"
            configuration = .init(unixSocketPath: "\(directory)/.s.PGSQL.\(port)", username: user, password: url.password, database: database)
        } else {
            guard let host = url.host, !host.isEmpty else { throw StorageError("\(text): the address names no host") }
            let tls: PostgresClient.Configuration.TLS
            switch query["sslmode"] ?? "prefer" {
            case "disable": tls = .disable
            case "prefer": tls = .prefer(.makeClientConfiguration())
            case "require": tls = .require(.makeClientConfiguration())
            case let mode: throw StorageError("\(text): sslmode '\(mode)' is not disable, prefer or require")
            }
            configuration = .init(host: host, port: port, username: user, password: url.password, database: database, tls: tls)
        }
        var shown = url
        if shown.password != nil { shown.password = "…" }
        description = shown.string ?? text
    }
}

/// A storage problem in words (a bad address, a schema from a newer cloudsync).
struct StorageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
