import CloudSyncTesting
import Foundation
import Testing

@Suite struct ConvertCommandTests {
    @Test func convertsTheSampleToJSONLines() throws {
        let result = try CLI.run(["convert", CLI.sample])
        #expect(result.status == 0)
        let lines = result.lines
        #expect(lines.last == "")                  // ends with a newline
        #expect(lines.dropLast().count == 24)
        for line in lines.dropLast() { #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any]) }
        #expect(result.stderr.contains("24 metrics"))
        #expect(result.stderr.contains("skipped 2 invalid records"))
    }

    @Test func standardInputTakesZipOrXMLFromAPipeOrAFile() throws {
        let reference = try CLI.run(["convert", CLI.sample]).stdout
        let zipBytes = try Data(contentsOf: URL(fileURLWithPath: CLI.sample))
        #expect(try CLI.run(["convert", "-"], stdinBytes: zipBytes).stdout == reference)
        #expect(try CLI.run(["convert", "-"], stdinFile: CLI.sample).stdout == reference)
        let xml = CLI.repository.appendingPathComponent("samples/export.xml").path
        #expect(try CLI.run(["convert", "-"], stdinBytes: try Data(contentsOf: URL(fileURLWithPath: xml))).stdout == reference)
    }

    @Test func writesToAnOutputFile() throws {
        let out = try makeTemporaryDirectory().appendingPathComponent("metrics.jsonl").path
        let result = try CLI.run(["convert", CLI.sample, "--output", out, "--types", "heartRate,workout"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 5)
    }

    @Test func cloudCareBatchesAreSortedAndShareOneRange() throws {
        let dir = try makeTemporaryDirectory().appendingPathComponent("batches")
        let user = "0F8FAD5B-D9CB-469F-A165-70867728950E", device = "7C9E6679-7425-40DE-944B-E07FC1F90AE7"
        let result = try CLI.run(["convert", CLI.sample, "--format", "cloudcare", "--output", dir.path, "--batch-size", "5",
                                  "--user-id", user, "--device-id", device])
        #expect(result.status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(files == (1...5).map { String(format: "batch-%06d.json", $0) })
        var starts: [String] = [], ranges = Set<[String: String]>(), total = 0
        for file in files {
            let envelope = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent(file))) as? [String: Any])
            #expect(Set(envelope.keys) == ["userId", "deviceId", "exportTimestamp", "dataRange", "metrics"])
            #expect(envelope["userId"] as? String == user)
            #expect(envelope["deviceId"] as? String == device)
            let metrics = try #require(envelope["metrics"] as? [[String: Any]])
            #expect(metrics.count <= 5)
            total += metrics.count
            starts += metrics.compactMap { $0["startDate"] as? String }
            ranges.insert(try #require(envelope["dataRange"] as? [String: String]))
        }
        #expect(total == 24)
        #expect(starts == starts.sorted())
        #expect(ranges.count == 1)
        #expect(ranges.first == ["startDate": "2023-06-01T16:10:00Z", "endDate": "2024-11-03T06:30:00Z"])  // first start, last end
    }

    @Test func cloudCareOnStandardOutputIsOneArray() throws {
        let result = try CLI.run(["convert", CLI.sample, "--format", "cloudcare"])
        let envelopes = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        #expect(envelopes.count == 1)
        #expect((envelopes[0]["metrics"] as? [Any])?.count == 24)
        #expect(UUID(uuidString: envelopes[0]["userId"] as? String ?? "") != nil)
    }

    @Test func damagedInputExitsSixtyFiveAndNeverLeavesAPartialLine() throws {
        let dir = try makeTemporaryDirectory()
        let xml = try Data(contentsOf: CLI.repository.appendingPathComponent("samples/export.xml"))
        let cut = dir.appendingPathComponent("cut.xml")
        try xml.prefix(xml.count * 3 / 4).write(to: cut)
        let result = try CLI.run(["convert", cut.path])
        #expect(result.status == 65)
        #expect(result.stdout.last == UInt8(ascii: "\n"))
        #expect(result.lines.dropLast().count > 15)
        #expect(result.stderr.contains("\(cut.path):"))
        #expect(result.stderr.contains("damaged XML"))
    }

    @Test func exitCodesAreDocumentedAndKept() throws {
        let help = try CLI.run(["convert", "--help"])
        #expect(help.status == 0)
        #expect(String(decoding: help.stdout, as: UTF8.self).contains("65  damaged input"))
        #expect(try CLI.run(["convert", "/nonexistent/export.zip"]).status == 66)
        #expect(try CLI.run(["convert", CLI.sample, "--since", "last tuesday"]).status == 64)
        let notExport = try makeTemporaryDirectory().appendingPathComponent("x.xml")
        try Data("<a/>".utf8).write(to: notExport)
        let result = try CLI.run(["convert", notExport.path])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("not an Apple Health export"))
    }
}

@Suite struct InspectCommandTests {
    @Test func describesTheSample() throws {
        let result = try CLI.run(["inspect", CLI.sample, "--json"])
        #expect(result.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(report["exportVersion"] as? Int == 14)
        #expect(report["locale"] as? String == "en_US")
        #expect(report["metrics"] as? Int == 24)
        #expect((report["metricsByType"] as? [String: Int])?["HKCategoryTypeIdentifierSleepAnalysis"] == 5)
        #expect((report["invalidRecords"] as? [String: Int])?.values.reduce(0, +) == 2)
        #expect((report["elements"] as? [String: Int])?["InstantaneousBeatsPerMinute"] == 3)
        #expect((report["sources"] as? [String: Int])?["Alex’s iPhone"] == 5)
        #expect((report["files"] as? [String: Int])?["routes"] == 1)
        #expect((report["files"] as? [String: Int])?["ecg"] == 1 && (report["files"] as? [String: Int])?["clinical"] == 1)
        #expect((report["dtd"] as? [String: Any])?["broken"] as? Bool == false)
        let text = try CLI.run(["inspect", CLI.sample])
        #expect(String(decoding: text.stdout, as: UTF8.self).contains("export version: 14"))
    }
}
