import NIOHTTP1
import AsyncHTTPClient
import CloudSyncExport
import CloudSyncModel
import CloudSyncStore
import Foundation
import NIOCore

/// What an upload did.
public struct UploadReport: Sendable {
    public var target: UploadTarget
    public var server: String
    /// Metrics pending when the upload started (after filters).
    public var pending = 0
    public var uploaded = 0
    public var batches = 0
    public var retries = 0
    /// CloudCare's own counts from its 201 answers (new and already stored).
    public var serverStored = 0
    public var serverDuplicates = 0
    /// For `flo`: whether this run was a historical backfill and whether it was marked complete.
    public var backfill = false
    public var backfillMarkedComplete = false
    /// For `flo`: the start of the window (the server's recommendedStartDate), and how many
    /// pending metrics start before it and so are not sent.
    public var windowStart: String?
    public var beforeWindow = 0
    /// For a dry run of `flo` with no window recorded: the server decides it, and was not asked.
    public var windowUnknown = false
    /// Pending metrics of types the target does not take, left out (CloudCare), per type.
    public var leftOut: [String: Int] = [:]
    /// Metrics the server acknowledged without keeping them, per type (CloudCare's `total_metrics`).
    public var notTaken: [String: Int] = [:]
    public var seconds = 0.0
    public var dryRun = false
}

/// Sends the store's pending metrics to one target, in `startDate` order, in batches. A batch is
/// marked uploaded (for this target and server) only after the server acknowledged it, in the same
/// transaction that writes its upload-history row; a crash or a lost answer at any moment costs at
/// most a batch sent again, which the servers' deduplication absorbs.
public final class Uploader {
    public struct Progress: Sendable {
        public var done: Int
        public var total: Int
        public var seconds: Double
    }

    private let store: StagingStore
    private let configuration: UploadConfiguration
    public var onProgress: ((Progress) -> Void)?
    /// Checked between batches (SIGINT, SIGTERM).
    public var shouldStop: () -> Bool = { false }

    public init(store: StagingStore, configuration: UploadConfiguration) {
        self.store = store
        self.configuration = configuration
    }

