import CloudSyncModel
import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Issue 22, items 1–7: no mistake a user types destroys a file or loses data without a word.
/// Everything through the built binary, as a user runs it.
@Suite struct NothingLostTests {
    func importedStore() throws -> (dir: URL, store: String) {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        let result = try CLI.run(["import", CLI.sample, "--store", store, "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        return (dir, store)
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    // MARK: 1. An output that is an input or the store is refused; outputs appear whole or not at all

    /// After `import` (and `upload`) ends, the store's file alone is the whole store: a copy of
    /// `staging.sqlite` made without its `-wal`, as people back files up, holds every metric and
    /// every acknowledgement.
    @Test func theStoresFileAloneIsTheWholeStoreOnceACommandEnds() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        let serve = try ServeProcess([], directory: dir)
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let upload = try CLI.run(["upload", "--no-token", "--store", store, "--server", "\(serve.url)/api/v1", "-q"])
        #expect(upload.status == 0, "\(upload.stderr)")
        _ = serve.stop()
        let wal = (try? FileManager.default.attributesOfItem(atPath: store + "-wal")[.size] as? Int) ?? 0
        #expect(wal == 0, "the log still holds \(wal) bytes")
        let copy = try makeTemporaryDirectory("copy").appendingPathComponent("backup.sqlite").path
        try FileManager.default.copyItem(atPath: store, toPath: copy)
        let status = try CLI.run(["status", "--store", copy, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any], "\(status.stderr)")
        #expect(json["metrics"] as? Int == 24)
        #expect(json["pending"] as? Int == 0)
    }

    @Test func anOutputThatIsTheInputIsRefusedAndTheInputKept() throws {
        let dir = try makeTemporaryDirectory()
        let export = dir.appendingPathComponent("export.zip").path
        try FileManager.default.copyItem(atPath: CLI.sample, toPath: export)
        let original = bytes(export)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link.zip").path, withDestinationPath: export)
        try FileManager.default.linkItem(atPath: export, toPath: dir.appendingPathComponent("hard.zip").path)
        for output in ["export.zip", "link.zip", "hard.zip"] {
            let result = try CLI.run(["convert", export, "-o", dir.appendingPathComponent(output).path])
            #expect(result.status == 64, "\(output): \(result.stderr)")
            #expect(result.stderr.contains("is the input"), "\(result.stderr)")
            #expect(bytes(export) == original, "\(output) changed the export")
        }
        // Standard input redirected from the export, and standard output appended to it.
        let appended = try run(["convert", "-"], stdin: export, stdout: export, append: true)
        #expect(appended.status == 64, "\(appended.stderr)")
        #expect(bytes(export) == original)
        // A CSV folder whose files this run would replace, holding the input under such a name.
        let folder = dir.appendingPathComponent("by-type")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: export, toPath: folder.appendingPathComponent("steps.csv").path)
        let csv = try CLI.run(["convert", folder.appendingPathComponent("steps.csv").path, "--format", "csv", "-o", folder.path + "/", "--force"])
        #expect(csv.status == 64, "\(csv.stderr)")
        #expect(bytes(folder.appendingPathComponent("steps.csv").path) == original)
    }

    @Test func anOutputThatIsTheStoreOrOneOfItsFilesIsRefused() throws {
        let (dir, store) = try importedStore()
        let original = bytes(store)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link").path, withDestinationPath: store)
        let attempts: [[String]] = [
            ["report", "--store", store, "-o", store],
            ["export", "--store", store, "-o", store],
            ["export", "--store", store, "-o", dir.appendingPathComponent("link").path],
            ["export", "--store", store, "-o", store + "-wal"],            // not there now, SQLite's while it is open
            ["export", "--store", store, "-o", store + ".lock", "--kind", "routes"],
            ["pair", "--store", store, "--png", store, "--no-qr"],
        ]
        for arguments in attempts {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("refusing"), "\(arguments): \(result.stderr)")
        }
        for arguments in [["status", "--store", store], ["status", "--store", store, "--json"], ["export", "--store", store],
                          ["aggregate", "--store", store, "--bucket", "day"]] {
            let result = try run(arguments, stdout: store, append: true)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
        }
        #expect(bytes(store) == original)
        #expect(try CLI.run(["status", "--store", store]).status == 0)
    }

