import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Issue 9: every message true, every signal honoured, every mistake caught. One test (or more)
/// per item of the issue, through the built binary; a terminal where the terminal matters.
@Suite(.serialized) struct TruthfulCLITests {
    /// An export of `count` heart rates as bytes, without its closing tag when `open` (so that a
    /// reader waits for more).
    func export(count: Int, open: Bool = false) -> Data {
        var text = heartRateExport(count: count)
        if open { text = String(text.dropLast("</HealthData>\n".count)) }
        return Data(text.utf8)
    }

    func importedStore() throws -> (dir: URL, store: String) {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        return (dir, store)
    }

    // MARK: 1. Signals while standard input stalls; a terminal as standard input

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalStopsAConversionWhoseInputStalls(_ signal: Int32) throws {
        let out = try makeTemporaryDirectory().appendingPathComponent("out.jsonl")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let run = try StalledInput(["convert", "-"], first: export(count: 12_000, open: true),
                                   stdout: try FileHandle(forWritingTo: out))
        Thread.sleep(forTimeInterval: 1)
        #expect(run.process.isRunning, "the conversion should be waiting for more input")
        let result = run.interrupt(with: signal)
        // 130: it stopped by itself (one that did not hear it would be killed after 20 s: 137).
        #expect(result.status == 130, "\(result.stderr) after \(result.seconds) s")
        #expect(result.stderr.contains("interrupted"))
        let written = try Data(contentsOf: out)
        #expect(written.last == UInt8(ascii: "\n"))              // whole lines only
        #expect(written.split(separator: UInt8(ascii: "\n")).count > 10_000)
    }

