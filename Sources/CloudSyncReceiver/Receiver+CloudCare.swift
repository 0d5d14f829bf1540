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
        guard let envelope = JSONResponse.object(body) else {
            var errors = FieldErrors()
            errors.add("body", "not a JSON object", "value_error.jsondecode")
            return (errors.response, nil)
        }
        var errors = FieldErrors()
        for key in ["userId", "deviceId", "exportTimestamp"] where !(envelope[key] is String) {
            errors.add(key, "field required (a string)", "value_error.missing")
        }
        if !(envelope["dataRange"] is [String: Any]) { errors.add("dataRange", "field required (an object)", "type_error.dict") }
        guard let metrics = envelope["metrics"] as? [Any] else {
            errors.add("metrics", "field required (an array)", "type_error.list")
            return (errors.response, nil)
        }
        var rows: [(type: String, start: String, end: String, value: Double, unit: String, source: String, metadata: String)] = []
        for (i, item) in metrics.enumerated() {
            let field = "metrics[\(i)]"
            guard let metric = item as? [String: Any] else { errors.add(field, "must be an object", "type_error.dict"); continue }
            let strings = ["type", "startDate", "endDate", "unit", "sourceApp"].map { metric[$0] as? String }
            for (key, value) in zip(["type", "startDate", "endDate", "unit", "sourceApp"], strings) where value == nil {
                errors.add("\(field).\(key)", "field required (a string)", "value_error.missing")
            }
            let value = (metric["value"] as? NSNumber)?.doubleValue
            if value == nil || !value!.isFinite { errors.add("\(field).value", "must be a finite number", "type_error.float") }
            guard let metadata = metric["metadata"] as? [String: Any] else {
                errors.add("\(field).metadata", "must be an object", "type_error.dict")
                continue
            }
            guard errors.isEmpty, let value, let type = strings[0], let start = strings[1], let end = strings[2],
                  let unit = strings[3], let source = strings[4] else { continue }
            let metadataJSON = (try? JSONSerialization.data(withJSONObject: metadata, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            rows.append((type, start, end, value, unit, source, metadataJSON))
        }
        guard errors.isEmpty else { return (errors.response, nil) }
        let deviceId = envelope["deviceId"] as! String
        let userId = envelope["userId"] as! String
        let stored = try database.write { db -> Int in
            let insert = try db.prepare("""
                INSERT OR IGNORE INTO cloudcare_metric(device_id, type, start_date, end_date, source_app, value, unit, metadata, user_id, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let now = Int64(Date().timeIntervalSince1970)
            var stored = 0
            for row in rows {
                try insert.run([.text(deviceId), .text(row.type), .text(row.start), .text(row.end), .text(row.source),
                                .double(row.value), .text(row.unit), .text(row.metadata), .text(userId), .int(now)])
                stored += db.changes
            }
            return stored
        }
        let duplicates = rows.count - stored
        return (JSONResponse.make(.created, [
            "message": "Apple Health data imported successfully", "device_id": deviceId, "device_type": "apple_watch",
            "total_metrics": rows.count, "stored_count": stored, "duplicate_count": duplicates, "error_count": 0,
            "was_duplicate": stored == 0 && duplicates > 0,
        ]), stored)
    }
}