    @Test func aFailedRunLeavesThePreviousOutputAndKeepsWhatItReadAsPartial() throws {
        let dir = try makeTemporaryDirectory()
        let xml = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleXML))
        let cut = dir.appendingPathComponent("cut.xml")
        try xml.prefix(xml.count * 3 / 4).write(to: cut)
        let out = dir.appendingPathComponent("metrics.jsonl").path
        try Data("the previous output\n".utf8).write(to: URL(fileURLWithPath: out))
        let result = try CLI.run(["convert", cut.path, "-o", out])
        #expect(result.status == 65)
        #expect(bytes(out) == Data("the previous output\n".utf8))
        let partial = try #require(bytes(out + ".partial"))
        #expect(partial.last == UInt8(ascii: "\n") && partial.split(separator: UInt8(ascii: "\n")).count > 15)
        #expect(result.stderr.contains("metrics.jsonl.partial (\(out) is left as it was)"), "\(result.stderr)")
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["cut.xml", "metrics.jsonl", "metrics.jsonl.partial"])
        // A complete run replaces it.
        #expect(try CLI.run(["convert", CLI.sample, "-o", out]).status == 0)
        #expect(bytes(out)?.split(separator: UInt8(ascii: "\n")).count == 24)
        // An earlier run's CSV files stay until a run that replaces them is complete.
        let folder = dir.appendingPathComponent("by-type").path + "/"
        #expect(try CLI.run(["convert", CLI.sample, "--format", "csv", "-o", folder]).status == 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let heartRate = bytes(folder + "heartRate.csv")
        let failed = try CLI.run(["convert", cut.path, "--format", "csv", "-o", folder, "--force"])
        #expect(failed.status == 65)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == before)
        #expect(bytes(folder + "heartRate.csv") == heartRate)
    }

    // MARK: 2. A command that only reads never makes a store

    @Test func anEmptyFileOrAnotherDatabaseIsNoStoreAndIsLeftAsItIs() throws {
        let dir = try makeTemporaryDirectory()
        let empty = dir.appendingPathComponent("empty.sqlite").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        for arguments in [["status"], ["status", "--json"], ["export"], ["aggregate", "--bucket", "day"], ["report", "-o", dir.appendingPathComponent("r.html").path],
                          ["pair", "--no-qr"], ["upload", "--server", "http://127.0.0.1:9", "--no-token"]] {
            let result = try CLI.run(arguments + ["--store", empty])
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("the file is empty"), "\(arguments): \(result.stderr)")
            #expect(bytes(empty) == Data())
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["empty.sqlite"])
        // Another program's SQLite database.
        let other = dir.appendingPathComponent("other.sqlite").path
        _ = try CLI.run(["python3", "-c", "import sqlite3; c = sqlite3.connect('\(other)'); c.execute('create table notes(x)'); c.commit()"],
                        tool: "/usr/bin/env")
        let before = try #require(bytes(other))
        let result = try CLI.run(["status", "--store", other])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("not a cloudsync store"))
        #expect(bytes(other) == before)
        // pair never makes a store with a new identity.
        let typo = dir.appendingPathComponent("typo.sqlite").path
        let pair = try CLI.run(["pair", "--store", typo, "--no-qr"])
        #expect(pair.status == 66 && pair.stderr.contains("no store there yet"), "\(pair.stderr)")
        #expect(!FileManager.default.fileExists(atPath: typo))
        // An import makes a store of the empty file.
        #expect(try CLI.run(["import", CLI.sample, "--store", empty, "-q"]).status == 0)
        #expect(try CLI.run(["status", "--store", empty]).status == 0)
    }

    // MARK: 3. Standard input redirected from a file is read as the file

    @Test func aRedirectedZipIsReadWholeAsThePathIs() throws {
        let archive = try ArchiveKindsCLITests().archive()
        for kind in ["routes", "ecg", "clinical", "metrics"] {
            let byPath = try CLI.run(["convert", archive, "--kind", kind])
            let redirected = try CLI.run(["convert", "-", "--kind", kind], stdinFile: archive)
            #expect(redirected.status == 0, "\(kind): \(redirected.stderr)")
            #expect(redirected.stdout == byPath.stdout, "\(kind)")
        }
        let routes = try CLI.run(["convert", "-", "--kind", "routes"], stdinFile: archive)
        #expect(routes.stderr.contains("2 routes"))
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path
        let imported = try CLI.run(["import", "-", "--store", store], stdinFile: archive)
        #expect(imported.status == 0, "\(imported.stderr)")
        let status = try StatusQuery(StagingStore(path: store, access: .read)).status()
        #expect(status.records["routes"]?.records == 2 && status.records["ecg"]?.records == 1 && status.metrics == 24)
        // Through a real pipe the same.
        let piped = try CLI.run(["convert", "-", "--kind", "ecg"], stdinBytes: try Data(contentsOf: URL(fileURLWithPath: archive)))
        #expect(piped.stdout == (try CLI.run(["convert", archive, "--kind", "ecg"])).stdout)
    }

    // MARK: 4, 5. iOS 8's daily heart-rate summaries; a category sample's category is part of its identity

    // Library behaviour, checked through the library: IOS8DialectTests (CloudSyncExportTests),
    // StagingStoreTests and RepeatedSampleTests (CloudSyncStoreTests).

    // MARK: 6. A full disk on standard output

    @Test func aFullDiskOnStandardOutputIsExitSeventyFourWithASentence() throws {
        let (_, store) = try importedStore()
        let commands: [[String]] = [
            ["convert", CLI.sample], ["inspect", CLI.sample], ["inspect", CLI.sample, "--json"],
            ["status", "--store", store], ["status", "--store", store, "--json"], ["export", "--store", store],
            ["aggregate", "--store", store, "--bucket", "day"], ["aggregate", "--store", store, "--bucket", "day", "--format", "jsonl"],
            ["pair", "--store", store, "--no-qr"], ["convert", CLI.sample, "--kind", "routes"],
        ]
        for arguments in commands {
            let result = try run(arguments, stdout: "/dev/full")
            #expect(result.status == 74, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("cannot write to standard output: No space left on device"), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("written to standard output"), "\(arguments)")
        }
    }

    // MARK: 7. Ctrl-C reaches the whole pipeline

    /// `(head -c 300000 export.xml; sleep 30) | cloudsync …` in one process group, sent SIGINT as a
    /// terminal sends it: the writer dies too, and its end of file is no damage.
    @Test(arguments: ["convert", "import"])
    func ctrlCOnAPipelineIsAnInterruptionNotDamage(_ command: String) throws {
        let dir = try makeTemporaryDirectory()
        let xml = dir.appendingPathComponent("export.xml")
        try Data(heartRateExport(count: 4000).utf8).write(to: xml)
        let store = dir.appendingPathComponent("s.sqlite").path
        let arguments = command == "import" ? ["import", "-", "--store", store] : ["convert", "-"]
        for attempt in 1...3 {
            let pipeline = try Pipeline(writer: "head -c 300000 '\(xml.path)'; sleep 30", reader: arguments)
            Thread.sleep(forTimeInterval: 1.5)
            let (status, stderr) = pipeline.interrupt()
            #expect(status == 130, "attempt \(attempt): \(stderr)")
            #expect(stderr.contains("interrupted") && !stderr.contains("damaged"), "attempt \(attempt): \(stderr)")
        }
        if command == "import" {
            #expect(try StatusQuery(StagingStore(path: store, access: .read)).status().imports.allSatisfy { $0.outcome == "interrupted" })
        }
    }

    // MARK: Helpers

    /// Runs cloudsync with standard input from a file and standard output into a file (appended).
    func run(_ arguments: [String], stdin: String? = nil, stdout: String, append: Bool = false) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = arguments
        let fd = open(stdout, O_WRONLY | (append ? O_APPEND : 0))
        guard fd >= 0 else { throw POSIXError(.ENOENT) }
        process.standardOutput = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        process.standardInput = stdin.map { FileHandle(forReadingAtPath: $0)! } ?? FileHandle.nullDevice
        let err = Pipe()
        process.standardError = err
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
