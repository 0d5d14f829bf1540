import Foundation
import Hummingbird

extension Receiver {
    /// The HealthStepsSync mock API: samples kept as JSON lines (appended to a file with SQLite, as
    /// the original does; rows with PostgreSQL), deduplicated by `uuid` (the original appends
    /// blindly; ours keeps "exactly once" across client retries).
    func addStepsRoutes(_ router: Router<ReceiverContext>) {
        router.post("/steps") { request, context in
            try await dataEndpoint(request, user: context.user, path: "/steps") { body in try await storeSteps(body, owner: context.user) }
        }
        router.get("/steps") { _, context in
            return JSONResponse.make(.ok, ["storedCount": try await storage.stepsCount(owner: context.user)])
        }
        router.delete("/steps") { _, context in
            try await storage.deleteSteps(owner: context.user)
            return JSONResponse.make(.ok, ["message": "Deleted"])
        }
    }

    func storeSteps(_ body: ByteBuffer, owner: String) async throws -> (Response, Int?) {
        let samples: [StepsBody.Sample]
        switch BodyDecoding.decode(StepsBody.self, from: Data(body.readableBytesView)) {
        case .success(let decoded): samples = decoded.samples
        case .failure(let problem): return (JSONResponse.make(.badRequest, ["error": problem.words]), nil)
        }
        let dateForm = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/#
        for (i, sample) in samples.enumerated() {
            guard UUID(uuidString: sample.uuid) != nil else {
                return (JSONResponse.make(.badRequest, ["error": "samples[\(i)].uuid must be a UUID"]), nil)
            }
            for date in [sample.startDate, sample.endDate] where (try? dateForm.wholeMatch(in: date)) == nil {
                return (JSONResponse.make(.badRequest, ["error": "samples[\(i)]: dates must look like 2025-05-11T16:27:22.000Z"]), nil)
            }
            guard sample.count >= 0 else {
                return (JSONResponse.make(.badRequest, ["error": "samples[\(i)].count must not be negative"]), nil)
            }
        }
        let fresh = try await storage.storeSteps(owner: owner, samples.map { ReceivedStepsSample(uuid: $0.uuid, line: BodyDecoding.json($0)) })
        return (JSONResponse.make(.ok, ["saved": fresh, "message": "Success"]), fresh)
    }
}
