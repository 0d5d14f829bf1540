import CloudSyncModel
import Foundation
import Hummingbird

extension Receiver {
    /// `POST {base}/wearables/import/apple-health`: one HealthDataExport envelope.
    func addCloudCareRoutes(_ router: Router<ReceiverContext>, prefix: String) {
        let path = "\(prefix)/wearables/import/apple-health"
        router.post(RouterPath(path)) { request, context in
            try await dataEndpoint(request, user: context.user, path: path) { body in try await storeEnvelope(body, owner: context.user) }
        }
        // What one user's uploads hold: the caller's, or `?user=NAME`'s for a token that reads NAME
        // (`AccessMiddleware` decided which: `context.subject`).
        router.get(RouterPath("\(prefix)/wearables/metrics/summary")) { _, context in
            let summary = try await storage.cloudCareSummary(owner: context.subject)
            return JSONResponse.make(.ok, ["userId": context.subject, "metrics": summary.metrics, "byType": summary.byType,
                                           "first": summary.first as Any? ?? NSNull(), "last": summary.last as Any? ?? NSNull()])
        }
        // A connection test, as the real backend offers.
        router.get(RouterPath(path)) { _, _ in JSONResponse.make(.ok, ["status": "ok"]) }
        router.head(RouterPath(path)) { _, _ in Response(status: .ok) }
        router.post(RouterPath(path + "/batch")) { _, _ in
            JSONResponse.make(.notImplemented, ["detail": "the batch endpoint stores only an aggregate on the real server: post envelopes one by one"])
        }
    }

    func storeEnvelope(_ body: ByteBuffer, owner: String) async throws -> (Response, Int?) {
        let envelope: HealthDataExportBody
        let read = body.withUnsafeReadableBytes { CloudCareEnvelopeReader.read($0.bindMemory(to: UInt8.self)) }
        switch read {
        case .success(let decoded): envelope = decoded
        case .failure(let problem):
            var errors = FieldErrors()
            errors.add(problem.field, problem.message, problem.type)
            return (errors.response, nil)
        }
        let metrics = configuration.dropsUnknownTypes ? envelope.metrics.filter { CloudCareContract.takes($0.type) } : envelope.metrics
        let stored = try await storage.storeCloudCare(owner: owner, userId: envelope.userId, deviceId: envelope.deviceId, metrics: metrics.map {
            ReceivedMetric(type: $0.type, startDate: $0.startDate, endDate: $0.endDate, sourceApp: $0.sourceApp, value: $0.value,
                           unit: $0.unit, metadata: JSONValue.serialize($0.metadata))
        })
        let duplicates = metrics.count - stored
        return (JSONResponse.make(.created, [
            "message": "Apple Health data imported successfully", "device_id": envelope.deviceId, "device_type": "apple_watch",
            "total_metrics": metrics.count, "stored_count": stored, "duplicate_count": duplicates, "error_count": 0,
            "was_duplicate": stored == 0 && duplicates > 0,
        ]), stored)
    }
}
