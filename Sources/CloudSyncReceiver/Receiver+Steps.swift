import Foundation
import Hummingbird

extension Receiver {
    /// The HealthStepsSync mock API: samples appended as JSON lines to a file, deduplicated by
    /// `uuid` (the original appends blindly; ours keeps "exactly once" across client retries).
    func addStepsRoutes(_ router: Router<BasicRequestContext>) {
        router.post("/steps") { request, _ in
            try await dataEndpoint(request, path: "/steps") { body in try await storeSteps(body) }
        }
        router.get("/steps") { _, _ in
            return JSONResponse.make(.ok, ["storedCount": try await storage.stepsCount()])
        }
        router.delete("/steps") { _, _ in
            try await storage.deleteSteps()
            _ = FileManager.default.createFile(atPath: configuration.resolvedStepsFilePath, contents: nil)
            return JSONResponse.make(.ok, ["message": "Deleted"])
        }
    }

    func storeSteps(_ body: ByteBuffer) async throws -> (Response, Int?) {
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
        // The JSON lines are written inside the storage's transaction: if the file cannot be
        // written, the samples are not marked as stored either.
        let fresh = try await storage.storeSteps(samples.map { ReceivedStepsSample(uuid: $0.uuid, line: BodyDecoding.json($0)) },
                                                 appendingTo: URL(fileURLWithPath: configuration.resolvedStepsFilePath))
        return (JSONResponse.make(.ok, ["saved": fresh, "message": "Success"]), fresh)
    }
}
