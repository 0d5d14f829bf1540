import CloudSyncModel
import Foundation
import Hummingbird

extension Receiver {
    /// The Flō-style historical backfill: sync-status, samples (deduplicated by `uuid`),
    /// mark-backfill-complete.
    func addFloRoutes(_ router: Router<ReceiverContext>) {
        router.get("/api/healthkit/sync-status") { _, context in
            let state = try await storage.floState(owner: context.user)
            return JSONResponse.make(.ok, [
                "backfillComplete": state.backfillComplete, "backfillDate": state.backfillDate as Any? ?? NSNull(),
                "needsHistoricalSync": !state.backfillComplete, "recommendedStartDate": configuration.recommendedStartDate,
            ])
        }
        let samplesPath = "/api/healthkit/samples"
        router.post(RouterPath(samplesPath)) { request, context in
            try await dataEndpoint(request, user: context.user, path: samplesPath) { body in
                try await storeFloSamples(body, owner: context.user)
            }
        }
        router.post("/api/healthkit/mark-backfill-complete") { request, context in
            let body = try await request.body.collect(upTo: configuration.maxBodySize)
            guard let object = JSONResponse.object(body), let count = object["sampleCount"] as? Int else {
                return JSONResponse.make(.badRequest, ["error": "sampleCount (an integer) is required"])
            }
            let date = UTCDateFormatter.string(Date())
            try await storage.markFloBackfillComplete(owner: context.user, date: date, sampleCount: count)
            await storage.log(owner: context.user, path: "/api/healthkit/mark-backfill-complete", status: 200, count: count)
            return JSONResponse.make(.ok, ["success": true, "backfillDate": date])
        }
    }

    func storeFloSamples(_ body: ByteBuffer, owner: String) async throws -> (Response, Int?) {
        let samples: [FloSamplesBody.Sample]
        switch BodyDecoding.decode(FloSamplesBody.self, from: Data(body.readableBytesView)) {
        case .success(let decoded): samples = decoded.samples
        case .failure(let problem): return (JSONResponse.make(.badRequest, ["error": problem.words]), nil)
        }
        let inserted = try await storage.storeFloSamples(owner: owner, samples.map {
            ReceivedFloSample(uuid: $0.uuid, dataType: $0.dataType, value: $0.value, unit: $0.unit, startDate: $0.startDate,
                              endDate: $0.endDate, body: BodyDecoding.json($0))
        })
        return (JSONResponse.make(.ok, ["inserted": inserted, "duplicates": samples.count - inserted, "total": samples.count]), inserted)
    }
}
