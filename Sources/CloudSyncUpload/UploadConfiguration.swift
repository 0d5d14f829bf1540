import CloudSyncExport
import CloudSyncModel
import Foundation

/// How an upload runs. Defaults follow the contracts: batches of 1000, bounded retries.
public struct UploadConfiguration: Sendable {
    public var server: URL
    public var target: UploadTarget = .cloudcare
    public var batchSize = 1000
    /// Batches in flight at once.
    public var concurrency = 1
    public var filter: MetricFilter = .all
    public var dryRun = false
    /// CloudCare: send the types it does not take too (it drops them; they are reported as not taken).
    public var allTypes = false
    /// Sent as `Authorization: Bearer …`; never logged, never in an error.
    public var token: String?
    /// A PEM file of certificate authorities to trust besides the system's (`--cacert`).
    public var caCertificates: String?
    /// One request's deadline, connection included.
    public var requestTimeout: Double = 30
    public var retry = RetryPolicy()

    public init(server: URL) { self.server = server }
}

/// Exponential backoff with full jitter, a cap and a bounded number of attempts. 5xx, 429 and
/// network errors are retried; the `Retry-After` of a 429 or 5xx is honoured, such waits counting
/// against `maximumRetryAfter` in all rather than against the attempts.
public struct RetryPolicy: Sendable {
    public var maximumAttempts = 6
    public var initialDelay = 0.5
    public var maximumDelay = 30.0
    public var maximumRetryAfter = 300.0

    public init() {}

    /// The wait before attempt `attempt + 1` (attempt counts from 1), with full jitter.
    func delay(afterAttempt attempt: Int, retryAfter: Double?) -> Double {
        if let retryAfter { return min(retryAfter, maximumRetryAfter) }
        let ceiling = min(maximumDelay, initialDelay * pow(2, Double(attempt - 1)))
        return Double.random(in: ceiling / 2...ceiling)
    }
}
