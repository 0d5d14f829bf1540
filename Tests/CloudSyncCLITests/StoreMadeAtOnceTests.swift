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

    /// An export's import of 200,000 heart rates into a new store of `dir`, running, once its file
    /// beside the store's path is there (`NewStoreLoad`).
    static func newStoresImport(in dir: URL) throws -> (run: BackgroundRun, store: String) {
        let export = dir.appendingPathComponent("export.xml")
        try Data(heartRateExport(count: 200_000).utf8).write(to: export)
        let store = dir.appendingPathComponent("store.sqlite").path
        let run = try BackgroundRun(["import", export.path, "--store", store, "--quiet"],
                                    stderrPath: dir.appendingPathComponent("bulk.stderr").path)
        let beside = dir.appendingPathComponent(".store.sqlite.new-\(run.process.processIdentifier)").path
        while run.isRunning, !FileManager.default.fileExists(atPath: beside) { Thread.sleep(forTimeInterval: 0.005) }
        return (run, store)
    }

    static func metrics(in store: String) throws -> Int? {
        let counted = try CLI.run(["status", "--json", "--store", store])
        return (try JSONSerialization.jsonObject(with: counted.stdout) as? [String: Any])?["metrics"] as? Int
    }

    /// While an export's import into a new store runs, a reader finds no store at its path, as
    /// before it. A push's file imported meanwhile makes the store there; the export's import then
    /// says so and imports into that store: both are kept.
    @Test(.timeLimit(.minutes(10))) func aStoreMadeWhileANewStoresImportRunsKeepsBoth() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (bulk, store) = try Self.newStoresImport(in: dir)
        let reading = try CLI.run(["status", "--store", store])
        #expect(reading.status != 0 && reading.stderr.contains("no store there yet"), "\(reading.stderr)")
        let pushed = try CLI.run(["import", Paths.sampleHealthAutoExport, "--store", store, "--quiet"])
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(bulk.isRunning, "the export's import ended before the push's file was imported: the test needs a larger export")
        let (status, stderr) = bulk.finish()
        #expect(status == 0, "\(stderr)")
        #expect(stderr.contains("another process made a store there while this import ran: the export is imported into it"), "\(stderr)")
        #expect(try Self.metrics(in: store) == 200_000 + 15)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(!names.contains { $0.hasPrefix(".store.sqlite.new-") }, "\(names)")
    }

    /// The same, but the export's import is interrupted after the store was made at its path: what
    /// it committed beside the path cannot go there, and it says that nothing of it was kept.
    @Test(.timeLimit(.minutes(10))) func anInterruptedNewStoresImportWhoseStoreWasMadeMeanwhileSaysNothingWasKept() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (bulk, store) = try Self.newStoresImport(in: dir)
        #expect(try CLI.run(["import", Paths.sampleHealthAutoExport, "--store", store, "--quiet"]).status == 0)
        #expect(bulk.isRunning, "the export's import ended before it could be interrupted: the test needs a larger export")
        bulk.send(SIGINT)
        let (status, stderr) = bulk.finish()
        #expect(status == 130, "\(stderr)")
        #expect(stderr.contains("another process made a store there while this import ran; nothing of this import was kept"), "\(stderr)")
        #expect(!stderr.contains("what it committed is kept"), "\(stderr)")
        #expect(try Self.metrics(in: store) == 15)
    }
}