    @Test func aSignalStopsAnImportWhoseInputStallsAndRecordsItAsInterrupted() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        let run = try StalledInput(["import", "-", "--store", store], first: export(count: 5000, open: true))
        Thread.sleep(forTimeInterval: 1)
        let result = run.interrupt(with: SIGINT)
        #expect(result.status == 130, "\(result.stderr) after \(result.seconds) s")
        // 4. The message says what happened: an interruption, not damage.
        #expect(result.stderr.contains("recorded as interrupted"))
        #expect(!result.stderr.contains("damage"))
        #expect(!result.stderr.contains("failed"))
        #expect(try StatusQuery(StagingStore(path: store, access: .read)).status().imports.first?.outcome == "interrupted")
    }

    @Test func aTerminalAsStandardInputIsRefusedAtOnce() throws {
        let run = try TerminalRun(["convert", "-"], stdinIsTerminal: true)
        let (status, screen) = run.finish(timeout: 10)
        #expect(status == 64)
        #expect(screen.contains("standard input is a terminal"))
    }

    // MARK: 2, 3. CloudCare batches into a folder

    @Test func aFolderWithAnEarlierRunsBatchesIsRefusedUnlessForced() throws {
        let dir = try makeTemporaryDirectory().appendingPathComponent("batches")
        let first = "11111111-1111-1111-1111-111111111111", second = "22222222-2222-2222-2222-222222222222"
        let one = try CLI.run(["convert", CLI.sample, "--format", "cloudcare", "--batch-size", "5", "-o", dir.path, "--user-id", first])
        #expect(one.status == 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(before.count == 5)
        // Fewer, larger batches into the same folder: refused, and nothing touched.
        let refused = try CLI.run(["convert", CLI.sample, "--format", "cloudcare", "--batch-size", "10", "-o", dir.path, "--user-id", second])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("not empty"))
        #expect(refused.stderr.contains("--force"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == before)
        // --force: the folder holds this run's batches only, every one with the new userId.
        let forced = try CLI.run(["convert", CLI.sample, "--format", "cloudcare", "--batch-size", "10", "-o", dir.path,
                                  "--user-id", second, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(files == ["batch-000001.json", "batch-000002.json", "batch-000003.json"])
        for file in files {
            let envelope = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent(file))) as? [String: Any]
            #expect(envelope?["userId"] as? String == second)
        }
        // export shares the rule.
        let (_, store) = try importedStore()
        #expect(try CLI.run(["export", "--store", store, "--format", "cloudcare", "-o", dir.path]).status == 73)
    }

    @Test func anInterruptedCloudCareConversionSaysThatNoBatchWasWritten() throws {
        let dir = try makeTemporaryDirectory().appendingPathComponent("batches")
        let run = try StalledInput(["convert", "-", "--format", "cloudcare", "-o", dir.path], first: export(count: 3000, open: true))
        Thread.sleep(forTimeInterval: 1)
        let result = run.interrupt(with: SIGINT)
        #expect(result.status == 130)
        #expect(result.stderr.contains("no batch was written"), "\(result.stderr)")
        #expect(!result.stderr.contains("all written"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    // MARK: 5, 12, 13. What status calls pending is what upload sends; dry runs leave no trace

    @Test func statusCountsPendingAsEachUploadWouldSend() throws {
        let (dir, store) = try importedStore()
        let serve = try ServeProcess(["--recommended-start-date", "2024-11-02T00:00:00.000Z"], directory: dir)
        defer { _ = serve.stop() }
        let steps = try CLI.run(["upload", "--store", store, "--server", serve.url, "--target", "steps"])
        #expect(steps.status == 0, "\(steps.stderr)")
        #expect(steps.stderr.contains("uploaded 1 metric in 1 batch "), "\(steps.stderr)")   // the sample's one valid step count
        let flo = try CLI.run(["upload", "--no-token", "--store", store, "--server", serve.url, "--target", "flo"])
        #expect(flo.status == 0, "\(flo.stderr)")
        let inWindow = try serve.storeCount()
        // 12. The window is said, with what it leaves out.
        #expect(flo.stderr.contains("window starts at 2024-11-02T00:00:00.000Z"))
        #expect(flo.stderr.contains("\(24 - inWindow) metrics before it are not sent"))
        let status = try CLI.run(["status", "--store", store, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        let targets = try #require(json["targets"] as? [[String: Any]])
        #expect(targets.count == 2)
        for target in targets { #expect(target["pending"] as? Int == 0, "\(target)") }
        // And what upload would send now is nothing, for both.
        for target in ["steps", "flo"] {
            let again = try CLI.run(["upload", "--no-token", "--store", store, "--server", serve.url, "--target", target, "--dry-run"])
            #expect(again.stderr.contains("nothing to upload"), "\(again.stderr)")
        }
    }

    @Test func aDryRunWritesNothingAndAsksNoServer() throws {
        let (dir, store) = try importedStore()
        let serve = try ServeProcess([], directory: dir)
        defer { _ = serve.stop() }
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        for target in ["cloudcare", "flo", "steps"] {
            let dry = try CLI.run(["upload", "--store", store, "--server", serve.url, "--target", target, "--dry-run"])
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stderr.contains("nothing sent"))
        }
        #expect(try serve.count("SELECT count(*) FROM request_log") == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        #expect(try StatusQuery(StagingStore(path: store, access: .read)).status().targets.isEmpty)
    }

    // MARK: 6, 16. Missing stores and inputs

    @Test func aMissingStoreIsNeverCreatedByUploadOrStatus() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("none.sqlite").path
        for arguments in [["upload", "--server", "http://127.0.0.1:9", "--no-token"], ["upload", "--server", "http://127.0.0.1:9", "--dry-run"],
                          ["status"], ["export"], ["aggregate", "--bucket", "day"]] {
            let result = try CLI.run(arguments + ["--store", store])
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("no store there yet"))
            #expect(!FileManager.default.fileExists(atPath: store), "\(arguments) created a store")
        }
        // An import of a file that does not exist creates no store and records no run.
        let missing = try CLI.run(["import", dir.appendingPathComponent("nope.zip").path, "--store", store])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("No such file"))
        #expect(!missing.stderr.contains("damage"))
        #expect(!FileManager.default.fileExists(atPath: store))
        // A folder given as the store is named as such.
        let folder = try CLI.run(["status", "--store", dir.path])
        #expect(folder.status == 66)
        #expect(folder.stderr.contains("it is a folder"))
        #expect(!folder.stderr.contains("disk I/O"))
    }

    // MARK: 7. serve on a port in use

    @Test func serveOnAPortInUseSaysSoWithItsExitCode() throws {
        let dir = try makeTemporaryDirectory()
        let first = try ServeProcess([], directory: dir)
        defer { _ = first.stop() }
        let second = try CLI.run(["serve", "--port", String(first.port), "--db", dir.appendingPathComponent("b.sqlite").path])
        #expect(second.status == 69)
        #expect(second.stderr.contains("port is in use"), "\(second.stderr)")
        #expect(!second.stderr.contains("errno"))
        #expect(!second.stderr.contains("bind(descriptor"))
    }

    /// Safe by default: beyond loopback only with a token, or a loudly named flag.
    @Test func serveRefusesTheNetworkWithoutAToken() throws {
        let dir = try makeTemporaryDirectory()
        let db = dir.appendingPathComponent("open.sqlite").path
        let refused = try CLI.run(["serve", "--host", "0.0.0.0", "--port", "0", "--db", db])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("refusing to listen on 0.0.0.0 without a token"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
        let tokenFile = dir.appendingPathComponent("token").path
        try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        for arguments in [["--token-file", tokenFile], ["--open-to-the-network-without-a-token"]] {
            let served = try ServeProcess(["--host", "0.0.0.0"] + arguments, directory: dir)
            let health = try CLI.run(["-s", "http://127.0.0.1:\(served.port)/health"], tool: "/usr/bin/curl")
            #expect(String(decoding: health.stdout, as: UTF8.self).contains("ok"), "\(arguments)")
            _ = served.stop()
        }
    }

    // MARK: 9. No token

    @Test func anUploadWithoutATokenSaysSoBeforeSendingAnything() throws {
        let (dir, store) = try importedStore()
        let serve = try ServeProcess([], directory: dir)
        defer { _ = serve.stop() }
        for target in ["cloudcare", "flo"] {
            let result = try CLI.run(["upload", "--store", store, "--server", serve.url, "--target", target])
            #expect(result.status == 64)
            #expect(result.stderr.contains("no token given"))
            #expect(result.stderr.contains("CLOUDSYNC_TOKEN"))
            #expect(result.stderr.contains("--token-file"))
        }
        #expect(try serve.count("SELECT count(*) FROM request_log") == 0)
    }

    // MARK: 10, 11. Filters

    @Test func typeNamesAreCheckedAndSplitOnSpaces() throws {
        // Case does not matter (issue 22: types are found as people write them); a typo is refused.
        for name in ["heartrate", "HKQuantityTypeIdentifierHeartrate"] {
            let result = try CLI.run(["convert", CLI.sample, "--types", name])
            #expect(result.status == 0, "\(name)")
            #expect(result.lines.filter { !$0.isEmpty }.count == 3)
        }
        for name in ["heartrat", "HKQuantityTypeIdentifierHeartRat"] {
            let result = try CLI.run(["convert", CLI.sample, "--types", name])
            #expect(result.status == 64, "\(name)")
            #expect(result.stderr.contains("did you mean heartRate"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let spaced = try CLI.run(["convert", CLI.sample, "--types", "heartRate stepCount"])
        let commas = try CLI.run(["convert", CLI.sample, "--types", "heartRate,stepCount"])
        #expect(spaced.status == 0)
        #expect(spaced.stdout == commas.stdout)
        #expect(spaced.lines.dropLast().count == 4)   // the sample's valid heart rates and step counts
        // A second word after --types is no longer taken as a type while the path is lost.
        let swallowed = try CLI.run(["convert", "--types", "heartRate", "stepCount", CLI.sample])
        #expect(swallowed.status == 64)
    }

    @Test func datesAreCheckedAgainstEachOtherAndForAZone() throws {
        let reversed = try CLI.run(["convert", CLI.sample, "--since", "2025-01-01", "--until", "2024-01-01"])
        #expect(reversed.status == 64)
        #expect(reversed.stderr.contains("is not before --until"))
        let noZone = try CLI.run(["convert", CLI.sample, "--since", "2024-11-02T08:00:00"])
        #expect(noZone.status == 64)
        #expect(noZone.stderr.contains("has no time zone"))
        let bad = try CLI.run(["convert", CLI.sample, "--since", "last tuesday"])
        #expect(bad.stderr.contains("2024-01-01 (midnight), 2024-01-01T08:00:00Z or 2024-01-01 08:00:00 +0100"))
        let zoned = try CLI.run(["convert", CLI.sample, "--since", "2024-11-02T08:00:00+01:00"])
        #expect(zoned.status == 0, "\(zoned.stderr)")
    }

    // MARK: 14. Types CloudCare does not keep

    @Test func typesCloudCareDropsAreLeftOutOrReportedNeverLostUnseen() throws {
        let (dir, store) = try importedStore()
        let serve = try ServeProcess(["--drop-unknown-types"], directory: dir)
        defer { _ = serve.stop() }
        // By default they are left out up front, and said.
        let upload = try CLI.run(["upload", "--no-token", "--store", store, "--server", "\(serve.url)/api/v1"])
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(upload.stderr.contains("left out 4 metrics of types CloudCare does not keep"), "\(upload.stderr)")
        #expect(upload.stderr.contains("activitySummary 2"))
        #expect(try serve.storeCount() == 20)
        var text = try CLI.run(["status", "--store", store]).stderr + String(decoding: try CLI.run(["status", "--store", store]).stdout, as: UTF8.self)
        #expect(text.contains("0 pending; 4 metrics of types it does not take left out"), "\(text)")
        // Sent anyway with --all-types: what the server did not take is reported, per type, and not pending.
        let all = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", "\(serve.url)/api/v1"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stderr.contains("the server acknowledged but did not take 4 metrics"), "\(all.stderr)")
        #expect(all.stderr.contains("bodyTemperature 1"))
        text = String(decoding: try CLI.run(["status", "--store", store]).stdout, as: UTF8.self)
        #expect(text.contains("the server did not take 4 (activitySummary 2, bodyTemperature 1, height 1)"), "\(text)")
        let again = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", "\(serve.url)/api/v1"])
        #expect(again.stderr.contains("nothing to upload"))
    }

    // MARK: 15. Network errors in the tool's words

    @Test func networkErrorsReadAsSentences() throws {
        let (dir, store) = try importedStore()
        let refused = try CLI.run(["upload", "--no-token", "--store", store, "--server", "http://127.0.0.1:9", "--max-attempts", "2", "--retry-delay", "0.05"])
        #expect(refused.status == 69)
        #expect(refused.stderr.contains("nothing listens at 127.0.0.1:9"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("errno"))
        // https to a plain-HTTP server: a TLS failure, said plainly.
        let serve = try ServeProcess([], directory: dir)
        defer { _ = serve.stop() }
        let tls = try CLI.run(["upload", "--no-token", "--store", store, "--server", "https://127.0.0.1:\(serve.port)",
                               "--max-attempts", "2", "--retry-delay", "0.05", "--timeout", "2"])
        #expect(tls.status == 69)
        #expect(tls.stderr.contains("TLS"), "\(tls.stderr)")
        #expect(!tls.stderr.contains(".build/"))
        #expect(!tls.stderr.contains("BoringSSL"))
    }

    // MARK: 17. inspect of a damaged export

    @Test func inspectDescribesADamagedExportUpToTheDamage() throws {
        let xml = try Data(contentsOf: CLI.repository.appendingPathComponent("samples/export.xml"))
        let cut = try makeTemporaryDirectory().appendingPathComponent("cut.xml")
        try xml.prefix(xml.count * 3 / 4).write(to: cut)
        let text = try CLI.run(["inspect", cut.path])
        #expect(text.status == 65)
        let out = String(decoding: text.stdout, as: UTF8.self)
        #expect(out.contains("DAMAGED:"))
        #expect(out.contains("metrics by type:"))
        #expect(text.stderr.contains("damaged XML"))
        #expect(!text.stderr.contains("stopped after"))
        let json = try CLI.run(["inspect", cut.path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect((object["damage"] as? String)?.contains("cut.xml") == true)
        #expect((object["metrics"] as? Int ?? 0) > 10)
    }

    // MARK: 18. Counts and summaries

    @Test func summariesSayWhatHappenedInGoodEnglish() throws {
        let one = try makeTemporaryDirectory().appendingPathComponent("one.xml")
        try Data(heartRateExport(count: 1).utf8).write(to: one)
        let single = try CLI.run(["convert", one.path])
        #expect(single.stderr.contains("1 metric from"))
        #expect(!single.stderr.contains("1 metrics"))
        let missing = try CLI.run(["convert", "/nonexistent/export.zip"])
        #expect(!missing.stderr.contains("stopped after"))
        let (_, store) = try importedStore()
        let exported = try CLI.run(["export", "--store", store])
        #expect(exported.stderr.contains("exported 24 metrics from"), "\(exported.stderr)")
        let nothing = try CLI.run(["upload", "--store", store, "--server", "http://127.0.0.1:9", "--no-token", "--types", "restingHeartRate"])
        #expect(nothing.status == 0)
        #expect(nothing.stderr.contains("nothing to upload"), "\(nothing.stderr)")
        #expect(!nothing.stderr.contains("0 batches"))
    }

    // MARK: 8, 19. Help, usage, commands

    @Test func everyCommandsHelpListsItsOwnExitCodesAndFitsTheTerminal() throws {
        let codes: [String: [Int]] = [
            "convert": [0, 64, 65, 66, 73, 74, 130], "inspect": [0, 64, 65, 66, 130],
            "import": [0, 64, 65, 66, 70, 73, 74, 75, 130], "status": [0, 64, 65, 66, 70], "export": [0, 64, 65, 66, 70, 73, 74],
            "aggregate": [0, 64, 65, 66, 70], "upload": [0, 64, 65, 66, 69, 70, 73, 75, 77, 130], "serve": [0, 64, 65, 69, 70, 73, 75, 77],
            "pair": [0, 64, 65, 66, 69, 70, 73, 74, 75, 77],
        ]
        let readme = try String(contentsOf: CLI.repository.appendingPathComponent("README.md"), encoding: .utf8)
        for (command, expected) in codes {
            let help = try CLI.run([command, "--help"], environment: ["COLUMNS": "80"])
            #expect(help.status == 0)
            let text = String(decoding: help.stdout, as: UTF8.self)
            #expect(!text.contains("\\("), "\(command) help has an uninterpolated string")
            for line in text.split(separator: "\n") { #expect(line.count <= 80, "\(command): \(line)") }
            let section = try #require(text.components(separatedBy: "Exit status:").dropFirst().first, "\(command)")
            let listed = section.split(separator: "\n").prefix { $0.hasPrefix("  ") }.compactMap { Int($0.split(separator: " ").first ?? "") }
            #expect(listed == expected, "\(command)")
            for code in expected where code != 0 { #expect(readme.contains("| \(code) |"), "README lacks \(code)") }
        }
        // Examples are never cut in the middle of a command.
        let convertHelp = String(decoding: try CLI.run(["convert", "--help"], environment: ["COLUMNS": "80"]).stdout, as: UTF8.self)
        #expect(convertHelp.contains("  cloudsync convert export.zip --format cloudcare --output batches/\n"))
    }

    @Test func mistakesGetTheCommandsOwnUsage() throws {
        let bare = try CLI.run([])
        #expect(bare.status == 64)
        #expect(bare.stderr.contains("no command given"))
        let typo = try CLI.run(["conver", CLI.sample])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("did you mean 'convert'?"))
        // An error found while running names the command's help, not the root usage.
        let faults = try CLI.run(["serve", "--faults", "nonsense", "--port", "0"])
        #expect(faults.status == 64)
        #expect(faults.stderr.contains("cloudsync serve --help"))
        #expect(!faults.stderr.contains("USAGE: cloudsync <subcommand>"))
        let token = try CLI.run(["upload", "--server", "http://127.0.0.1:9", "--token-file", "/nonexistent/token"])
        #expect(token.status == 64)
        #expect(token.stderr.contains("cloudsync upload"))
        // --quiet's help says what it does: the summary stays when records were skipped.
        let quiet = try CLI.run(["convert", CLI.sample, "-q"])
        #expect(quiet.stderr.contains("skipped 2 invalid records"))
        #expect(String(decoding: try CLI.run(["convert", "--help"]).stdout, as: UTF8.self).contains("unless records were skipped"))
    }

    // MARK: 20. Progress, status history, serve's log, pair

    @Test func progressShowsPercentAndETAWithinTheTerminalsWidth() throws {
        let input = try makeTemporaryDirectory().appendingPathComponent("big.xml")
        try export(count: 400_000).write(to: input)
        let run = try TerminalRun(["convert", input.path], columns: 50)
        let (status, screen) = run.finish(timeout: 120)
        #expect(status == 0)
        let updates = screen.components(separatedBy: "\r").map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
            .filter { $0.contains("metrics") && !$0.contains("from") }
        #expect(!updates.isEmpty, "no progress line in \(screen.prefix(500))")
        #expect(updates.contains { $0.contains("%") && $0.contains("ETA") }, "\(updates)")
        for line in updates { #expect(line.count < 50, "\(line)") }
    }

    @Test func statusListsOneRowPerUploadRun() throws {
        let (dir, store) = try importedStore()
        let serve = try ServeProcess([], directory: dir)
        defer { _ = serve.stop() }
        #expect(try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", "\(serve.url)/api/v1", "--batch-size", "5"]).status == 0)
        let text = String(decoding: try CLI.run(["status", "--store", store]).stdout, as: UTF8.self)
        let rows = text.components(separatedBy: "recent uploads:\n")[1].split(separator: "\n")
        #expect(rows.count == 1)
        #expect(rows.first?.contains("ok: 24 metrics in 5 batches") == true, "\(rows)")
    }

    @Test func serveLogsEachRequestWithItsStatusAndSaysListeningOnce() throws {
        let dir = try makeTemporaryDirectory()
        let serve = try ServeProcess([], directory: dir)
        _ = try serve.request("GET", "/health")
        _ = try serve.request("POST", "/steps", json: ["samples": "not a list"])
        #expect(serve.stop() == 0)
        let log = serve.log
        #expect(log.components(separatedBy: "listening").count == 2, "\(log)")
        #expect(log.contains("GET /health 200"), "\(log)")
        #expect(log.contains("POST /steps 400"), "\(log)")
    }

    @Test func pairInATerminalShowsTheCodeAndItsExpiry() throws {
        let (_, store) = try importedStore()
        let out = try makeTemporaryDirectory().appendingPathComponent("pair.json")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let run = try TerminalRun(["pair", "--store", store], stdout: try FileHandle(forWritingTo: out))
        let (status, screen) = run.finish(timeout: 20)
        #expect(status == 0)
        let pairing = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any])
        let code = try #require(pairing["pairingCode"] as? String)
        #expect(screen.contains("pairing code \(code), expires "), "\(screen.suffix(300))")
        #expect(screen.contains("(in 15 minutes)"))
    }
}
