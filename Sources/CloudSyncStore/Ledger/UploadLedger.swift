public import CloudSyncModel
import Foundation

/// The metrics that "pending" names without a target: see `StagingStore.defaultPending`.
public struct DefaultPending: Sendable {
    /// The user's filter narrowed to CloudCare's types.
    public var filter: MetricFilter
    /// The CloudCare server last sent to (nil: none yet, so nothing is acknowledged).
    public var targetID: Int64?
    public var server: String?
}

/// What is pending for one upload: counts and the date range (the envelopes' `dataRange`).
public struct PendingSummary: Sendable {
    public var count: Int
    public var firstStart: Int64?
    public var lastEnd: Int64?
}

/// Streams the metrics a target has not acknowledged yet, in (startDate, id) order, through a
/// connection of its own: acknowledgements are written on the store's connection meanwhile, and
/// WAL gives this reader a stable snapshot.
public final class PendingMetricCursor {
    private let connection: any StoreDatabase
    private let rows: StoredMetricRows

    init(path: String, conditions: MetricConditions) throws {
        connection = try SQLiteDatabase(path: path, mode: .readOnly)
        rows = try StoredMetricRows(connection, conditions: conditions)
    }

    /// Up to `count` next metrics; empty at the end.
    public func next(_ count: Int) throws -> PendingBatch {
        var batch = PendingBatch()
        while batch.count < count, try rows.next({ id, metric in batch.append(id: id, metric) }) {}
        return batch
    }
}

/// The store's upload side: the targets an upload sends to (kind and server), which metrics each
/// acknowledged, the history of runs and batches, and Flō's backfill state; what is pending follows.
public final class UploadLedger: StoreAccess {
    let database: any StoreDatabase
    public let path: String
    public let configuration: StagingStore.Configuration

    init(database: any StoreDatabase, path: String, configuration: StagingStore.Configuration) {
        self.database = database
        self.path = path
        self.configuration = configuration
    }
}

@available(*, unavailable)
extension UploadLedger: Sendable {}

extension UploadLedger {
    /// The id of (target, server, account), made on first use. A target from before accounts were
    /// recorded (no account) is the first account's that uploads to that server after.
    public func uploadTargetID(target: String, server: String, account: String) throws -> Int64 {
        try storeErrors {
            try database.transaction {
                if try existingUploadTargetID(target: target, server: server, account: account) == nil {
                    try database.prepare("INSERT OR IGNORE INTO upload_target(target, server, account) VALUES (?, ?, ?)")
                        .run([.text(target), .text(server), .text(account)])
                } else {
                    try database.prepare("UPDATE upload_target SET account = ? WHERE target = ? AND server = ? AND account IS NULL")
                        .run([.text(account), .text(target), .text(server)])
                }
            }
            return try existingUploadTargetID(target: target, server: server, account: account) ?? 0
        }
    }

    /// The id of (target, server, account) if an upload to it ever started (or of the server's target
    /// from before accounts, which that account would take); nil otherwise. Writes nothing (a dry run
    /// must leave no trace).
    public func existingUploadTargetID(target: String, server: String, account: String) throws -> Int64? {
        try storeErrors {
            try database.scalarInt("""
                SELECT id FROM upload_target WHERE target = ? AND server = ? AND (account = ? OR account IS NULL)
                ORDER BY account IS NULL LIMIT 1
                """, [.text(target), .text(server), .text(account)])
        }
    }

    /// The account of the last upload run to (target, server), with how many metrics it has
    /// acknowledged there: said when an upload goes with another token than the one before.
    public func previousAccount(target: String, server: String) throws -> (account: String, acknowledged: Int)? {
        try storeErrors {
            let rows = try database.prepare("""
                SELECT t.account, (SELECT count(*) FROM upload_ack a WHERE a.target_id = t.id) FROM upload_target t
                WHERE t.target = ? AND t.server = ? AND t.account IS NOT NULL
                ORDER BY (SELECT max(started_at) FROM upload_run r WHERE r.target_id = t.id) DESC NULLS LAST, t.id DESC
                LIMIT 1
                """)
            try rows.bind(1, target)
            try rows.bind(2, server)
            guard try rows.step() else { return nil }
            return (rows.text(0) ?? "", Int(rows.int64(1)))
        }
    }

