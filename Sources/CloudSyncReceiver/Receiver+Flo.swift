import CloudSyncModel
import CloudSyncInputs
import CloudSyncStore
import Foundation
import Hummingbird

extension Receiver {
    /// The Flō-style historical backfill: sync-status, samples (into the patient's store, each
    /// counted once by the store's identity, which the uploader's `uuid` is made from),
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
        var received: [HealthMetric] = []
        received.reserveCapacity(samples.count)
        for (index, sample) in samples.enumerated() {
            guard sample.value.isFinite else {
                return (JSONResponse.make(.badRequest, ["error": "samples[\(index)].value must be a finite number"]), nil)
            }
            guard case .success(let metric) = sample.healthMetric() else {
                return (JSONResponse.make(.badRequest, ["error": "samples[\(index)]: dates must look like 2025-05-11T16:27:22.000Z"]), nil)
            }
            received.append(metric)
        }
        let inserted: Int
        switch await storeReceived(received, of: owner, as: .receivedSamples(input: "Flō samples", kindName: "flo"), path: "/api/healthkit/samples") {
        case .success(let result): inserted = result.new
        case .failure(let refusal): return (refusal.response, nil)
        }
        return (JSONResponse.make(.ok, ["inserted": inserted, "duplicates": samples.count - inserted, "total": samples.count]), inserted)
    }
}
