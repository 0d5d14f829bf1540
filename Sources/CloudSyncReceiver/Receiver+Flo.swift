import CloudSyncStore
import Foundation
import Hummingbird

extension Receiver {
    /// The Flō-style historical backfill: sync-status, samples (deduplicated by `uuid`),
    /// mark-backfill-complete.
    func addFloRoutes(_ router: Router<BasicRequestContext>) {
        router.get("/api/healthkit/sync-status") { _, _ in
            let state = try database.read { db -> (Bool, String?) in
                let row = try db.prepare("SELECT backfill_complete, backfill_date FROM flo_state WHERE id = 1")
                _ = try row.step()
                return (row.int64(0) != 0, row.text(1))
            }
            return JSONResponse.make(.ok, [
                "backfillComplete": state.0, "backfillDate": state.1 as Any? ?? NSNull(),
                "needsHistoricalSync": !state.0, "recommendedStartDate": configuration.recommendedStartDate,
            ])
        }
        let samplesPath = "/api/healthkit/samples"
        router.post(RouterPath(samplesPath)) { request, _ in
            try await dataEndpoint(request, path: samplesPath) { body in try storeFloSamples(body) }
        }
        router.post("/api/healthkit/mark-backfill-complete") { request, _ in
            let body = try await request.body.collect(upTo: configuration.maxBodySize)
            guard let object = JSONResponse.object(body), let count = object["sampleCount"] as? Int else {
                return JSONResponse.make(.badRequest, ["error": "sampleCount (an integer) is required"])
            }
            let date = ISO8601DateFormatter().string(from: Date())
            try database.write { db in
                try db.prepare("""
                    UPDATE flo_state SET backfill_complete = 1, backfill_date = ?, mark_calls = mark_calls + 1,
                        marked_sample_count = ? WHERE id = 1
                    """).run([.text(date), .int(Int64(count))])
            }
            database.log(path: "/api/healthkit/mark-backfill-complete", status: 200, count: count)
            return JSONResponse.make(.ok, ["success": true, "backfillDate": date])
        }
    }

    func storeFloSamples(_ body: ByteBuffer) throws -> (Response, Int?) {
        guard let samples = JSONResponse.object(body)?["samples"] as? [[String: Any]] else {
            return (JSONResponse.make(.badRequest, ["error": "body must be {\"samples\": [...]}"]), nil)
        }
        for (i, sample) in samples.enumerated() {
            for key in ["dataType", "unit", "startDate", "endDate", "uuid"] where !(sample[key] is String) {
                return (JSONResponse.make(.badRequest, ["error": "samples[\(i)].\(key) is required (a string)"]), nil)
            }
            guard sample["value"] is NSNumber else {
                return (JSONResponse.make(.badRequest, ["error": "samples[\(i)].value must be a number"]), nil)
            }
        }
        let inserted = try database.write { db -> Int in
            let insert = try db.prepare("""
                INSERT OR IGNORE INTO flo_sample(uuid, data_type, value, unit, start_date, end_date, body) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            var inserted = 0
            for sample in samples {
                let json = (try? JSONSerialization.data(withJSONObject: sample, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                try insert.run([.text(sample["uuid"] as! String), .text(sample["dataType"] as! String),
                                .double((sample["value"] as! NSNumber).doubleValue), .text(sample["unit"] as! String),
                                .text(sample["startDate"] as! String), .text(sample["endDate"] as! String), .text(json)])
                inserted += db.changes
            }
            return inserted
        }
        return (JSONResponse.make(.ok, ["inserted": inserted, "duplicates": samples.count - inserted, "total": samples.count]), inserted)
    }
}