    /// The server of kind `target` (cloudcare, flo, steps) that last acknowledged a batch; before
    /// any did, the one an upload last ran to (a mistyped URL tried once does not take over from a
    /// server that took the data); nil when no upload to that kind ever started.
    public func lastUsedTarget(_ target: String) throws -> (id: Int64, server: String)? {
        try storeErrors {
            let rows = try database.prepare("""
                SELECT t.id, t.server FROM upload_target t WHERE t.target = ?
                ORDER BY (SELECT max(at) FROM upload_batch b WHERE b.target_id = t.id AND b.success = 1) DESC NULLS LAST,
                         (SELECT max(started_at) FROM upload_run r WHERE r.target_id = t.id) DESC NULLS LAST, t.id
                LIMIT 1
                """)
            try rows.bind(1, target)
            guard try rows.step() else { return nil }
            return (rows.int64(0), rows.text(1) ?? "")
        }
    }

    /// What "pending" means wherever it is said without a target (`status`, `status --json`,
    /// `export --pending`): what `cloudsync upload` to the default target, CloudCare, would send now
    /// to the server it last sent to (or, before any upload, to a new one): each sample once, of the
    /// types CloudCare keeps, not acknowledged by that server. `upload --dry-run` to that server
    /// counts the same.
    public func defaultPending(filter: MetricFilter = .all) throws -> DefaultPending {
        var scoped = filter
        scoped.types = filter.types.map { $0.intersection(CloudCareContract.takenTypes) } ?? CloudCareContract.takenTypes
        let target = try lastUsedTarget("cloudcare")
        return DefaultPending(filter: scoped, targetID: target?.id, server: target?.server)
    }

    /// Forgets an upload target: its acknowledgements, runs, batches and backfill state. Its metrics
    /// become pending for it again. Returns what was forgotten; nil when there is no such target.
    public func forgetTarget(target: String, server: String) throws -> (acknowledged: Int, runs: Int)? {
        try storeErrors {
            // Every account's target on that server.
            let select = try database.prepare("SELECT id FROM upload_target WHERE target = ? AND server = ?")
            try select.bind(1, target)
            try select.bind(2, server)
            var ids: [Int64] = []
            while try select.step() { ids.append(select.int64(0)) }
            guard !ids.isEmpty else { return nil }
            var forgotten = (acknowledged: 0, runs: 0)
            try database.transaction {
                for id in ids {
                    forgotten.acknowledged += Int(try database.scalarInt("SELECT count(*) FROM upload_ack WHERE target_id = ?", [.int(id)]) ?? 0)
                    forgotten.runs += Int(try database.scalarInt("SELECT count(*) FROM upload_run WHERE target_id = ?", [.int(id)]) ?? 0)
                    for statement in ["DELETE FROM upload_ack WHERE target_id = ?",
                                      "DELETE FROM upload_not_taken WHERE run_id IN (SELECT id FROM upload_run WHERE target_id = ?)",
                                      "DELETE FROM upload_batch WHERE target_id = ?", "DELETE FROM upload_run WHERE target_id = ?",
                                      "DELETE FROM backfill_state WHERE target_id = ?", "DELETE FROM upload_target WHERE id = ?"] {
                        try database.prepare(statement).run([.int(id)])
                    }
                }
            }
            return forgotten
        }
    }

    /// The metrics `targetID` has not acknowledged (every metric for nil), counted per type
    /// identifier, after `filter`.
    public func pendingByType(targetID: Int64?, filter: MetricFilter = .all) throws -> [String: Int] {
        try storeErrors {
            var conditions = try self.conditions(filter)
            if let targetID { conditions.add(MetricConditions.notAcknowledged, .int(targetID)) }
            let query = try database.prepare("""
                SELECT t.name, count(*) FROM \(CountedRows.view) m JOIN metric_type t ON t.id = m.type_id \(conditions.whereClause)
                GROUP BY m.type_id, t.name
                """)
            try query.bind(conditions.arguments)
            var counts: [String: Int] = [:]
            while try query.step() { counts[query.text(0) ?? "", default: 0] += Int(query.int64(1)) }
            return counts
        }
    }

    /// How many metrics `targetID` has not acknowledged (every metric for nil), with their date range.
    public func pendingSummary(targetID: Int64?, filter: MetricFilter = .all) throws -> PendingSummary {
        try storeErrors {
            var conditions = try self.conditions(filter)
            if let targetID { conditions.add(MetricConditions.notAcknowledged, .int(targetID)) }
            let query = try database.prepare("""
                SELECT count(*), min(m.start_date), max(m.end_date) FROM \(CountedRows.view) m \(conditions.whereClause)
                """)
            try query.bind(conditions.arguments)
            _ = try query.step()
            return PendingSummary(count: Int(query.int64(0)), firstStart: query.isNull(1) ? nil : query.int64(1),
                                  lastEnd: query.isNull(2) ? nil : query.int64(2))
        }
    }