    public func run() async throws -> UploadReport {
        guard let scheme = configuration.server.scheme?.lowercased(), scheme == "http" || scheme == "https",
              configuration.server.host != nil else {
            throw UploadError.invalidServer("--server must be an http:// or https:// URL, got \(configuration.server.absoluteString)")
        }
        let started = Date()
        var report = UploadReport(target: configuration.target, server: configuration.server.absoluteString)
        report.dryRun = configuration.dryRun
        if configuration.dryRun {
            // A dry run leaves no trace: nothing is written to the store and no server is asked.
            _ = try plan(&report, targetID: try existingTargetID(), status: nil)
            report.seconds = Date().timeIntervalSince(started)
            return report
        }
        let client = try UploadClient.make(configuration)
        do {
            try await upload(client, &report)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// `…/api/v1` and `…/api/v1/` are one server.
    private var serverKey: String { configuration.server.absoluteString.trimmingTrailingSlash }

    private func existingTargetID() throws -> Int64? {
        try store.ledger.existingUploadTargetID(target: configuration.target.rawValue, server: serverKey)
    }

    /// Decides what this run sends (the target's types and window) and fills the report's counts.
    /// `status` is Flō's sync-status answer (nil in a dry run: the recorded window is used).
    private func plan(_ report: inout UploadReport, targetID: Int64?, status: [String: Any]?) throws -> (UploadScope, PendingSummary) {
        var windowStart: String?
        if configuration.target == .flo {
            // Flō's window starts at the recommended date: a backfill sends everything from there;
            // later runs send, inside the same window, what this server has not acknowledged yet.
            let recorded = try targetID.flatMap { try store.ledger.backfillStart(targetID: $0) }
            windowStart = (status?["recommendedStartDate"] as? String) ?? recorded
            if windowStart == nil && status == nil { report.windowUnknown = true }
            report.backfill = status?["needsHistoricalSync"] as? Bool == true && windowStart != nil
        }
        let scope = UploadScope(target: configuration.target, userFilter: configuration.filter,
                                windowStart: windowStart, allTypes: configuration.allTypes)
        let summary = try store.ledger.pendingSummary(targetID: targetID, filter: scope.filter)
        report.pending = summary.count
        report.batches = (summary.count + configuration.batchSize - 1) / configuration.batchSize
        report.leftOut = try UploadScope.leftOut(target: configuration.target, store: store, targetID: targetID,
                                                 userFilter: configuration.filter)
        if configuration.allTypes { report.leftOut = [:] }
        if let start = scope.windowStart {
            report.windowStart = start
            var unwindowed = scope.filter
            unwindowed.since = configuration.filter.since
            report.beforeWindow = try store.ledger.pendingSummary(targetID: targetID, filter: unwindowed).count - summary.count
        }
        return (scope, summary)
    }

    private func upload(_ client: HTTPClient, _ report: inout UploadReport) async throws {
        let retries = RetryCounter()
        defer { report.retries = retries.count }
        let transport = HTTPTransport(client: client, configuration: configuration, retries: retries)
        let targetID = try store.ledger.uploadTargetID(target: configuration.target.rawValue, server: serverKey)
        var status: [String: Any]?
        if configuration.target == .flo {
            status = try await transport.send(.GET, "/api/healthkit/sync-status", body: nil, what: "the sync-status request").object ?? [:]
        }
        let (scope, summary) = try plan(&report, targetID: targetID, status: status)
        let backfillStart = report.backfill ? scope.windowStart.flatMap { start in ISODate.seconds(start).map { (iso: start, seconds: $0) } } : nil
        // Nothing to send (and no backfill to mark): no run in the history, no request.
        if summary.count == 0 && backfillStart == nil { return }
        let runID = try store.ledger.beginUploadRun(targetID: targetID)
        var sent = 0, batches = 0
        do {
            try await send(transport, scope: scope, summary: summary, targetID: targetID, runID: runID, report: &report)
            sent = report.uploaded
            batches = report.batches
            if let backfillStart {
                // Only now, after every batch of the backfill succeeded.
                let count = try store.ledger.acknowledgedCount(targetID: targetID, since: backfillStart.seconds)
                let body: [String: Any] = ["sampleCount": count, "startDate": backfillStart.iso,
                                           "endDate": BatchBody.isoMilliseconds(summary.lastEnd ?? Int64(Date().timeIntervalSince1970))]
                let reply = try await transport.send(.POST, "/api/healthkit/mark-backfill-complete",
                                                     body: NIOCore.ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)), what: "mark-backfill-complete")
                try store.ledger.recordBackfill(targetID: targetID, complete: true, backfillDate: reply.object?["backfillDate"] as? String,
                                         recommendedStart: backfillStart.iso)
                report.backfillMarkedComplete = true
            }
        } catch {
            if let backfillStart {
                try? store.ledger.recordBackfill(targetID: targetID, complete: false, backfillDate: nil, recommendedStart: backfillStart.iso)
            }
            let outcome = (error as? UploadError)?.isInterrupted == true ? "interrupted" : "failed"
            try? store.ledger.finishUploadRun(runID, outcome: outcome, sent: report.uploaded, batches: report.batches,
                                       retries: retries.count, error: "\(error)")
            throw error
        }
        try store.ledger.finishUploadRun(runID, outcome: "ok", sent: sent, batches: batches, retries: retries.count, error: nil)
    }

