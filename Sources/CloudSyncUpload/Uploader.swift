import NIOHTTP1
import AsyncHTTPClient
import CloudSyncCore
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
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(
            timeout: .init(connect: .seconds(10), read: .milliseconds(Int64(configuration.requestTimeout * 1000)))))
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

    private func upload(_ client: HTTPClient, _ report: inout UploadReport) async throws {
        let retries = RetryCounter()
        defer { report.retries = retries.count }
        let transport = HTTPTransport(client: client, configuration: configuration, retries: retries)
        // `…/api/v1` and `…/api/v1/` are one server.
        let targetID = try store.uploadTargetID(target: configuration.target.rawValue,
                                                server: configuration.server.absoluteString.trimmingTrailingSlash)
        var filter = configuration.filter
        var backfillStart: (iso: String, seconds: Int64)?

        switch configuration.target {
        case .cloudcare:
            break
        case .steps:
            // Only step counts go to HealthStepsSync (and only if the user's --types allow them).
            if filter.types == nil || filter.types!.contains("stepCount") { filter.types = ["stepCount"] } else { filter.types = [] }
        case .flo:
            let status = try await transport.send(.GET, "/api/healthkit/sync-status", body: nil, what: "the sync-status request").object ?? [:]
            // Flō's window starts at the recommended date: a backfill sends everything from there;
            // later runs send, inside the same window, what this server has not acknowledged yet
            // (what is new since the last successful sync).
            let recorded = try store.backfillStart(targetID: targetID)
            let recommended = (status["recommendedStartDate"] as? String) ?? recorded
            if let recommended, let seconds = Self.isoSeconds(recommended) {
                filter.since = max(filter.since ?? .min, seconds)
                if status["needsHistoricalSync"] as? Bool == true {
                    backfillStart = (recommended, seconds)
                    report.backfill = true
                }
            }
        }

        let summary = try store.pendingSummary(targetID: targetID, filter: filter)
        report.pending = summary.count
        report.batches = (summary.count + configuration.batchSize - 1) / configuration.batchSize
        if configuration.dryRun { return }

        let identity = try store.identity()
        let cursor = try store.pendingMetrics(targetID: targetID, filter: filter)
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
                    try store.acknowledge(batch, targetID: targetID)
                    report.uploaded += batch.count
                    report.batches += 1
                    if let object = reply.object {
                        report.serverStored += object["stored_count"] as? Int ?? object["inserted"] as? Int ?? object["saved"] as? Int ?? 0
                        report.serverDuplicates += object["duplicate_count"] as? Int ?? object["duplicates"] as? Int ?? 0
                    }
                    onProgress?(Progress(done: report.uploaded, total: summary.count, seconds: Date().timeIntervalSince(started)))
                case .failed(let batch, let error):
                    group.cancelAll()
                    try? store.recordFailedBatch(batch, targetID: targetID, error: "\(error)")
                    if backfillStart != nil { try? store.recordBackfill(targetID: targetID, complete: false, backfillDate: nil, recommendedStart: backfillStart?.iso) }
                    throw error
                }
                if shouldStop() {
                    group.cancelAll()
                    throw UploadError.interrupted
                }
                while !exhausted && inFlight < configuration.concurrency { try startNext() }
            }
        }

        if let backfillStart {
            // Only now, after every batch of the backfill succeeded.
            let count = try store.acknowledgedCount(targetID: targetID, since: backfillStart.seconds)
            let body: [String: Any] = ["sampleCount": count, "startDate": backfillStart.iso,
                                       "endDate": BatchBody.isoMilliseconds(summary.lastEnd ?? Int64(Date().timeIntervalSince1970))]
            let reply = try await transport.send(.POST, "/api/healthkit/mark-backfill-complete",
                                                 body: Array(try JSONSerialization.data(withJSONObject: body)), what: "mark-backfill-complete")
            try store.recordBackfill(targetID: targetID, complete: true, backfillDate: reply.object?["backfillDate"] as? String,
                                     recommendedStart: backfillStart.iso)
            report.backfillMarkedComplete = true
        }
    }

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

    static func body(_ target: UploadTarget, _ batch: [PendingMetric], identity: CloudCareIdentity, range: PendingSummary) -> [UInt8] {
        switch target {
        case .cloudcare: return BatchBody.cloudCare(batch, identity: identity, range: range)
        case .flo: return BatchBody.flo(batch)
        case .steps: return BatchBody.steps(batch)
        }
    }

    static func isoSeconds(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) { return Int64(date.timeIntervalSince1970) }
        return nil
    }
}

