import CloudSyncModel
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// The receiver's storage in PostgreSQL (`serve --db postgres://USER@HOST:PORT/DB`): several
/// `serve` processes on one database behave as one backend. A pool of connections (PostgresNIO's
/// `PostgresClient`), which runs as a service in the receiver's service group (`service`): started
/// with it, and stopped with it after the HTTP server. Each write is one transaction, acknowledged
/// only once PostgreSQL answered its COMMIT; dedup is the database's, by unique keys and
/// `INSERT … ON CONFLICT DO NOTHING`, so concurrent uploads of the same data store it once.
final class PostgresReceiverStorage: ReceiverStorage {
    private let client: PostgresClient
    private let logger: Logger
    let limits: PostgresLimits

    /// Checks the database and brings its schema up to date (`PostgresStartup`); the pool then
    /// runs in the receiver's service group. Throws a `ReceiverError` that says what is wrong.
    static func open(_ location: PostgresLocation, limits: PostgresLimits = PostgresLimits(),
                     logger: Logger) async throws -> PostgresReceiverStorage {
        try await PostgresStartup.prepare(location, limits: limits, logger: logger)
        return PostgresReceiverStorage(location: location, limits: limits, logger: logger)
    }

    private init(location: PostgresLocation, limits: PostgresLimits, logger: Logger) {
        self.limits = limits
        var configuration = location.clientConfiguration
        configuration.options.connectTimeout = limits.connect
        configuration.options.additionalStartupParameters = limits.sessionSettings
        // Errors only: a request that cannot reach the database says so in its answer (503), and
        // the pool's reconnection attempts during an outage would fill the log.
        var logger = logger
        logger.logLevel = .error
        self.logger = logger
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    var service: (any Service)? { client }

    /// Runs `body` with the pool running, for a caller outside a service group (the tests).
    func whileRunning<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [client] in await client.run() }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    func floState(owner: String) async throws -> FloState {
        try await transaction(as: owner) { connection, logger in
            var state = FloState(backfillComplete: false, backfillDate: nil)
            let rows = try await connection.query("SELECT backfill_complete, backfill_date FROM flo_state WHERE owner = \(owner)", logger: logger)
            for try await (complete, date) in rows.decode((Bool, String?).self) { state = FloState(backfillComplete: complete, backfillDate: date) }
            return state
        }
    }

    func markFloBackfillComplete(owner: String, date: String, sampleCount: Int) async throws {
        try await transaction(as: owner) { connection, logger in
            _ = try await connection.query("""
                INSERT INTO flo_state(owner, backfill_complete, backfill_date, mark_calls, marked_sample_count)
                VALUES (\(owner), true, \(date), 1, \(sampleCount))
                ON CONFLICT (owner) DO UPDATE SET backfill_complete = true, backfill_date = excluded.backfill_date,
                    mark_calls = flo_state.mark_calls + 1, marked_sample_count = excluded.marked_sample_count
                """, logger: logger)
        }
    }

    func legacySamples(owner: String, in table: LegacyTable, offset: Int, limit: Int) async throws -> LegacyChunk {
        try await transaction(as: owner) { connection, logger in
            var chunk = LegacyChunk()
            switch table {
            case .cloudCare:
                let rows = try await connection.query("""
                    SELECT type, start_date, end_date, source_app, value, unit, metadata FROM cloudcare_metric WHERE owner = \(owner)
                    ORDER BY device_id, type, start_date, end_date, source_app, value LIMIT \(limit) OFFSET \(offset)
                    """, logger: logger)
                for try await (type, start, end, source, value, unit, metadata) in rows.decode((String, String, String, String, Double, String, String).self) {
                    chunk.add(LegacyTable.decode([String: JSONValue].self, metadata).map {
                        MetricBody(type: type, startDate: start, endDate: end, value: value, unit: unit, sourceApp: source, metadata: $0).healthMetric()
                    })
                }
            case .flo:
                let rows = try await connection.query("SELECT body FROM flo_sample WHERE owner = \(owner) ORDER BY uuid LIMIT \(limit) OFFSET \(offset)",
                                                      logger: logger)
                for try await body in rows.decode(String.self) { chunk.add(LegacyTable.decode(FloSamplesBody.Sample.self, body)?.healthMetric()) }
            case .steps:
                let rows = try await connection.query("SELECT line FROM steps_sample WHERE owner = \(owner) ORDER BY uuid LIMIT \(limit) OFFSET \(offset)",
                                                      logger: logger)
                for try await line in rows.decode(String?.self) {
                    chunk.add(line.flatMap { LegacyTable.decode(StepsBody.Sample.self, $0) }?.healthMetric())
                }
            }
            return chunk
        }
    }

    func dropLegacyRows(owner: String) async throws {
        try await transaction(as: owner) { connection, logger in
            for table in LegacyTable.allCases {
                // The table's name is one of ours, never the request's.
                _ = try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table.name) WHERE owner = $1", binds: Self.binds(owner)),
                                               logger: logger)
            }
        }
    }

    func erase(owner: String) async throws -> [String: Int] {
        try await transaction(as: owner) { connection, logger in
            var erased: [String: Int] = [:]
            for table in OwnedTables.names {
                // The table's name is one of ours, never the request's.
                var deleted = 0
                let rows = try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE owner = $1 RETURNING 1",
                                                                    binds: Self.binds(owner)), logger: logger)
                for try await _ in rows.decode(Int.self) { deleted += 1 }
                erased[table] = deleted
            }
            return erased
        }
    }

    private static func binds(_ owner: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(owner)
        return binds
    }

    func storePairing(owner: String, _ pairing: ReceivedPairing) async throws -> Int64 {
        try await transaction(as: owner) { connection, logger in
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

    /// One transaction on `owner`'s rows, which returns only once PostgreSQL answered its COMMIT. A
    /// single statement's rows are not enough for a write: PostgreSQL sends them before it commits (at
    /// the protocol's Sync), and a server stopped in between (`pg_ctl stop -m fast`) flushes them with
    /// its goodbye and rolls the statement back, which would acknowledge a batch that was never stored.
    ///
    /// The transaction first says whose rows it works on (`cloudsync.owner`, local to it): row-level
    /// security (migration 3) then lets it see and write that owner's rows only, whatever its
    /// statements say. That is the second check after `AccessMiddleware`'s: a statement that forgot
    /// its `WHERE owner = …` still reads nobody else's rows.
    private func transaction<T: Sendable>(as owner: String,
                                          _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) async throws -> T {
        try await call { connection, logger in
            try await connection.withTransaction(logger: logger) { connection in
                _ = try await connection.query("SELECT set_config('cloudsync.owner', \(owner), true)", logger: logger)
                return try await body(connection, logger)
            }
        }
    }

    /// One call on one pooled connection, within `limits.call` (`DatabaseDeadline`); a database that is
    /// down, restarting or too slow becomes `StorageUnavailable` (503 with Retry-After). Other errors
    /// (a constraint, a file, a bug) stay what they are.
    private func call<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) async throws -> T {
        do {
            return try await DatabaseDeadline.run(within: limits.call) { [client, logger] in
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
}