    public func pendingMetrics(targetID: Int64, filter: MetricFilter = .all) throws -> PendingMetricCursor {
        try storeErrors {
            var conditions = try self.conditions(filter)
            conditions.add(MetricConditions.notAcknowledged, .int(targetID))
            return try PendingMetricCursor(path: path, conditions: conditions)
        }
    }

    /// Starts a row of the upload history for one `cloudsync upload`.
    public func beginUploadRun(targetID: Int64) throws -> Int64 {
        try storeErrors {
            let insert = try database.prepare("INSERT INTO upload_run(target_id, started_at, outcome) VALUES (?, ?, 'running') RETURNING id")
            try insert.bind([.int(targetID), .int(Self.now)])
            defer { insert.reset() }
            _ = try insert.step()
            return insert.int64(0)
        }
    }

    /// Ends an upload run: `ok`, `failed` or `interrupted`, with what it sent.
    public func finishUploadRun(_ runID: Int64, outcome: String, sent: Int, batches: Int, retries: Int, error: String?) throws {
        try storeErrors {
            try database.prepare("""
                UPDATE upload_run SET ended_at = ?, outcome = ?, sent = ?, batches = ?, retries = ?, error = ? WHERE id = ?
                """).run([.int(Self.now), .text(outcome), .int(Int64(sent)), .int(Int64(batches)), .int(Int64(retries)),
                          error.map { .text($0) } ?? .null, .int(runID)])
        }
    }

    /// Marks a batch as acknowledged by the target's server, in the same transaction that writes
    /// its upload-history row: after a crash either both are there or neither is. `notTaken`
    /// counts, per type, what the server acknowledged without keeping: those metrics are not
    /// pending any more (sending them again would change nothing) but stay visible in `status`.
    public func acknowledge(_ batch: PendingBatch, targetID: Int64, runID: Int64, notTaken: [String: Int] = [:]) throws {
        try storeErrors {
            try database.transaction {
                let insert = try database.prepare("INSERT OR IGNORE INTO upload_ack(target_id, metric_id) VALUES (?, ?)")
                for id in batch.ids { try insert.run([.int(targetID), .int(id)]) }
                try recordBatch(targetID: targetID, runID: runID, batch: batch, success: true, error: nil)
                let lost = try database.prepare("""
                    INSERT INTO upload_not_taken(run_id, type, count) VALUES (?, ?, ?)
                    ON CONFLICT(run_id, type) DO UPDATE SET count = count + excluded.count
                    """)
                for (type, count) in notTaken where count > 0 { try lost.run([.int(runID), .text(type), .int(Int64(count))]) }
            }
        }
    }

    /// Writes a failed batch into the upload history.
    public func recordFailedBatch(_ batch: PendingBatch, targetID: Int64, runID: Int64, error: String) throws {
        try storeErrors {
            try database.transaction { try recordBatch(targetID: targetID, runID: runID, batch: batch, success: false, error: error) }
        }
    }

    private func recordBatch(targetID: Int64, runID: Int64, batch: PendingBatch, success: Bool, error: String?) throws {
        try database.prepare("""
            INSERT INTO upload_batch(target_id, run_id, at, count, first_start, last_end, success, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).run([.int(targetID), .int(runID), .int(Self.now), .int(Int64(batch.count)),
                      batch.firstStart.map { .int($0) } ?? .null, batch.lastEnd.map { .int($0) } ?? .null,
                      .int(success ? 1 : 0), error.map { .text($0) } ?? .null])
    }

    /// Records the Flō backfill state of a target.
    public func recordBackfill(targetID: Int64, complete: Bool, backfillDate: String?, recommendedStart: String?) throws {
        try storeErrors {
            try database.prepare("""
                INSERT OR REPLACE INTO backfill_state(target_id, complete, backfill_date, recommended_start, updated_at) VALUES (?, ?, ?, ?, ?)
                """).run([.int(targetID), .int(complete ? 1 : 0), backfillDate.map { .text($0) } ?? .null,
                          recommendedStart.map { .text($0) } ?? .null, .int(Self.now)])
        }
    }

    /// The recommended start date recorded with the target's backfill, if any.
    public func backfillStart(targetID: Int64) throws -> String? {
        try storeErrors { try database.scalarText("SELECT recommended_start FROM backfill_state WHERE target_id = ?", [.int(targetID)]) }
    }

    /// How many metrics `targetID` acknowledged with a startDate at or after `since`.
    public func acknowledgedCount(targetID: Int64, since: Int64?) throws -> Int {
        try storeErrors {
            Int(try database.scalarInt("""
                SELECT count(*) FROM upload_ack a JOIN metric m ON m.id = a.metric_id WHERE a.target_id = ? AND m.start_date >= ?
                """, [.int(targetID), .int(since ?? .min)]) ?? 0)
        }
    }
}
