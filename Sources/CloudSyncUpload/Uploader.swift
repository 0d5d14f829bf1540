import NIOHTTP1
import AsyncHTTPClient
import CloudSyncModel
package import CloudSyncStore
import Foundation
import NIOCore

/// What an upload did.
package struct UploadReport: Sendable {
    package var target: UploadTarget
    package var server: String
    /// Metrics pending when the upload started (after filters).
    package var pending = 0
    package var uploaded = 0
    package var batches = 0
    package var retries = 0
    /// CloudCare's own counts from its 201 answers (new and already stored).
    package var serverStored = 0
    package var serverDuplicates = 0
    /// For `flo`: whether this run was a historical backfill and whether it was marked complete.
    package var backfill = false
    package var backfillMarkedComplete = false
    /// For `flo`: the start of the window (the server's recommendedStartDate), and how many
    /// pending metrics start before it and so are not sent.
    package var windowStart: String?
    package var beforeWindow = 0
    /// For a dry run of `flo` with no window recorded: the server decides it, and was not asked.
    package var windowUnknown = false
    /// Pending metrics of types the target does not take, left out (CloudCare), per type.
    package var leftOut: [String: Int] = [:]
    /// Metrics the server acknowledged without keeping them, per type (CloudCare's `total_metrics`).
    package var notTaken: [String: Int] = [:]
    package var seconds = 0.0
    package var dryRun = false
    /// The account (`UploadAccount`) of the upload before to this server, when this run's token opens
    /// another: what that one acknowledged does not count for this one.
    package var previousAccount: OtherAccount?
    package var account = ""

    package struct OtherAccount: Sendable {
        package var name: String
        package var acknowledged: Int
    }
}

