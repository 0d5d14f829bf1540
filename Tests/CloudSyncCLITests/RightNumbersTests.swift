import CloudSyncModel
import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing
import ZIPFoundation

/// Issue 22: the numbers and the words a user reads are right (items 9, 13, 14, 16, 17, 19, 22),
/// through the built binary.
@Suite struct RightNumbersTests {
    func json(_ result: CLIResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderr)")
    }

    func csvRows(_ result: CLIResult) -> [[String]] {
        String(decoding: result.stdout, as: UTF8.self).split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",").map(String.init) }
    }

    // MARK: 9. A date without a time is a midnight in --tz; a window never changes a bucket

    /// Steps every 30 minutes from 2021-03-01 to 2021-03-06 (UTC): Paris is UTC+1, so each local day
    /// starts at 23:00 UTC the evening before.
    static func halfHourlySteps() -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"fr_FR\">\n <ExportDate value=\"2021-03-10 10:00:00 +0100\"/>\n"
        let start = 1_614_556_800   // 2021-03-01T00:00:00Z
        for i in 0..<(5 * 48) {
            let stamp = UTCDateFormatter.string(Int64(start + i * 1800)).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " +0000")
            text += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Phone\" unit=\"count\" startDate=\"\(stamp)\" endDate=\"\(stamp)\" value=\"\(10 + i % 7)\"/>\n"
        }
        return text + "</HealthData>\n"
    }

    @Test func aWindowOfLocalDaysGivesTheSameBucketsAsNoWindow() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try CLI.run(["import", try writeFile(Self.halfHourlySteps(), in: dir), "--store", store, "-q"]).status == 0)
        for merge in [[], ["--merge-sources"]] {
            let base = ["aggregate", "--store", store, "--bucket", "day", "--tz", "Europe/Paris", "--types", "steps", "--format", "csv"] + merge
            let all = csvRows(try CLI.run(base))
            let window = csvRows(try CLI.run(base + ["--since", "2021-03-02", "--until", "2021-03-04"]))
            #expect(window.map { $0[1] } == ["2021-03-02", "2021-03-03"], "\(merge)")     // no partial 2021-03-04
            #expect(window == all.filter { ["2021-03-02", "2021-03-03"].contains($0[1]) }, "\(merge)")
            #expect(window.first?[3] == "48", "\(merge)")                                  // 48 half hours, the first included
        }
        let help = String(decoding: try CLI.run(["aggregate", "--help"]).stdout, as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("--until 2024-02-01 ends with January 31"))
        #expect(help.contains("a date without a time is midnight in --tz"))
    }

    // MARK: 13. One definition of pending

    @Test func pendingIsTheSameEverywhereAndReachesZero() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let serve = try ServeProcess([], directory: dir)
        defer { _ = serve.stop() }
        let server = "\(serve.url)/api/v1"
        let before = try json(try CLI.run(["status", "--store", store, "--json"]))
        let pendingBefore = try #require(before["pending"] as? Int)
        let exported = try CLI.run(["export", "--store", store, "--pending"])
        #expect(exported.lines.filter { !$0.isEmpty }.count == pendingBefore)
        #expect(try CLI.run(["upload", "--store", store, "--server", server, "--no-token", "--dry-run"]).stderr
                .contains("dry run: \(counted(pendingBefore, "metric")) to upload"))
        #expect((before["pendingLeftOut"] as? Int ?? 0) > 0)                       // activity summaries CloudCare does not keep
        let upload = try CLI.run(["upload", "--store", store, "--server", server, "--no-token"])
        #expect(upload.status == 0, "\(upload.stderr)")
        let after = try json(try CLI.run(["status", "--store", store, "--json"]))
        #expect(after["pending"] as? Int == 0)
        #expect(after["pendingTarget"] as? String == "cloudcare \(server)")
        #expect(try CLI.run(["export", "--store", store, "--pending"]).stdout.isEmpty)
        #expect(try CLI.run(["upload", "--store", store, "--server", server, "--no-token", "--dry-run"]).stderr.contains("nothing to upload"))
        // A mistyped server tried once does not take over what pending means.
        _ = try CLI.run(["upload", "--store", store, "--server", "http://127.0.0.1:9/api/v1", "--no-token", "--max-attempts", "1"])
        #expect(try json(try CLI.run(["status", "--store", store, "--json"]))["pending"] as? Int == 0)
    }

    // MARK: 14. Samples dated after the export

    @Test func samplesDatedAfterTheExportAreFlaggedAndKept() throws {
        let dir = try makeTemporaryDirectory()
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2019-06-01 10:00:00 +0200"/>
             <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="2019-05-01 08:00:00 +0200" endDate="2019-05-01 08:00:00 +0200" value="70"/>
             <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="2030-03-03 08:00:00 +0200" endDate="2030-03-03 08:00:00 +0200" value="71"/>
             <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="2030-04-18 08:00:00 +0200" endDate="2030-04-18 08:00:00 +0200" value="72"/>
            </HealthData>

            """
        let input = try writeFile(xml, in: dir)
        let inspect = try CLI.run(["inspect", input])
        #expect(String(decoding: inspect.stdout, as: UTF8.self).contains("2 samples dated after the export (2030-03-03 … 2030-04-18, first at line 5), kept"))
        let report = try json(try CLI.run(["inspect", input, "--json"]))
        #expect((report["samplesAfterExport"] as? [String: Any])?["count"] as? Int == 2)
        let imported = try CLI.run(["import", input, "--store", dir.appendingPathComponent("s.sqlite").path, "-q"])
        #expect(imported.status == 0 && imported.stderr.contains("2 samples dated after the export"), "\(imported.stderr)")
        #expect(try StatusQuery(StagingStore(path: dir.appendingPathComponent("s.sqlite").path, access: .read)).status().metrics == 3)
    }

    // MARK: 16, 17. An upload's failure says what would help; targets never reached, and forgotten

    @Test func aWrongURLAndARefusedTokenSayWhatWouldHelp() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let token = dir.appendingPathComponent("token").path
        try Data("a-token-of-sixteen-or-more".utf8).write(to: URL(fileURLWithPath: token))
        let serve = try ServeProcess(["--token-file", token], directory: dir)
        defer { _ = serve.stop() }
        // serve has no Flō endpoints under /api/v1: a wrong URL, not a failing server.
        let notFound = try CLI.run(["upload", "--store", store, "--server", "\(serve.url)/api/v1", "--target", "flo", "--token-file", token])
        #expect(notFound.status == 64, "\(notFound.stderr)")
        #expect(notFound.stderr.contains("404") && notFound.stderr.contains("check --server"), "\(notFound.stderr)")
        #expect(!notFound.stderr.contains("gave up") && !notFound.stderr.contains("upload again to continue"))
        let wrong = dir.appendingPathComponent("wrong").path
        try Data("not-the-token-at-all-xyz".utf8).write(to: URL(fileURLWithPath: wrong))
        let refused = try CLI.run(["upload", "--store", store, "--server", "\(serve.url)/api/v1", "--token-file", wrong])
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("Give the token the server expects") && !refused.stderr.contains("upload again to continue"))
        // Neither target acknowledged anything: shown as never reached, and forgettable.
        let status = try CLI.run(["status", "--store", store])
        #expect(String(decoding: status.stdout, as: UTF8.self).contains("never reached"))
        let forget = try CLI.run(["upload", "--store", store, "--server", "\(serve.url)/api/v1", "--target", "flo", "--forget"])
        #expect(forget.status == 0 && forget.stderr.contains("forgot flo"), "\(forget.stderr)")
        let targets = try #require(try json(try CLI.run(["status", "--store", store, "--json"]))["targets"] as? [[String: Any]])
        #expect(targets.map { $0["target"] as? String } == ["cloudcare"])
        #expect(targets.first?["reached"] as? Bool == false)
        #expect(try CLI.run(["upload", "--store", store, "--server", "http://nowhere.example", "--forget"]).status == 64)
    }

    // MARK: 19. Our words, not Foundation's

    @Test func errorsNameTheFileAndTheProblemInOurWords() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let folder = try CLI.run(["report", "--store", store, "-o", dir.path])
        #expect(folder.status == 74 && folder.stderr.contains("it is a folder"), "\(folder.stderr)")
        let png = try CLI.run(["pair", "--store", store, "--png", "/nonexistent-dir/p.png", "--no-qr"])
        #expect(png.status == 74 && png.stderr.contains("the folder /nonexistent-dir does not exist"), "\(png.stderr)")
        for result in [folder, png] { #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("The file")) }
        // An export.xml stored uncompressed with a byte changed: garbage to the parser, a CRC mismatch to the zip.
        var xml = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleXML))
        let index = xml.firstRange(of: Data("sourceName=".utf8))!.lowerBound
        xml.replaceSubrange(index..<index + 6, with: Data("value=".utf8))
        let zip = dir.appendingPathComponent("damaged.zip").path
        try storedZip(entry: "apple_health_export/export.xml", data: xml, crcOf: try Data(contentsOf: URL(fileURLWithPath: Paths.sampleXML)), to: zip)
        let damaged = try CLI.run(["convert", zip])
        #expect(damaged.status == 65)
        #expect(damaged.stderr.contains("damaged zip") && damaged.stderr.contains("CRC-32 mismatch"), "\(damaged.stderr)")
    }

    /// A zip of one stored entry whose header carries the CRC of `crcOf` (the bytes before damage).
    func storedZip(entry: String, data: Data, crcOf original: Data, to path: String) throws {
        func le(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let crc = Int(original.crc32(checksum: 0)), name = Array(entry.utf8)
        var out = [UInt8]()
        let local: [UInt8] = [0x50, 0x4B, 0x03, 0x04] + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(crc, 4) + le(data.count, 4)
            + le(data.count, 4) + le(name.count, 2) + le(0, 2)
        out += local + name + Array(data)
        let directoryOffset = out.count
        out += [0x50, 0x4B, 0x01, 0x02] + le(20, 2) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(crc, 4) + le(data.count, 4)
            + le(data.count, 4) + le(name.count, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(0, 4) + name
        let directorySize = out.count - directoryOffset
        out += [0x50, 0x4B, 0x05, 0x06] + le(0, 2) + le(0, 2) + le(1, 2) + le(1, 2) + le(directorySize, 4) + le(directoryOffset, 4) + le(0, 2)
        try Data(out).write(to: URL(fileURLWithPath: path))
    }

    // MARK: 22. The command line

    @Test func typeNamesAndDatesAreReadAsAPersonWritesThem() throws {
        func count(_ arguments: [String]) throws -> (Int32, Int, String) {
            let result = try CLI.run(["convert", CLI.sample] + arguments)
            return (result.status, result.lines.filter { !$0.isEmpty }.count, result.stderr)
        }
        let empty = try count(["--types", ""])
        #expect(empty.0 == 64 && empty.2.contains("names no type"))
        let steps = try count(["--types", "steps"]), stepCount = try count(["--types", "stepCount"])
        #expect(steps.0 == 0 && steps.1 == stepCount.1)
        #expect(try count(["--types", "sleep"]).1 == 5)
        #expect(try count(["--types", "HEARTRATE"]).1 == 3)
        let misspelt = try count(["--types", "HKQuantityTypeIdentifierHeartRat"])
        #expect(misspelt.0 == 64 && misspelt.2.contains("did you mean heartRate"), "\(misspelt.2)")
        let correlation = try count(["--types", "bloodPressure"])
        #expect(correlation.0 == 64 && correlation.2.contains("bloodPressureSystolic") && correlation.2.contains("--kind correlations"))
        let fraction = try count(["--since", "2024-11-02T12:05:10.5Z"]), whole = try count(["--since", "2024-11-02T12:05:11Z"])
        #expect(fraction.0 == 0 && fraction.1 == whole.1)
        #expect(try CLI.run(["convert", CLI.sample, "--format", "cloudcare", "--batch-size", "100000"]).status == 64)
        #expect(try CLI.run(["convert", CLI.sample, "--format", "cloudcare", "--batch-size", "1000"]).status == 0)
    }

    @Test func statusNamesTheLatestExportNotTheLastImported() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path
        func export(_ date: String, value: Int) throws -> String {
            try writeFile("""
                <?xml version="1.0" encoding="UTF-8"?>
                <HealthData locale="en_US">
                 <ExportDate value="\(date)"/>
                 <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-01-01 08:00:00 +0000" endDate="2024-01-01 08:10:00 +0000" value="\(value)"/>
                </HealthData>

                """, named: "export-\(value).xml", in: dir)
        }
        #expect(try CLI.run(["import", try export("2024-06-01 10:00:00 +0200", value: 1), "--store", store, "-q"]).status == 0)
        #expect(try CLI.run(["import", try export("2024-03-01 10:00:00 +0100", value: 2), "--store", store, "-q"]).status == 0)
        let text = String(decoding: try CLI.run(["status", "--store", store]).stdout, as: UTF8.self)
        #expect(text.contains("last export: 2024-06-01 10:00:00 +0200"), "\(text)")
    }
}
