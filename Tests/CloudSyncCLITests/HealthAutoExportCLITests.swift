import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Health Auto Export through the built binary: `import FILE.json`, `import FOLDER`, `inspect`, and
/// `serve --store` is in HealthAutoExportServeTests.
@Suite struct HealthAutoExportCLITests {
    static let sample = Paths.sampleHealthAutoExport

    @Test func importTheSampleTwice() throws {
        let dir = try CLI.temporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let first = try CLI.run(["import", Self.sample, "--store", store])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains(": 15 new, 0 already there"))
        #expect(first.stderr.contains("no mapping, kept under their own names: made_up_metric"))
        #expect(first.stderr.contains("medications 1"))
        let again = try CLI.run(["import", Self.sample, "--store", store])
        #expect(again.status == 0 && again.stderr.contains(": 0 new, 15 already there"), "\(again.stderr)")
        let status = try CLI.run(["status", "--store", store, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        let phone = try #require(object["healthAutoExport"] as? [String: Any])
        #expect(phone["imports"] as? Int == 2 && phone["counted"] as? Int == 15)
        let text = try CLI.run(["status", "--store", store])
        #expect(text.stdout.count > 0 && String(decoding: text.stdout, as: UTF8.self).contains("from the phone: 2 pushes and files, 15 samples counted"))
    }

    @Test func inspectRecognisesTheJSON() throws {
        let result = try CLI.run(["inspect", Self.sample, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(object["format"] as? String == "Health Auto Export JSON")
        #expect(object["samples"] as? Int == 15 && object["workouts"] as? Int == 1)
        let text = try CLI.run(["inspect", Self.sample])
        #expect(String(decoding: text.stdout, as: UTF8.self).contains("step_count (count) → HKQuantityTypeIdentifierStepCount: 2 points, 2 summarised"))
    }

    @Test func aDamagedFileIsRefusedWithItsPathAndNothingIsKept() throws {
        let dir = try CLI.temporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let good = try writeFile(try String(contentsOfFile: Self.sample, encoding: .utf8), named: "HealthAutoExport-2025-03-08.json", in: dir)
        let bad = try writeFile(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2025-03-10 00:00:00 -0700","qty":true}]}]}}"#,
                                named: "HealthAutoExport-2025-03-10.json", in: dir)
        let result = try CLI.run(["import", bad, "--store", store])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(bad): not a Health Auto Export document at $.data.metrics[0].data[0].qty: expected a number, found true or false"))
        #expect(result.stderr.contains("nothing of \(bad) was imported"))
        // A folder: the files in name order; the good one is kept, the damaged one stops the run.
        let folder = try CLI.run(["import", dir.path, "--store", store])
        #expect(folder.status == 65 && folder.stderr.contains("imported \(good)"), "\(folder.stderr)")
        let status = try CLI.run(["status", "--store", store, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        #expect(object["metrics"] as? Int == 15)
    }

    @Test(.enabled(if: Paths.haeCorpusExists, "needs the shared corpus at ../shared/corpus/hae"))
    func importTheRealFilesAsAFolder() throws {
        let dir = try CLI.temporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let result = try CLI.run(["import", Paths.haeCorpus.path, "--store", store, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let again = try CLI.run(["import", Paths.haeCorpus.path, "--store", store])
        #expect(again.status == 0)
        #expect(again.stderr.components(separatedBy: "\n").filter { $0.contains("imported") }.allSatisfy { $0.contains(": 0 new,") })
        let aggregate = try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--types", "stepCount", "--format", "csv"])
        // CSV rows end with CRLF: one day per row.
        #expect(aggregate.status == 0 && aggregate.stdout.filter { $0 == 0x0A }.count > 3000, "\(aggregate.stderr)")
    }
}
