import CloudSyncModel
import CloudSyncInputs
import CloudSyncStore
import Foundation
import Hummingbird

extension Receiver {
    /// `POST {base}/wearables/import/apple-health`: one HealthDataExport envelope.
    func addCloudCareRoutes(_ router: Router<ReceiverContext>, prefix: String) {
        let path = "\(prefix)/wearables/import/apple-health"
        router.post(RouterPath(path)) { request, context in
            try await dataEndpoint(request, user: context.user, path: path) { body in try await storeEnvelope(body, owner: context.user) }
        }
        // What one patient's store holds, each sample once, whatever route it came by: the caller's,
        // or `?user=NAME`'s for a token that reads NAME (`AccessMiddleware` decided which: `context.subject`).
        router.get(RouterPath("\(prefix)/wearables/metrics/summary")) { _, context in
            let read = await stores.read(owner: context.subject) { try StatusQuery($0).counts() }
            let counts: StatusQuery.Counts
            switch read {
            case nil: counts = .none
            case .success(let read): counts = read
            case .failure(let error): return Self.refusal(error, reading: true)
            }
            return JSONResponse.make(.ok, ["userId": context.subject, "metrics": counts.metrics, "byType": counts.byType,
                                           "first": counts.firstStart as Any? ?? NSNull(), "last": counts.lastEnd as Any? ?? NSNull()])
        }
        // A connection test, as the real backend offers.
        router.get(RouterPath(path)) { _, _ in JSONResponse.make(.ok, ["status": "ok"]) }
        router.head(RouterPath(path)) { _, _ in Response(status: .ok) }
        router.post(RouterPath(path + "/batch")) { _, _ in
            JSONResponse.make(.notImplemented, ["detail": "the batch endpoint stores only an aggregate on the real server: post envelopes one by one"])
        }
    }

    func storeEnvelope(_ body: ByteBuffer, owner: String) async throws -> (Response, Int?) {
        let envelope: CloudCareEnvelopeReader.Envelope
        // With `--drop-unknown-types`, the real backend's list of types (a `String` a metric: a test's setting).
        let keeps: ((ByteText) -> Bool)? = configuration.dropsUnknownTypes ? { CloudCareContract.takes($0.string) } : nil
        let read = body.withUnsafeReadableBytes { CloudCareEnvelopeReader.read($0.bindMemory(to: UInt8.self), keeps: keeps) }
        switch read {
        case .success(let decoded): envelope = decoded
        case .failure(let problem):
            var errors = FieldErrors()
            errors.add(problem.field, problem.message, problem.type)
            return (errors.response, nil)
        }
        if let (index, problem) = envelope.unreadableDate {
            var errors = FieldErrors()
            errors.add("metrics[\(index)].\(problem.field)", "an ISO 8601 date and time is required (2024-05-01T08:00:00Z)",
                       "value_error.datetime")
            return (errors.response, nil)
        }
        let metrics = envelope.metrics
        let stored: Int
        switch await storeReceived(metrics, of: owner, as: .receivedSamples(input: "a CloudCare batch of device \(envelope.deviceId)",
                                                                          kindName: "cloudcare"), path: "/wearables/import/apple-health") {
        case .success(let result): stored = result.new
        case .failure(let refusal): return (refusal.response, nil)
        }
        let duplicates = metrics.count - stored
        return (JSONResponse.make(.created, encoding: BatchReply(
            deviceID: envelope.deviceId, totalMetrics: metrics.count, storedCount: stored, duplicateCount: duplicates,
            wasDuplicate: stored == 0 && duplicates > 0)), stored)
    }
}

/// What the CloudCare backend answers a batch it took (its members' names as it spells them).
private struct BatchReply: Encodable {
    var message = "Apple Health data imported successfully"
    var deviceID: String
    var deviceType = "apple_watch"
    var totalMetrics: Int
    var storedCount: Int
    var duplicateCount: Int
    var errorCount = 0
    var wasDuplicate: Bool

    enum CodingKeys: String, CodingKey {
        case message, deviceID = "device_id", deviceType = "device_type", totalMetrics = "total_metrics", storedCount = "stored_count"
        case duplicateCount = "duplicate_count", errorCount = "error_count", wasDuplicate = "was_duplicate"
    }
}