    /// Sends the scope's pending metrics in batches, `concurrency` at a time, acknowledging each.
    private func send(_ transport: HTTPTransport, scope: UploadScope, summary: PendingSummary, targetID: Int64, runID: Int64,
                      report: inout UploadReport) async throws {
        let identity = try store.identity()
        let cursor = try store.ledger.pendingMetrics(targetID: targetID, filter: scope.filter)
        let started = Date()
        report.batches = 0
        try await withThrowingTaskGroup(of: BatchOutcome.self) { group in
            var inFlight = 0
            var exhausted = false
            func startNext() throws {
                let batch = try cursor.next(configuration.batchSize)
                guard !batch.isEmpty else { exhausted = true; return }
                let body = Self.body(configuration.target, batch, identity: identity, range: summary)
                let path = Self.path(configuration.target)
                let target = configuration.target
                let what = "a batch of \(batch.count) metrics (\(UTCDateFormatter.string(batch[0].startDate)) …)"
                group.addTask {
                    do {
                        return .sent(batch, try await transport.send(.POST, path, body: body, what: what,
                                                                     replyOf: target))
                    } catch {
                        return .failed(batch, error)
                    }
                }
                inFlight += 1
            }
            while !exhausted && inFlight < configuration.concurrency { try startNext() }
            while inFlight > 0, let outcome = try await group.next() {
                inFlight -= 1
                switch outcome {
                case .sent(let batch, let reply):
                    let notTaken = Self.notTaken(batch, reply: reply, target: configuration.target)
                    try store.ledger.acknowledge(batch, targetID: targetID, runID: runID, notTaken: notTaken)
                    report.uploaded += batch.count
                    report.batches += 1
                    for (type, count) in notTaken { report.notTaken[type, default: 0] += count }
                    if let object = reply.object {
                        report.serverStored += object["stored_count"] as? Int ?? object["inserted"] as? Int ?? object["saved"] as? Int ?? 0
                        report.serverDuplicates += object["duplicate_count"] as? Int ?? object["duplicates"] as? Int ?? 0
                    }
                    onProgress?(Progress(done: report.uploaded, total: summary.count, seconds: Date().timeIntervalSince(started)))
                case .failed(let batch, let error):
                    group.cancelAll()
                    try? store.ledger.recordFailedBatch(batch, targetID: targetID, runID: runID, error: "\(error)")
                    throw error
                }
                if shouldStop() {
                    group.cancelAll()
                    throw UploadError.interrupted
                }
                while !exhausted && inFlight < configuration.concurrency { try startNext() }
            }
        }
    }

    /// What CloudCare acknowledged without keeping: its `total_metrics` counts only the metrics
    /// of types it knows. The shortfall is put on the batch's types that CloudCare does not take
    /// when they account for it exactly; otherwise it is recorded as not said by the server.
    static func notTaken(_ batch: [PendingMetric], reply: HTTPTransport.Reply, target: UploadTarget) -> [String: Int] {
        guard target == .cloudcare, let total = reply.object?["total_metrics"] as? Int, total < batch.count,
              let accepted = target.acceptedTypes else { return [:] }
        var byType: [String: Int] = [:]
        for metric in batch where !accepted.contains(MetricFilter.shortName(metric.type)) { byType[metric.type, default: 0] += 1 }
        let missing = batch.count - total
        return byType.values.reduce(0, +) == missing ? byType : [Self.unexplained: missing]
    }

    /// The key of `notTaken` for a shortfall the server did not explain.
    public static let unexplained = "(types the server did not say)"

    private enum BatchOutcome: Sendable {
        case sent([PendingMetric], HTTPTransport.Reply)
        case failed([PendingMetric], any Error)
    }

    static func path(_ target: UploadTarget) -> String {
        switch target {
        case .cloudcare: return "/wearables/import/apple-health"
        case .flo: return "/api/healthkit/samples"
        case .steps: return "/steps"
        }
    }

    static func body(_ target: UploadTarget, _ batch: [PendingMetric], identity: CloudCareIdentity, range: PendingSummary) -> NIOCore.ByteBuffer {
        switch target {
        case .cloudcare: return BatchBody.cloudCare(batch, identity: identity, range: range)
        case .flo: return BatchBody.flo(batch)
        case .steps: return BatchBody.steps(batch)
        }
    }
}
