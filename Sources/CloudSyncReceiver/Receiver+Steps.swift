import CloudSyncStore
import Foundation
import Hummingbird

extension Receiver {
    /// The HealthStepsSync mock API: samples appended as JSON lines to a file, deduplicated by
    /// `uuid` (the original appends blindly; ours keeps "exactly once" across client retries).
    func addStepsRoutes(_ router: Router<BasicRequestContext>) {
        router.post("/steps") { request, _ in
            try await dataEndpoint(request, path: "/steps") { body in try storeSteps(body) }
        }
        router.get("/steps") { _, _ in
            let count = try database.read { try $0.scalarInt("SELECT count(*) FROM steps_sample") } ?? 0
            return JSONResponse.make(.ok, ["storedCount": count])
        }
        router.delete("/steps") { _, _ in
            try database.write { try $0.execute("DELETE FROM steps_sample") }
            _ = FileManager.default.createFile(atPath: configuration.resolvedStepsFilePath, contents: nil)
            return JSONResponse.make(.ok, ["message": "Deleted"])
        }
    }

    func storeSteps(_ body: ByteBuffer) throws -> (Response, Int?) {
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
        let fresh = try database.write { db -> Int in
            let insert = try db.prepare("INSERT OR IGNORE INTO steps_sample(uuid) VALUES (?)")
            var lines = Data()
            var fresh = 0
            for sample in samples {
                try insert.run([.text(sample.uuid)])
                guard db.changes > 0 else { continue }
                fresh += 1
                lines.append(Data(BodyDecoding.json(sample).utf8))
                lines.append(UInt8(ascii: "\n"))
            }
            // The JSON lines are written inside the transaction: if the file cannot be written,
            // the samples are not marked as stored either.
            let url = URL(fileURLWithPath: configuration.resolvedStepsFilePath)
            if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: lines)
            return fresh
        }
        return (JSONResponse.make(.ok, ["saved": fresh, "message": "Success"]), fresh)
    }
}
