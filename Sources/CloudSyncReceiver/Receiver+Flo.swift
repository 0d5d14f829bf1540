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
        let samples: [FloSamplesBody.Sample]
        switch BodyDecoding.decode(FloSamplesBody.self, from: Data(body.readableBytesView)) {
        case .success(let decoded): samples = decoded.samples
        case .failure(let problem): return (JSONResponse.make(.badRequest, ["error": problem.words]), nil)
        }
        let inserted = try database.write { db -> Int in
            let insert = try db.prepare("""
                INSERT OR IGNORE INTO flo_sample(uuid, data_type, value, unit, start_date, end_date, body) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            var inserted = 0
            for sample in samples {
                try insert.run([.text(sample.uuid), .text(sample.dataType), .double(sample.value), .text(sample.unit),
                                .text(sample.startDate), .text(sample.endDate), .text(BodyDecoding.json(sample))])
                inserted += db.changes
            }
            return inserted
        }
        return (JSONResponse.make(.ok, ["inserted": inserted, "duplicates": samples.count - inserted, "total": samples.count]), inserted)
    }
}
