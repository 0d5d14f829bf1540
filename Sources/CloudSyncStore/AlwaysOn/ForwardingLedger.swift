import CloudSyncModel
import Foundation

/// What `serve --store --upload-to` last did and will do for its target, kept in the store so that
/// `status` (another process) and `GET /health` say it: the last success, the last error, when the
/// next try is, what is pending.
public struct ForwardingStatus: Sendable, Codable, Equatable {
    public var target: String
    public var server: String
    public var everySeconds: Int
    public var lastTry: String?
    public var lastSuccess: String?
    /// Metrics the last successful forward sent.
    public var lastSent: Int
    public var lastError: String?
    public var lastErrorAt: String?
    /// Tries that failed in a row (the backoff grows with them).
    public var failures: Int
    public var nextTry: String?
    /// Pending for this target at the last try.
    public var pending: Int?

    public init(target: String, server: String, everySeconds: Int, lastTry: String? = nil, lastSuccess: String? = nil, lastSent: Int = 0,
                lastError: String? = nil, lastErrorAt: String? = nil, failures: Int = 0, nextTry: String? = nil, pending: Int? = nil) {
        self.target = target
        self.server = server
        self.everySeconds = everySeconds
        self.lastTry = lastTry
        self.lastSuccess = lastSuccess
        self.lastSent = lastSent
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.failures = failures
        self.nextTry = nextTry
        self.pending = pending
    }
}

/// One forward's outcome, as the forwarding records it (instants in seconds since 1970).
package struct ForwardingRecord: Sendable {
    package var everySeconds: Int
    package var triedAt: Int64
    package var succeeded: Bool
    package var sent: Int
    package var error: String?
    package var failures: Int
    package var nextTryAt: Int64
    package var pending: Int?

    package init(everySeconds: Int, triedAt: Int64, succeeded: Bool, sent: Int, error: String?, failures: Int, nextTryAt: Int64, pending: Int?) {
        self.everySeconds = everySeconds
        self.triedAt = triedAt
        self.succeeded = succeeded
        self.sent = sent
        self.error = error
        self.failures = failures
        self.nextTryAt = nextTryAt
        self.pending = pending
    }
}

extension StagingStore {
    /// Records a forward's outcome for `targetID` (one short write).
    package func recordForwarding(targetID: Int64, _ record: ForwardingRecord) throws {
        try storeErrors {
            try database.prepare("""
                INSERT INTO forwarding(target_id, every_seconds, last_try_at, last_success_at, last_sent, last_error, last_error_at,
                                       failures, next_try_at, pending)
                VALUES (?1, ?2, ?3, CASE WHEN ?4 THEN ?3 END, ?5, ?6, CASE WHEN ?6 IS NOT NULL THEN ?3 END, ?7, ?8, ?9)
                ON CONFLICT(target_id) DO UPDATE SET every_seconds = excluded.every_seconds, last_try_at = excluded.last_try_at,
                    last_success_at = coalesce(excluded.last_success_at, last_success_at),
                    last_sent = CASE WHEN ?4 THEN excluded.last_sent ELSE last_sent END,
                    last_error = CASE WHEN ?4 THEN last_error ELSE excluded.last_error END,
                    last_error_at = CASE WHEN ?4 THEN last_error_at ELSE excluded.last_error_at END,
                    failures = excluded.failures, next_try_at = excluded.next_try_at, pending = excluded.pending
                """).run([.int(targetID), .int(Int64(record.everySeconds)), .int(record.triedAt), .int(record.succeeded ? 1 : 0),
                          .int(Int64(record.sent)), record.error.map { .text($0) } ?? .null, .int(Int64(record.failures)),
                          .int(record.nextTryAt), record.pending.map { .int(Int64($0)) } ?? .null])
        }
    }

    /// Every target that `serve` forwards (or forwarded) to.
    package func forwarding() throws -> [ForwardingStatus] {
        try storeErrors {
            let rows = try database.prepare("""
                SELECT t.target, t.server, f.every_seconds, f.last_try_at, f.last_success_at, f.last_sent, f.last_error, f.last_error_at,
                       f.failures, f.next_try_at, f.pending
                FROM forwarding f JOIN upload_target t ON t.id = f.target_id ORDER BY t.id
                """)
            var found: [ForwardingStatus] = []
            let instant = { (column: Int32) -> String? in rows.isNull(column) ? nil : UTCDateFormatter.string(rows.int64(column)) }
            while try rows.step() {
                found.append(ForwardingStatus(target: rows.text(0) ?? "", server: rows.text(1) ?? "", everySeconds: Int(rows.int64(2)),
                                              lastTry: instant(3), lastSuccess: instant(4), lastSent: Int(rows.int64(5)),
                                              lastError: rows.text(6), lastErrorAt: instant(7), failures: Int(rows.int64(8)),
                                              nextTry: instant(9), pending: rows.isNull(10) ? nil : Int(rows.int64(10))))
            }
            return found
        }
    }
}
