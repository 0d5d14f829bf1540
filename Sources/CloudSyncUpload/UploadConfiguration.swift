package import CloudSyncModel
package import Foundation

/// How an upload runs. Defaults follow the contracts: batches of 1000, bounded retries.
package struct UploadConfiguration: Sendable {
    package var server: URL
    package var target: UploadTarget = .cloudcare
    package var batchSize = 1000
    /// Batches in flight at once.
    package var concurrency = 1
    package var filter: MetricFilter = .all
    package var dryRun = false
    /// CloudCare: send the types it does not take too (it drops them; they are reported as not taken).
    package var allTypes = false
    /// Sent as `Authorization: Bearer …`; never logged, never in an error.
    package var token: String?
    /// A PEM file of certificate authorities to trust besides the system's (`--cacert`).
    package var caCertificates: String?
    /// One request's deadline, connection included.
    package var requestTimeout: Double = 30
    package var retry = RetryPolicy()

    package init(server: URL) { self.server = server }
}

/// Exponential backoff with full jitter, a cap and a bounded number of attempts. 5xx, 429 and
/// network errors are retried; the `Retry-After` of a 429 or 5xx is honoured, such waits counting
/// against `maximumRetryAfter` in all rather than against the attempts.
package struct RetryPolicy: Sendable {
    package var maximumAttempts = 6
    package var initialDelay = 0.5
    package var maximumDelay = 30.0
    package var maximumRetryAfter = 300.0

    package init() {}

    /// The wait before attempt `attempt + 1` (attempt counts from 1), with full jitter.
    func delay(afterAttempt attempt: Int, retryAfter: Double?) -> Double {
        if let retryAfter { return min(retryAfter, maximumRetryAfter) }
        let ceiling = min(maximumDelay, initialDelay * pow(2, Double(attempt - 1)))
        return Double.random(in: ceiling / 2...ceiling)
    }
}
