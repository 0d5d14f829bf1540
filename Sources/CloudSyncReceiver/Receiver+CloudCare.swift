import CloudSyncExport
import CloudSyncModel
import CloudSyncStore
import Foundation
import Hummingbird

extension Receiver {
    /// `POST {base}/wearables/import/apple-health`: one HealthDataExport envelope.
    func addCloudCareRoutes(_ router: Router<BasicRequestContext>, prefix: String) {
        let path = "\(prefix)/wearables/import/apple-health"
        router.post(RouterPath(path)) { request, _ in
            try await dataEndpoint(request, path: path) { body in try storeEnvelope(body) }
        }
        // A connection test, as the real backend offers.
        router.get(RouterPath(path)) { _, _ in JSONResponse.make(.ok, ["status": "ok"]) }
        router.head(RouterPath(path)) { _, _ in Response(status: .ok) }
        router.post(RouterPath(path + "/batch")) { _, _ in
            JSONResponse.make(.notImplemented, ["detail": "the batch endpoint stores only an aggregate on the real server: post envelopes one by one"])
        }
    }

    func storeEnvelope(_ body: ByteBuffer) throws -> (Response, Int?) {
        let envelope: HealthDataExportBody
        switch BodyDecoding.decode(HealthDataExportBody.self, from: Data(body.readableBytesView)) {
        case .success(let decoded): envelope = decoded
        case .failure(let problem):
            var errors = FieldErrors()
            errors.add(problem.field, problem.message, problem.type)
            return (errors.response, nil)
        }
        let metrics = configuration.dropsUnknownTypes ? envelope.metrics.filter { CloudCareContract.takes($0.type) } : envelope.metrics
        let stored = try database.write { db -> Int in
            let insert = try db.prepare("""
                INSERT OR IGNORE INTO cloudcare_metric(device_id, type, start_date, end_date, source_app, value, unit, metadata, user_id, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let now = Int64(Date().timeIntervalSince1970)
            var stored = 0
            for metric in metrics {
                try insert.run([.text(envelope.deviceId), .text(metric.type), .text(metric.startDate), .text(metric.endDate),
                                .text(metric.sourceApp), .double(metric.value), .text(metric.unit),
                                .text(JSONValue.serialize(metric.metadata)), .text(envelope.userId), .int(now)])
                stored += db.changes
            }
            return stored
        }
        let duplicates = metrics.count - stored
        return (JSONResponse.make(.created, [
            "message": "Apple Health data imported successfully", "device_id": envelope.deviceId, "device_type": "apple_watch",
            "total_metrics": metrics.count, "stored_count": stored, "duplicate_count": duplicates, "error_count": 0,
            "was_duplicate": stored == 0 && duplicates > 0,
        ]), stored)
    }
}
