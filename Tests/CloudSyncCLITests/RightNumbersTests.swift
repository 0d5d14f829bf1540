import CloudSyncModel
import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Issue 22: the numbers and the words a user reads are right (items 9, 13, 14, 16, 17, 19, 22),
/// through the built binary. The numbers themselves, computed by the library, are checked there
/// (CloudSyncStoreTests, CloudSyncExportTests); here, what the commands make of them.
@Suite struct RightNumbersTests {
    func json(_ result: CLIResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderr)")
    }

    func csvRows(_ result: CLIResult) -> [[String]] {
        String(decoding: result.stdout, as: UTF8.self).split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",").map(String.init) }
    }

    // MARK: 9. A date without a time is a midnight in --tz; a window never changes a bucket

    /// `--since 2021-03-02` in Paris is that day's first instant there: the window's first bucket is
    /// the whole local day. (That a window of local days gives the buckets no window gives, merged or
    /// not: AggregationTests, in CloudSyncStoreTests.)
    @Test func aDateWithoutATimeIsAMidnightInTheZone() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try CLI.run(["import", try writeFile(ExportTexts.halfHourlySteps(), in: dir), "--store", store, "-q"]).status == 0)
        let window = csvRows(try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--tz", "Europe/Paris", "--types", "steps",
                                          "--format", "csv", "--since", "2021-03-02", "--until", "2021-03-04"]))
        #expect(window.map { $0[1] } == ["2021-03-02", "2021-03-03"])     // no partial 2021-03-04
        #expect(window.first?[3] == "48")                                  // 48 half hours, the first included
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

    /// Even a quiet import says that samples are dated after the export. (What inspect reports of
    /// them, and that they are kept: InspectReportTests and StagingStoreTests.)
    @Test func samplesDatedAfterTheExportAreSaidEvenByAQuietImport() throws {
        let dir = try makeTemporaryDirectory()
        let input = try writeFile(ExportTexts.samplesAfterTheExport, in: dir)
        let imported = try CLI.run(["import", input, "--store", dir.appendingPathComponent("s.sqlite").path, "-q"])
        #expect(imported.status == 0 && imported.stderr.contains("2 samples dated after the export"), "\(imported.stderr)")
        #expect(String(decoding: try CLI.run(["inspect", input]).stdout, as: UTF8.self).contains("2 samples dated after the export"))
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
        // An export.xml stored uncompressed with a byte changed: garbage to the parser, a CRC mismatch
        // to the zip, which the converter says (BadInputTests); the command exits 65 with its words.
        let original = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleXML))
        var xml = original
        let index = xml.firstRange(of: Data("sourceName=".utf8))!.lowerBound
        xml.replaceSubrange(index..<index + 6, with: Data("value=".utf8))
        let zip = dir.appendingPathComponent("damaged.zip")
        try RawZip(entries: [.init(path: "apple_health_export/export.xml", data: xml, crc32: crc32(original))]).bytes.write(to: zip)
        let damaged = try CLI.run(["convert", zip.path])
        #expect(damaged.status == 65)
        #expect(damaged.stderr.contains("damaged zip") && damaged.stderr.contains("CRC-32 mismatch"), "\(damaged.stderr)")
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
}
