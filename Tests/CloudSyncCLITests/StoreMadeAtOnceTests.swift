import CloudSyncTesting
import Foundation
import Testing

/// Processes that make the same new store at once (two `serve` instances taking a patient's first
/// push, imports started together): one makes it, the others find it made, and each sample is
/// stored once.
struct StoreMadeAtOnceTests {
    /// Six imports started together, sixty times, each time into a new store. Before the fix, 5 of
    /// 720 imports (two runs of 360) failed: a kind's step run twice (ECG's `ALTER TABLE … ADD COLUMN`: "duplicate
    /// column name", exit 70), or the store's version and tables read apart ("an SQLite database of
    /// another program", exit 65).
    @Test func importsMakingOneNewStoreAtOnceAllSucceedAndStoreEachSampleOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for round in 0..<60 {
            let store = dir.appendingPathComponent("store-\(round).sqlite").path
            let imports = try (0..<6).map { index in
                try BackgroundRun(["import", Paths.sampleHealthAutoExport, "--store", store, "--quiet"],
                                  stderrPath: dir.appendingPathComponent("stderr-\(round)-\(index)").path)
            }
            for (index, run) in imports.enumerated() {
                let (status, stderr) = run.finish()
                #expect(status == 0, "round \(round), import \(index): \(stderr)")
            }
            let status = try CLI.run(["status", "--json", "--store", store])
            let object = try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any]
            #expect(object?["metrics"] as? Int == 15, "round \(round): \(status.stderr)")
            try? FileManager.default.removeItem(atPath: store)
        }
    }
}
