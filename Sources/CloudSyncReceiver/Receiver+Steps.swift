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
        guard let samples = JSONResponse.object(body)?["samples"] as? [[String: Any]] else {
            return (JSONResponse.make(.badRequest, ["error": "body must be {\"samples\": [...]}"]), nil)
        }
        let dateForm = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/#
        for (i, sample) in samples.enumerated() {
            guard let uuid = sample["uuid"] as? String, UUID(uuidString: uuid) != nil else {
                return (JSONResponse.make(.badRequest, ["error": "samples[\(i)].uuid must be a UUID"]), nil)
            }
            for key in ["startDate", "endDate"] {
                guard let date = sample[key] as? String, (try? dateForm.wholeMatch(in: date)) != nil else {
                    return (JSONResponse.make(.badRequest, ["error": "samples[\(i)].\(key) must look like 2025-05-11T16:27:22.000Z"]), nil)
                }
            }
            guard let count = sample["count"] as? NSNumber, count.doubleValue == count.doubleValue.rounded(), count.doubleValue >= 0 else {
                return (JSONResponse.make(.badRequest, ["error": "samples[\(i)].count must be a non-negative integer"]), nil)
            }
        }
        let fresh = try database.write { db -> [[String: Any]] in
            let insert = try db.prepare("INSERT OR IGNORE INTO steps_sample(uuid) VALUES (?)")
            var fresh: [[String: Any]] = []
            for sample in samples {
                try insert.run([.text(sample["uuid"] as! String)])
                if db.changes > 0 { fresh.append(sample) }
            }
            // The JSON lines are written inside the transaction: if the file cannot be written,
            // the samples are not marked as stored either.
            var lines = Data()
            for sample in fresh {
                lines.append(try JSONSerialization.data(withJSONObject: sample, options: [.sortedKeys]))
                lines.append(UInt8(ascii: "\n"))
            }
            let url = URL(fileURLWithPath: configuration.resolvedStepsFilePath)
            if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: lines)
            return fresh
        }
        return (JSONResponse.make(.ok, ["saved": fresh.count, "message": "Success"]), fresh.count)
    }
}
