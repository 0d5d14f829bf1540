import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Health data is readable by its owner alone, whatever the umask: stores, the receiver's
/// database, their WAL and lock files and the steps files are made 0600, folders made for them 0700;
/// a tokens file others can read is said. And a serve that cannot start leaves no file behind.
@Suite struct PrivateFilesTests {
    /// cloudsync under the usual umask (022), which would make files 0644.
    static func runWithUsualUmask(_ arguments: [String], directory: URL? = nil) throws -> CLIResult {
        try CLI.run(["-c", "umask 022; exec \"$0\" \"$@\"", CLI.binary.path] + arguments, tool: "/bin/sh", directory: directory)
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test func aNewStoreAndItsFoldersAreTheOwnersAlone() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("health/2026/store.sqlite").path
        let result = try Self.runWithUsualUmask(["import", CLI.sample, "--store", store, "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        // The first import made the store beside its path and linked it (`NewStoreLoad`); the
        // second writes in place, beside the lock file its writers share.
        let again = try Self.runWithUsualUmask(["import", CLI.sample, "--store", store, "-q"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Self.mode(dir.appendingPathComponent("health").path) == 0o700)
        #expect(try Self.mode(dir.appendingPathComponent("health/2026").path) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("health/2026").path)
        #expect(files.contains("store.sqlite") && files.contains("store.sqlite.lock"), "\(files)")
        for file in files {
            #expect(try Self.mode(dir.appendingPathComponent("health/2026/\(file)").path) == 0o600, "\(file)")
        }
    }

    @Test func theReceiversDatabaseItsWALAndThePatientsStoresAreTheOwnersAlone() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tokens = dir.appendingPathComponent("tokens")
        try Data("alice alice-token-0123456789abcdef\n".utf8).write(to: tokens)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: tokens.path)
        let database = dir.appendingPathComponent("received.sqlite").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "umask 022; exec \"$0\" \"$@\"", CLI.binary.path, "serve", "--port", "0", "--db", database,
                             "--tokens", tokens.path]
        let stderrPath = dir.appendingPathComponent("serve.err")
        _ = FileManager.default.createFile(atPath: stderrPath.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: stderrPath)
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        var port: Int?
        let deadline = Date().addingTimeInterval(30)
        while port == nil, Date() < deadline, process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            let text = (try? String(contentsOf: stderrPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://[0-9.]+:(\d+)"#, options: .regularExpression) {
                port = Int(text[range].split(separator: ":").last!)
            }
        }
        let found = try #require(port, "serve did not start: \((try? String(contentsOf: stderrPath, encoding: .utf8)) ?? "")")
        let sample: [String: Any] = ["uuid": "8C2D5F6E-0000-4000-8000-000000000001", "count": 5,
                                     "startDate": "2025-05-11T16:27:22.000Z", "endDate": "2025-05-11T16:37:22.000Z"]
        let answer = try ServeProcess.request("POST", "http://127.0.0.1:\(found)/steps", json: ["samples": [sample]],
                                              token: "alice-token-0123456789abcdef")
        #expect(answer.status == 200, "\(answer)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("received.sqlite") }
        #expect(files.contains("received.sqlite-wal"), "\(files)")
        for file in files { #expect(try Self.mode(dir.appendingPathComponent(file).path) == 0o600, "\(file)") }
        // The steps are alice's store rows: her store, in a folder only the owner opens.
        let patients = dir.appendingPathComponent("received-patients")
        #expect(try Self.mode(patients.path) == 0o700)
        let stores = try FileManager.default.contentsOfDirectory(atPath: patients.path)
        #expect(stores.contains("alice.sqlite"), "\(stores)")
        for file in stores { #expect(try Self.mode(patients.appendingPathComponent(file).path) == 0o600, "\(file)") }
        let log = (try? String(contentsOf: stderrPath, encoding: .utf8)) ?? ""
        #expect(log.contains("other users of this machine can read the tokens file \(tokens.path) (mode 644): chmod 600"), "\(log)")
    }

    /// A port in use is found before any file is made: neither the receiver's database nor a new
    /// store is left behind.
    @Test func aServeThatCannotListenLeavesNoFileBehind() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let running = try ServeProcess([], directory: dir)
        defer { _ = running.stop() }
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        let result = try ServeProcess.runToEnd(["--port", "\(running.port)", "--db", dir.appendingPathComponent("new.sqlite").path,
                                                "--store", dir.appendingPathComponent("new-store.sqlite").path])
        #expect(result.status == 69 && result.stderr.contains("the port is in use"), "\(result.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)) == before)
    }

    /// `serve --store` without `--db` keeps one database, the store: the contracts' routes write the
    /// store's rows, and the receiver's own tables (pairings, the backfill state, the log) sit in it,
    /// said at start; never a file of the current folder that nobody named.
    @Test func serveWithAStoreKeepsOneDatabase() throws {
        let dir = try makeTemporaryDirectory(), elsewhere = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir); try? FileManager.default.removeItem(at: elsewhere) }
        let store = dir.appendingPathComponent("health.sqlite").path
        let result = try CLI.run(["-s", "TERM", "3", CLI.binary.path, "serve", "--port", "0", "--store", store],
                                 tool: "/usr/bin/timeout", directory: elsewhere)
        #expect(result.stderr.contains("the request log go into \(store)"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        #expect(files.isSubset(of: ["health.sqlite", "health.sqlite-wal", "health.sqlite-shm", "health.sqlite.lock"]), "\(files)")
        let tables = try SQLiteDatabase(path: store, mode: .readOnly)
        #expect(try tables.scalarInt("SELECT count(*) FROM sqlite_master WHERE name IN ('pairing', 'flo_state', 'request_log', 'metric')") == 4)
    }
}

/// `serve --host [::1]` (the address as a URL writes it) listens on IPv6's loopback and says the
/// address as a URL: it failed with `SocketAddressError.UnknownHost … for host [::1]`.
@Suite struct ServeIPv6Tests {
    static var hasIPv6Loopback: Bool {
        ((try? String(contentsOfFile: "/proc/net/if_inet6", encoding: .utf8)) ?? "").contains("00000000000000000000000000000001")
    }

    @Test(.enabled(if: hasIPv6Loopback, "this machine has no IPv6 loopback (::1)"))
    func serveListensOnIPv6LoopbackWrittenAsInAURL() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for host in ["[::1]", "::1"] {
            let result = try CLI.run(["-s", "TERM", "2", CLI.binary.path, "serve", "--host", host, "--port", "0",
                                      "--db", dir.appendingPathComponent("r.sqlite").path], tool: "/usr/bin/timeout")
            #expect(result.stderr.contains("serve: listening on http://[::1]:") && !result.stderr.contains("Error"), "\(result.stderr)")
        }
    }
}