/// Sends the store's pending metrics to one target, in `startDate` order, in batches. A batch is
/// marked uploaded (for this target and server) only after the server acknowledged it, in the same
/// transaction that writes its upload-history row; a crash or a lost answer at any moment costs at
/// most a batch sent again, which the servers' deduplication absorbs.
package final class Uploader {
    package struct Progress: Sendable {
        package var done: Int
        package var total: Int
        package var seconds: Double
    }

    private let store: StagingStore
    private let configuration: UploadConfiguration
    package var onProgress: ((Progress) -> Void)?
    /// Checked between batches, and polled while a request is in flight or a retry waits (SIGINT, SIGTERM).
    package var shouldStop: @Sendable () -> Bool = { false }

    package init(store: StagingStore, configuration: UploadConfiguration) {
        self.store = store
        self.configuration = configuration
    }

    nonisolated(nonsending) package func run() async throws -> UploadReport {
        guard let scheme = configuration.server.scheme?.lowercased(), scheme == "http" || scheme == "https",
              configuration.server.host != nil else {
            throw UploadError.invalidServer("--server must be an http:// or https:// URL, got \(configuration.server.absoluteString)")
        }
        let started = Date()
        var report = UploadReport(target: configuration.target, server: configuration.server.absoluteString)
        report.dryRun = configuration.dryRun
        report.account = account
        if configuration.dryRun {
            // A dry run leaves no trace: nothing is written to the store and no server is asked.
            let targetID = try existingTargetID()
            let window = try await configuration.target.contract.window(recorded: try recordedWindow(targetID), transport: nil)
            _ = try plan(&report, contract: configuration.target.contract, targetID: targetID, window: window)
            report.seconds = Date().timeIntervalSince(started)
            return report
        }
        let client = try UploadClient.make(configuration)
        do {
            try await upload(client, &report, contract: configuration.target.contract)
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
    /// The account the token opens on the server (`UploadAccount`).
    private var account: String { UploadAccount.name(token: configuration.token) }

    /// The dry run's target: the token's account, or without a token the account of the upload
    /// before to that server (what the next upload there would send, as `status` counts it).
    private func existingTargetID() throws -> Int64? {
        var account = self.account
        if configuration.token == nil, let previous = try store.ledger.previousAccount(target: configuration.target.rawValue, server: serverKey) {
            account = previous.account
        }
        return try store.ledger.existingUploadTargetID(target: configuration.target.rawValue, server: serverKey, account: account)
    }

    /// The window an earlier upload to this target and server recorded (Flō's backfill start).
    private func recordedWindow(_ targetID: Int64?) throws -> String? {
        try targetID.flatMap { try store.ledger.backfillStart(targetID: $0) }
    }

    /// Decides what this run sends (the contract's types and window) and fills the report's counts.
    private func plan(_ report: inout UploadReport, contract: any UploadContract.Type, targetID: Int64?,
                      window: UploadWindow) throws -> (UploadScope, PendingSummary) {
        report.windowUnknown = window.unknown
        report.backfill = window.isBackfill
        let scope = UploadScope(contract: contract, userFilter: configuration.filter,
                                windowStart: window.start, allTypes: configuration.allTypes)
        let summary = try store.ledger.pendingSummary(targetID: targetID, filter: scope.filter)
        report.pending = summary.count
        report.batches = (summary.count + configuration.batchSize - 1) / configuration.batchSize
        report.leftOut = configuration.allTypes ? [:]
            : try UploadScope.leftOut(contract: contract, store: store, targetID: targetID, userFilter: configuration.filter)
        if let start = scope.windowStart {
            report.windowStart = start
            var unwindowed = scope.filter
            unwindowed.since = configuration.filter.since
            report.beforeWindow = try store.ledger.pendingSummary(targetID: targetID, filter: unwindowed).count - summary.count
        }
        return (scope, summary)
    }

    nonisolated(nonsending) private func upload<Contract: UploadContract>(_ client: HTTPClient, _ report: inout UploadReport,
                                                  contract: Contract.Type) async throws {
        let retries = RetryCounter()
        defer { report.retries = retries.count }
        var transport = HTTPTransport(client: client, configuration: configuration, contract: contract, retries: retries)
        transport.shouldStop = shouldStop
        if let previous = try store.ledger.previousAccount(target: configuration.target.rawValue, server: serverKey),
           previous.account != account {
            report.previousAccount = UploadReport.OtherAccount(name: previous.account, acknowledged: previous.acknowledged)
        }
        let targetID = try store.ledger.uploadTargetID(target: configuration.target.rawValue, server: serverKey, account: account)
        // One upload per target at a time, across processes: two would send the same batches.
        let turn = try store.takeUploadTurn(targetID: targetID)
        defer { turn.end() }
        let window = try await contract.window(recorded: try recordedWindow(targetID), transport: transport)
        let (scope, summary) = try plan(&report, contract: contract, targetID: targetID, window: window)
        let backfillStart = window.isBackfill ? scope.windowStart.flatMap { start in ExportDateParser.isoEpochSeconds(start).map { (iso: start, seconds: $0) } } : nil
        // Nothing to send (and no backfill to mark): no run in the history, no request.
        if summary.count == 0 && backfillStart == nil { return }
        let runID = try store.ledger.beginUploadRun(targetID: targetID)
        var sent = 0, batches = 0
        do {
            try await send(transport, contract: contract, scope: scope, summary: summary, targetID: targetID, runID: runID, report: &report)
            sent = report.uploaded
            batches = report.batches
            if let backfillStart {
                let acknowledged = try store.ledger.acknowledgedCount(targetID: targetID, since: backfillStart.seconds)
                let backfillDate = try await contract.afterBatches(window, sent: SentSummary(acknowledged: acknowledged, lastEnd: summary.lastEnd),
                                                                   transport: transport)
                try store.ledger.recordBackfill(targetID: targetID, complete: true, backfillDate: backfillDate,
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
    nonisolated(nonsending) private func send<Contract: UploadContract>(_ transport: HTTPTransport, contract: Contract.Type, scope: UploadScope,
                                                summary: PendingSummary, targetID: Int64, runID: Int64,
                                                report: inout UploadReport) async throws {
        let context = BatchContext(identity: try store.identity(), range: summary)
        let cursor = try store.ledger.pendingMetrics(targetID: targetID, filter: scope.filter)
        let started = Date()
        report.batches = 0
        try await withThrowingTaskGroup(of: BatchOutcome<Contract.Reply>.self) { group in
            var inFlight = 0
            var exhausted = false
            func startNext() throws {
                let batch = try cursor.next(configuration.batchSize)
                guard !batch.isEmpty else { exhausted = true; return }
                var out = CloudSyncModel.ByteBuffer(capacity: batch.count * 400 + 512)
                contract.appendBody(batch, context, to: &out)
                let body = HTTPTransport.requestBody(out)
                let what = "a batch of \(batch.count) metrics (\(UTCDateFormatter.string(batch.firstStart ?? 0)) …)"
                group.addTask {
                    do {
                        return .sent(batch, try await transport.send(.POST, contract.batchPath, body: body, what: what,
                                                                     decoding: Contract.Reply.self))
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
                    let receipt = contract.receipt(reply, for: batch)
                    try store.ledger.acknowledge(batch, targetID: targetID, runID: runID, notTaken: receipt.notTaken)
                    report.uploaded += batch.count
                    report.batches += 1
                    for (type, count) in receipt.notTaken { report.notTaken[type, default: 0] += count }
                    report.serverStored += receipt.stored
                    report.serverDuplicates += receipt.duplicates
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

    /// The key of `notTaken` for a shortfall the server did not explain.
    package static let unexplained = "(types the server did not say)"

    private enum BatchOutcome<Reply: Sendable>: Sendable {
        case sent(PendingBatch, Reply)
        case failed(PendingBatch, any Error)
    }
}
