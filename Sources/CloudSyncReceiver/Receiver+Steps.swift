import CloudSyncModel
import CloudSyncInputs
import CloudSyncStore
import Foundation
import Hummingbird

extension Receiver {
    /// The HealthStepsSync mock API. Its samples are the patient's step samples in their store (the
    /// original appends them to a JSONL file), each counted once by the store's identity, beside the
    /// same steps from an export or a push.
    func addStepsRoutes(_ router: Router<ReceiverContext>) {
        router.post("/steps") { request, context in
            try await dataEndpoint(request, user: context.user, path: "/steps") { body in try await storeSteps(body, owner: context.user) }
        }
        // The step samples the patient's store counts, whatever route they came by.
        router.get("/steps") { _, context in
            switch await stores.read(owner: context.user, { try StatusQuery($0).counts().byType[StepsBody.Sample.type] ?? 0 }) {
            case nil: return JSONResponse.make(.ok, ["storedCount": 0])
            case .success(let count): return JSONResponse.make(.ok, ["storedCount": count])
            case .failure(let error): return Self.refusal(error, reading: true)
            }
        }
        // The mock's reset does not exist here: the steps are the patient's health data, counted with
        // their exports' and pushes'. Erasing a patient is an administrator's (DELETE /api/v1/users/NAME).
        router.delete("/steps") { _, _ in
            JSONResponse.make(.methodNotAllowed, ["error": "the steps are kept in the patient's store with the rest of their health data, "
                                                  + "and nothing was deleted; an administrator erases a patient with DELETE /api/v1/users/NAME"],
                              headers: [.allow: "GET, POST"])
        }
    }

    func storeSteps(_ body: ByteBuffer, owner: String) async throws -> (Response, Int?) {
        let samples: [StepsBody.Sample]
        switch BodyDecoding.decode(StepsBody.self, from: Data(body.readableBytesView)) {
        case .success(let decoded): samples = decoded.samples
        case .failure(let problem): return (JSONResponse.make(.badRequest, ["error": problem.words]), nil)
        }
        let dateForm = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/#
        var received: [HealthMetric] = []
        received.reserveCapacity(samples.count)
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
            guard case .success(let metric) = sample.healthMetric() else {
                return (JSONResponse.make(.badRequest, ["error": "samples[\(i)]: dates must be real dates"]), nil)
            }
            received.append(metric)
        }
        switch await storeReceived(received, of: owner, as: .receivedSamples(input: "steps", kindName: "steps"), path: "/steps") {
        case .success(let result): return (JSONResponse.make(.ok, ["saved": result.new, "message": "Success"]), result.new)
        case .failure(let refusal): return (refusal.response, nil)
        }
    }
}
