import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// An export with `count` heart-rate records, one a minute (made here: large enough that an import
/// takes a few seconds in a debug build, so that it can be killed half-way).
func heartRateExport(count: Int) -> String {
    sampleExport(count: count, type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min")
}

/// An export with `count` records of `type`, one a minute from November 2023.
func sampleExport(count: Int, type: String, unit: String) -> String {
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    text.reserveCapacity(count * 260)
    let base = 1_700_000_000
    for i in 0..<count {
        let date = Date(timeIntervalSince1970: TimeInterval(base + i * 60))
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        let stamp = String(format: "%04d-%02d-%02d %02d:%02d:%02d +0000", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
        text += " <Record type=\"\(type)\" sourceName=\"Watch\" sourceVersion=\"10.1\" unit=\"\(unit)\" creationDate=\"\(stamp)\" startDate=\"\(stamp)\" endDate=\"\(stamp)\" value=\"\(60 + i % 50)\"/>\n"
    }
    return text + "</HealthData>\n"
}

/// A child `cloudsync import` of `count` generated records, returned once it has committed
/// something (so that it can be killed or interrupted half-way).
struct ImportInProgress {
    let child = Process()
    let input: URL
    let store: String
    let count: Int
    let stderr = Pipe()

    /// Returns once the import has committed its first chunk. `inPlace`: into a store made empty
    /// before it; else into a new store, written beside its path until it ends (`NewStoreLoad`),
    /// whose commits are watched there.
    init(count: Int, inPlace: Bool = false) throws {
        let dir = try makeTemporaryDirectory()
        input = dir.appendingPathComponent("big.xml")
        store = dir.appendingPathComponent("staging.sqlite").path
        self.count = count
        try Data(heartRateExport(count: count).utf8).write(to: input)
        if inPlace { _ = try StagingStore(path: store, access: .write) }
        child.executableURL = CLI.binary
        child.arguments = ["import", input.path, "--store", store]
        child.standardOutput = FileHandle.nullDevice
        child.standardError = stderr
        try child.run()
        let watched = inPlace ? store : dir.appendingPathComponent(".staging.sqlite.new-\(child.processIdentifier)").path
        var committed = 0
        let deadline = Date().addingTimeInterval(120)
        while committed == 0 && child.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            committed = (try? StatusQuery(StagingStore(path: watched, access: .read)).status().metrics) ?? 0
        }
    }
}

@Suite(.serialized) struct StoreCommandTests {
    func storePath() throws -> String { try makeTemporaryDirectory().appendingPathComponent("staging.sqlite").path }

    @Test func importTwiceThenStatusJSON() throws {
        let store = try storePath()
        let first = try CLI.run(["import", CLI.sample, "--store", store])
        #expect(first.status == 0)
        #expect(first.stdout.isEmpty)
        #expect(first.stderr.contains("24 new, 0 already there"))
        let second = try CLI.run(["import", CLI.sample, "--store", store])
        #expect(second.stderr.contains("0 new, 24 already there"))
        let status = try CLI.run(["status", "--store", store, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        #expect(json["metrics"] as? Int == 24)
        #expect(json["pending"] as? Int == 20)              // what an upload to CloudCare would send: not the 4 of other types
        #expect(json["pendingLeftOut"] as? Int == 4)
        #expect((json["byType"] as? [String: Int])?["HKQuantityTypeIdentifierHeartRate"] == 3)
        #expect((json["imports"] as? [[String: Any]])?.count == 2)
        #expect((json["uploads"] as? [Any])?.isEmpty == true)
        #expect(UUID(uuidString: json["userId"] as? String ?? "") != nil)
        // The export's own facts, as the store keeps them (the latest export's: StagingStoreTests).
        let text = String(decoding: try CLI.run(["status", "--store", store]).stdout, as: UTF8.self)
        #expect(text.contains("last export: 2024-11-03 09:15:00 -0500, version 14, locale en_US"), "\(text)")
    }

    @Test func theDefaultStoreComesFromTheEnvironment() throws {
        let dir = try makeTemporaryDirectory()
        let result = try CLI.run(["import", CLI.sample, "-q"], environment: ["XDG_DATA_HOME": dir.path])
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("cloudsync/staging.sqlite").path))
    }

    @Test func exportAndAggregateFromTheStore() throws {
        let store = try storePath()
        _ = try CLI.run(["import", CLI.sample, "--store", store])
        let jsonl = try CLI.run(["export", "--store", store, "--types", "sleepAnalysis"])
        #expect(jsonl.status == 0)
        #expect(jsonl.lines.dropLast().count == 5)
        let cloudcare = try CLI.run(["export", "--store", store, "--format", "cloudcare", "--pending"])
        let envelopes = try #require(try JSONSerialization.jsonObject(with: cloudcare.stdout) as? [[String: Any]])
        let status = try #require(try JSONSerialization.jsonObject(with: try CLI.run(["status", "--store", store, "--json"]).stdout) as? [String: Any])
        #expect(envelopes.first?["userId"] as? String == status["userId"] as? String)   // the store's identity
        #expect((envelopes.first?["metrics"] as? [Any])?.count == 20)     // pending: the types CloudCare keeps
        let csv = try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--types", "stepCount", "--format", "csv"])
        #expect(String(decoding: csv.stdout, as: UTF8.self) == "type,bucket,unit,count,sum,average,minimum,maximum\r\nHKQuantityTypeIdentifierStepCount,2024-11-02,count,1,1200,1200,1200,1200\r\n")
        #expect(try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--tz", "Mars/Olympus"]).status == 64)
        #expect(try CLI.run(["status", "--store", "/nonexistent/s.sqlite"]).status == 66)
    }

    /// Into a store that was there (a new store's import is killed in `KilledImportTests`).
    @Test func killDuringImportLeavesASoundStoreThatTheNextImportCompletes() throws {
        let running = try ImportInProgress(count: 150_000, inPlace: true)
        let (child, input, store, count) = (running.child, running.input, running.store, running.count)
        #expect(child.isRunning, "the import ended before it could be killed; make the input larger")
        // Beside the import, readers read (the store is shared: no "in use").
        let beside = try CLI.run(["status", "--store", store])
        #expect(beside.status == 0, "\(beside.stderr)")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)

        let afterKill = try StagingStore(path: store, access: .read)
        #expect(try afterKill.integrityCheck() == "ok")
        let kept = try StatusQuery(afterKill).status().metrics
        #expect(kept > 0 && kept < count)

        let rerun = try CLI.run(["import", input.path, "--store", store])
        #expect(rerun.status == 0)
        let status = try StatusQuery(StagingStore(path: store, access: .read)).status()
        #expect(status.metrics == count)   // everything, nothing twice (the identity index forbids it)
        #expect(status.imports.map(\.outcome) == ["ok", "interrupted"])
        #expect(status.imports.first?.duplicates == kept)
        #expect(try StagingStore(path: store, access: .read).integrityCheck() == "ok")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalDuringImportStopsCleanlyAndTheNextImportContinues(_ signal: Int32) throws {
        // A new store's import: what it committed before the signal is linked at the path.
        let running = try ImportInProgress(count: 150_000)
        let (child, input, store, count) = (running.child, running.input, running.store, running.count)
        #expect(child.isRunning, "the import ended before it could be interrupted")
        kill(child.processIdentifier, signal)
        let message = String(decoding: running.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        #expect(child.terminationStatus == 130)
        #expect(message.contains("interrupted"))
        let status = try StatusQuery(StagingStore(path: store, access: .read)).status()
        #expect(status.imports.first?.outcome == "interrupted")
        #expect(status.metrics > 0 && status.metrics < count)
        #expect(try StagingStore(path: store, access: .read).integrityCheck() == "ok")
        #expect(try CLI.run(["import", input.path, "--store", store, "-q"]).status == 0)
        #expect(try StatusQuery(StagingStore(path: store, access: .read)).status().metrics == count)
    }
}
