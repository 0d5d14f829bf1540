import CloudSyncStore
import CloudSyncTesting
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 29: one `serve --store` keeps the store current and sends it on by itself while every
/// other command works on the same store (docs/serve.md, "Always on"). The time limits only stop a
/// hang: in a full run on 2 cores a test can wait minutes for a thread (simple store tests took
/// 95 s there), and every wait inside a test has its own deadline.
@Suite(.serialized) struct AlwaysOnTests {
    /// An export of heart rates every 10 s from 2024-03-01 (ExportDate 2024-04-01): `count` records
    /// (at most 267,840: March).
    static func heartRateExport(count: Int) -> String {
        var body = ""
        body.reserveCapacity(count * 200)
        let start = 1_709_251_200   // 2024-03-01T00:00:00Z
        for index in 0..<count {
            let at = Self.exportDate(start + index * 10)
            body += #" <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" creationDate="\#(at)" startDate="\#(at)" endDate="\#(at)" value="\#(60 + index % 40)"/>"#
            body += "\n"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-04-01 00:00:00 +0000\"/>\n\(body)</HealthData>\n"
    }

    /// An export's date of an instant in March 2024 (UTC).
    static func exportDate(_ seconds: Int) -> String {
        let inMarch = seconds - 1_709_251_200
        let (day, rest) = (inMarch / 86_400 + 1, inMarch % 86_400)
        return String(format: "2024-03-%02d %02d:%02d:%02d +0000", day, rest / 3600, rest % 3600 / 60, rest % 60)
    }

    /// Health Auto Export step samples of one minute each on `day` (2025-01-DD), minutes `minutes`
    /// from 08:00: after every export's date, so that each counts.
    static func stepSamples(day: Int, minutes: Range<Int>) -> Data {
        let points = minutes.map { minute -> String in
            let start = String(format: "2025-01-%02d %02d:%02d:00 +0000", day, 8 + minute / 60, minute % 60)
            let end = String(format: "2025-01-%02d %02d:%02d:59 +0000", day, 8 + minute / 60, minute % 60)
            return #"{"date":"\#(start)","start":"\#(start)","end":"\#(end)","qty":\#(minute + 1),"source":"Watch"}"#
        }
        return Data(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[\#(points.joined(separator: ","))]}]}}"#.utf8)
    }

    /// Pushes until the push is stored: the app retries a 503 (after its Retry-After) and a refused
    /// connection (serve restarting). Returns the statuses it got, the last one 200.
    static func pushUntilStored(_ url: () -> String, body: Data) throws -> [Int] {
        var statuses: [Int] = []
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            let status = (try? ServeProcess.request("POST", url() + "/health-auto-export", body: body, timeout: 30).status) ?? 0
            statuses.append(status)
            if status == 200 { return statuses }
            Thread.sleep(forTimeInterval: status == 503 ? 1 : 0.2)
        }
        return statuses
    }

    /// Writes `data` into `path` a few hundred bytes at a time, as a slow copy into a synced folder does.
    static func copySlowly(_ data: Data, to path: String, chunk: Int = 512, pause: Double = 0.05) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            try handle.write(contentsOf: data[offset..<end])
            offset = end
            Thread.sleep(forTimeInterval: pause)
        }
    }

    static func mcpOverview(_ store: String) throws -> CLIResult {
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"overview","arguments":{}}}"#,
        ].joined(separator: "\n") + "\n"
        return try CLI.run(["mcp", "--store", store], stdinBytes: Data(requests.utf8))
    }

    static func health(_ url: String) -> [String: Any]? {
        guard let reply = try? ServeProcess.request("GET", url + "/health", timeout: 5), reply.status == 200 else { return nil }
        return (reply.object["store"] as? [String: Any])?["forwarding"] as? [String: Any]
    }

    /// Everything at once on one store: serve taking pushes every 100 ms and forwarding to a real
    /// receiver, a watched folder receiving a Health Auto Export file and an export.zip copied in
    /// slowly, a command-line import, MCP queries, `status`, and a `kill -9` and restart of serve
    /// and of the receiver. At the end the store and the receiver hold exactly what the inputs hold,
    /// each once; every push was stored; no command failed for being "in use".
    @Test(.timeLimit(.minutes(10))) func everythingAtOnceOnOneStore() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        let watched = dir.appendingPathComponent("phone", isDirectory: true)
        try FileManager.default.createDirectory(at: watched, withIntermediateDirectories: true)
        let exportCount = 250_000
        let export = try writeFile(Self.heartRateExport(count: exportCount), named: "export.xml", in: dir)

        var receiver = try ServeProcess([], directory: dir, name: "receiver")
        let receiverPort = receiver.port
        let serveArguments = ["--store", store, "--upload-to", "http://127.0.0.1:\(receiverPort)/api/v1", "--upload-every", "10s",
                              "--watch", watched.path]
        var serve = try ServeProcess(serveArguments, directory: dir, database: dir.appendingPathComponent("serve.sqlite").path, name: "serve")
        let servePort = serve.port
        let serveURL: @Sendable () -> String = { "http://127.0.0.1:\(servePort)" }

        var importRun: BackgroundRun?
        let copies = Thread {
            try? Self.copySlowly(Self.stepSamples(day: 11, minutes: 0..<30), to: watched.appendingPathComponent("HealthAutoExport-2025-01-11.json").path)
            try? Self.copySlowly(try! Data(contentsOf: URL(fileURLWithPath: CLI.sample)), to: watched.appendingPathComponent("export.zip").path,
                                 chunk: 256)
        }
        copies.start()

        // MCP and status read the store four times, a second apart, beside the pushes: in their
        // own thread, so that a slow start of theirs (seconds in a full run on 2 cores) does not
        // hold the pushes back while the import runs.
        let readerFailures = Mutex<[String]>([])
        let readers = Thread {
            for _ in 0..<4 {
                Thread.sleep(forTimeInterval: 1)
                guard let mcp = try? Self.mcpOverview(store), let status = try? CLI.run(["status", "--store", store]) else {
                    readerFailures.withLock { $0.append("mcp or status did not run") }
                    continue
                }
                if mcp.status != 0 || !String(decoding: mcp.stdout, as: UTF8.self).contains(#""id":2"#) { readerFailures.withLock { $0.append(mcp.stderr) } }
                if status.status != 0 { readerFailures.withLock { $0.append(status.stderr) } }
            }
        }

        // 40 pushes, one every 100 ms, each overlapping the one before: minutes 5i ..< 5i+20.
        var pushStatuses: [[Int]] = []
        var pushTimes: [String] = []
        for push in 0..<40 {
            if push == 2 {
                importRun = try BackgroundRun(["import", export, "--store", store])
                readers.start()
            }
            if push == 12 {
                // kill -9 in the middle of a push (and whatever import or forward runs): the app
                // sees the connection drop and sends it again.
                let body = Self.stepSamples(day: 10, minutes: 60..<80)
                let inFlight = Thread { _ = try? Self.pushUntilStored(serveURL, body: body) }
                inFlight.start()
                Thread.sleep(forTimeInterval: 0.01)
                kill(serve.process.processIdentifier, SIGKILL)
                serve.process.waitUntilExit()
                serve = try ServeProcess(serveArguments + ["--port", String(servePort)], directory: dir,
                                         database: dir.appendingPathComponent("serve.sqlite").path, name: "serve-again")
                while !inFlight.isFinished { Thread.sleep(forTimeInterval: 0.05) }
            }
            if push == 25 {
                kill(receiver.process.processIdentifier, SIGKILL)
                receiver.process.waitUntilExit()
                receiver = try ServeProcess(["--port", String(receiverPort)], directory: dir, database: receiver.database, name: "receiver-again")
            }
            let pushStart = Date().timeIntervalSince1970
            pushStatuses.append(try Self.pushUntilStored(serveURL, body: Self.stepSamples(day: 10, minutes: (push * 5)..<(push * 5 + 20))))
            pushTimes.append(String(format: "push %d: %.1f-%.1f %@", push, pushStart, Date().timeIntervalSince1970, "\(pushStatuses.last!)"))
            Thread.sleep(forTimeInterval: 0.1)
        }
        let imported = try #require(importRun).finish()
        #expect(imported.status == 0, "\(imported.stderr)")
        while copies.isExecuting || !copies.isFinished { Thread.sleep(forTimeInterval: 0.1) }
        while !readers.isFinished { Thread.sleep(forTimeInterval: 0.1) }
        let mcpFailures = readerFailures.withLock { $0 }

        // The pushes: each stored (200 at last), 503 only with a retry that succeeded.
        for (index, statuses) in pushStatuses.enumerated() {
            #expect(statuses.last == 200, "push \(index): \(statuses)")
            #expect(statuses.allSatisfy { [200, 503, 0].contains($0) }, "push \(index): \(statuses)")
        }
        #expect(mcpFailures.isEmpty, "\(mcpFailures)")

        // The store: the export's records, the 215 distinct pushed minutes, the file's 30, the
        // sample export's 24, each once.
        let expected = exportCount + 215 + 30 + 24
        var watchedBoth = false
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            let files = (try? Int(SQLiteDatabase(path: store, mode: .readOnly).scalarInt("SELECT count(*) FROM watched_file WHERE outcome = 'imported'") ?? 0)) ?? 0
            if files == 2 { watchedBoth = true; break }
            Thread.sleep(forTimeInterval: 0.5)
        }
        #expect(watchedBoth, "serve did not import both files of the watched folder:\n\(serve.log)")
        let status = try #require(try JSONSerialization.jsonObject(with: try CLI.run(["status", "--store", store, "--json"]).stdout) as? [String: Any])
        #expect(status["metrics"] as? Int == expected, "\(status["byType"] ?? "")")
        #expect(status["superseded"] as? Int == 0)
        let stored = try SQLiteDatabase(path: store, mode: .readOnly)
        #expect(try stored.scalarInt("SELECT count(*) FROM metric") == Int64(expected))
        // The pushes were taken while the import ran, not after it (the watched folder's file is
        // not a push).
        let during = try stored.scalarInt("""
            SELECT count(*) FROM import_run p, import_run e WHERE e.input LIKE '%export.xml' AND p.source_kind = 'health-auto-export'
                AND p.input = 'the request' AND p.started_at >= e.started_at AND p.started_at <= e.ended_at
            """)
        let runs = try stored.prepare("SELECT id || ' ' || source_kind || ' ' || started_at || ' ' || coalesce(ended_at, '-') || ' ' || input FROM import_run")
        var said: [String] = []
        while try runs.step() { said.append(runs.text(0) ?? "") }
        #expect((during ?? 0) >= 3, "pushes stored during the import: \(during ?? 0)\n\(said.joined(separator: "\n"))\n\(pushTimes.joined(separator: "\n"))")
        #expect(try stored.scalarInt("SELECT count(*) FROM metric m JOIN metric_type t ON t.id = m.type_id WHERE t.name = 'HKQuantityTypeIdentifierStepCount' AND m.start_date >= 1736467200") == 245)

        // The receiver: what CloudCare takes of the store, each once, once serve forwarded the rest.
        let eligible = try CLI.run(["upload", "--store", store, "--server", "http://127.0.0.1:9/api/v1", "--dry-run"])
        let count = try #require(eligible.stderr.firstMatch(of: /dry run: (\d+) metrics? to upload/).map { Int($0.1)! }, "\(eligible.stderr)")
        // Caught up: nothing pending for the receiver, and /health says a success (the one kept in the
        // store before the kill, or the restarted forwarder's own), whichever comes last.
        var forwarding: [String: Any]?
        let caughtUp = Date().addingTimeInterval(120)
        while Date() < caughtUp {
            let pending = try CLI.run(["upload", "--store", store, "--server", "http://127.0.0.1:\(receiverPort)/api/v1", "--dry-run"])
            forwarding = Self.health(serveURL())
            if pending.stderr.contains("nothing to upload"), forwarding?["lastSuccess"] != nil { break }
            Thread.sleep(forTimeInterval: 1)
        }
        #expect(forwarding?["lastSuccess"] != nil, "\(forwarding ?? [:])")
        #expect(receiver.stop() == 0)
        #expect(serve.stop() == 0)
        #expect(try receiver.storeCount() == count, "the receiver's count")
        let logs = [serve.log, receiver.log, imported.stderr].joined(separator: "\n")
        #expect(!logs.contains("in use"), "\(logs)")
    }

    /// A damaged file in the watched folder is said (status, /health) and not tried again until it
    /// changes, a restart imports nothing twice, and the same content under another name is not
    /// imported again; the user's files are left as they were.
    @Test(.timeLimit(.minutes(10))) func theWatchedFolderImportsEachFileOnce() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        let watched = dir.appendingPathComponent("phone", isDirectory: true)
        try FileManager.default.createDirectory(at: watched, withIntermediateDirectories: true)
        let damaged = watched.appendingPathComponent("HealthAutoExport-damaged.json").path
        try Data(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"yesterday","qty":1}]}]}}"#.utf8)
            .write(to: URL(fileURLWithPath: damaged))
        let good = watched.appendingPathComponent("HealthAutoExport-good.json").path
        try Self.stepSamples(day: 12, minutes: 0..<10).write(to: URL(fileURLWithPath: good))
        let arguments = ["--store", store, "--watch", watched.path]
        let rows = { (sql: String) throws -> Int in Int(try SQLiteDatabase(path: store, mode: .readOnly).scalarInt(sql) ?? 0) }
        func waitFor(_ what: String, _ condition: () throws -> Bool) throws {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if FileManager.default.fileExists(atPath: store), (try? condition()) == true { return }
                Thread.sleep(forTimeInterval: 0.2)
            }
            Issue.record("timed out waiting: \(what)")
        }
        do {
            let serve = try ServeProcess(arguments, directory: dir, name: "serve")
            try waitFor("both files dealt with") { try rows("SELECT count(*) FROM watched_file") == 2 }
            let health = try ServeProcess.request("GET", serve.url + "/health")
            let problems = ((health.object["store"] as? [String: Any])?["watch"] as? [String: Any])?["problems"] as? [String: String]
            #expect(problems?["HealthAutoExport-damaged.json"]?.contains("date") == true, "\(health.object)")
            // The same content under another name: not imported again.
            try FileManager.default.copyItem(atPath: good, toPath: watched.appendingPathComponent("copy.json").path)
            try waitFor("the copy seen") { try rows("SELECT count(*) FROM watched_file WHERE outcome = 'same-content'") == 1 }
            #expect(serve.stop() == 0)
        }
        #expect(try rows("SELECT count(*) FROM metric") == 10)
        let status = try CLI.run(["status", "--store", store])
        #expect(String(decoding: status.stdout, as: UTF8.self).contains("not imported (tried again when it changes): \(damaged)"), "\(status.lines)")
        // A restart: nothing is tried or imported again.
        do {
            let serve = try ServeProcess(arguments, directory: dir, name: "serve-again")
            Thread.sleep(forTimeInterval: 4)
            #expect(try rows("SELECT count(*) FROM watched_file") == 3)
            #expect(try rows("SELECT count(*) FROM import_run") == 1)
            // The damaged file fixed: imported.
            try Self.stepSamples(day: 13, minutes: 0..<5).write(to: URL(fileURLWithPath: damaged))
            try waitFor("the fixed file imported") { try rows("SELECT count(*) FROM metric") == 15 }
            #expect(serve.stop() == 0)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: good)) == Self.stepSamples(day: 12, minutes: 0..<10))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: watched.path)) == ["HealthAutoExport-damaged.json", "HealthAutoExport-good.json", "copy.json"])
    }

    /// The target refuses the token, then answers 500: serve keeps taking pushes, says why in
    /// /health and status, does not retry a refused token in a loop, backs off through the 500s
    /// and sends everything once the target takes it.
    @Test(.timeLimit(.minutes(10))) func forwardingThroughARefusedTokenAndServerErrors() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        let right = try writeFile("the-right-token-of-the-backend", named: "right.token", in: dir)
        let wrong = try writeFile("a-wrong-token-of-enough-length", named: "wrong.token", in: dir)
        let receiver = try ServeProcess(["--token-file", right, "--faults", "500,500"], directory: dir, name: "receiver")
        defer { _ = receiver.stop() }
        let target = ["--upload-to", receiver.url + "/api/v1", "--upload-every", "10s"]
        var pushed = 0
        func push(_ serve: ServeProcess, minutes: Range<Int>) throws {
            let reply = try ServeProcess.request("POST", serve.url + "/health-auto-export", body: Self.stepSamples(day: 20, minutes: minutes))
            #expect(reply.status == 200, "\(reply.object)")
            pushed += minutes.count
        }
        func forwarding(_ serve: ServeProcess, until: ([String: Any]) -> Bool) throws -> [String: Any] {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if let said = Self.health(serve.url), until(said) { return said }
                Thread.sleep(forTimeInterval: 0.2)
            }
            Issue.record("timed out; /health: \(Self.health(serve.url) ?? [:])")
            return [:]
        }
        do {
            let serve = try ServeProcess(["--store", store, "--upload-token-file", wrong] + target, directory: dir,
                                         database: dir.appendingPathComponent("serve.sqlite").path, name: "serve")
            try push(serve, minutes: 0..<10)
            let refused = try forwarding(serve) { ($0["failures"] as? Int ?? 0) >= 1 }
            #expect((refused["lastError"] as? String)?.contains("not retried before the next interval") == true, "\(refused)")
            Thread.sleep(forTimeInterval: 3)
            try push(serve, minutes: 10..<20)   // taken; and it does not bring the next try forward
            Thread.sleep(forTimeInterval: 1)
            let later = Self.health(serve.url) ?? [:]
            #expect(later["failures"] as? Int == 1 && later["lastTry"] as? String == refused["lastTry"] as? String, "\(later)")
            let status = String(decoding: try CLI.run(["status", "--store", store]).stdout, as: UTF8.self)
            #expect(status.contains("failing (1 try in a row)"), "\(status)")
            #expect(serve.stop() == 0)
        }
        let serve = try ServeProcess(["--store", store, "--upload-token-file", right] + target, directory: dir,
                                     database: dir.appendingPathComponent("serve.sqlite").path, name: "serve-again")
        defer { _ = serve.stop() }
        try push(serve, minutes: 20..<30)
        // A success after the 500s. (What the last try sent is not checked: a try on the interval
        // after the success finds nothing pending and sends 0, and a loaded machine polls slowly.)
        // (The store keeps an earlier success: the first serve's try at its start, before anything
        // was pushed. This one is after the restart: nothing pending.)
        let sent = try forwarding(serve) { $0["lastSuccess"] != nil && ($0["failures"] as? Int) == 0 && ($0["pending"] as? Int) == 0 }
        #expect(sent["lastError"] != nil, "the refused token and the 500s are remembered: \(sent)")
        #expect(receiver.log.components(separatedBy: " 500 ").count - 1 == 2, "the receiver answered 500 twice first:\n\(receiver.log)")
        // Everything forwarded, the last push too (its nudge may come after the success above).
        var caughtUp = false
        let deadline = Date().addingTimeInterval(60)
        while !caughtUp && Date() < deadline {
            caughtUp = try CLI.run(["upload", "--store", store, "--server", receiver.url + "/api/v1", "--dry-run"]).stderr.contains("nothing to upload")
            if !caughtUp { Thread.sleep(forTimeInterval: 0.5) }
        }
        #expect(caughtUp, "\(Self.health(serve.url) ?? [:])")
        #expect(receiver.stop() == 0)
        #expect(try receiver.storeCount() == pushed)
    }

    /// A forward that waits for the store's write lock (a writer holds it; the forwarder waits up to
    /// a minute) does not hold `/health` up, and the forward goes on once the lock is free. Before,
    /// `/health` waited for the forward, and so did a push's reply, which nudges the forwarder
    /// (3.5 s in `everythingAtOnceOnOneStore`); a nudge is now as immediate as `/health`.
    @Test(.timeLimit(.minutes(10))) func aForwardWaitingForTheStoreHoldsNothingElseUp() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        let receiver = try ServeProcess([], directory: dir, name: "receiver")
        defer { _ = receiver.stop() }
        let serve = try ServeProcess(["--store", store, "--upload-to", receiver.url + "/api/v1", "--upload-every", "10s"], directory: dir,
                                     database: dir.appendingPathComponent("serve.sqlite").path, name: "serve")
        defer { _ = serve.stop() }
        // The forward at serve's start, then one every 10 s: each ends by writing what it did.
        var first: [String: Any]?
        let deadline = Date().addingTimeInterval(60)
        while first?["lastTry"] == nil && Date() < deadline {
            first = Self.health(serve.url)
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(first?["lastTry"] != nil, "\(first ?? [:])")
        let holder = try SQLiteDatabase(path: store)
        let kept = "SELECT max(last_try_at) FROM forwarding WHERE failures = 0"
        let firstTry = try #require(try holder.scalarInt(kept))
        try holder.execute("BEGIN IMMEDIATE")
        Thread.sleep(forTimeInterval: 12)   // the next forward is due and waits for the lock
        let asked = Date()
        let said = Self.health(serve.url)
        let answeredIn = Date().timeIntervalSince(asked)
        try holder.execute("ROLLBACK")
        #expect(said != nil && answeredIn < 5, "/health: \(said ?? [:]) after \(answeredIn) s (asked with a 5 s limit)")
        // The forward that waited wrote what it did once the lock was free.
        var later = firstTry
        let after = Date().addingTimeInterval(60)
        while later == firstTry && Date() < after {
            Thread.sleep(forTimeInterval: 0.2)
            later = try holder.scalarInt(kept) ?? firstTry
        }
        #expect(later > firstTry, "\(serve.log)")
        #expect(serve.stop() == 0)
    }

    /// A writer that holds the store's write lock past the push's wait (10 s): the push is 503 with
    /// what to do, nothing of it stored, and the same push is stored once the lock is free.
    @Test(.timeLimit(.minutes(10))) func aPushThatWaitedPastItsLimitIs503AndStoresNothing() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        let serve = try ServeProcess(["--store", store], directory: dir)
        defer { _ = serve.stop() }
        let body = Self.stepSamples(day: 21, minutes: 0..<5)
        #expect(try ServeProcess.request("POST", serve.url + "/health-auto-export", body: Self.stepSamples(day: 22, minutes: 0..<1)).status == 200)
        let holder = try SQLiteDatabase(path: store)
        try holder.execute("BEGIN IMMEDIATE")
        let started = Date()
        let refused = try ServeProcess.request("POST", serve.url + "/health-auto-export", body: body)
        #expect(refused.status == 503, "\(refused.object)")
        #expect((refused.object["detail"] as? String)?.contains("nothing was stored: send it again") == true, "\(refused.object)")
        #expect(Date().timeIntervalSince(started) >= 9.5)
        try holder.execute("ROLLBACK")
        #expect(try holder.scalarInt("SELECT count(*) FROM metric") == 1)
        let stored = try ServeProcess.request("POST", serve.url + "/health-auto-export", body: body)
        #expect(stored.status == 200 && stored.object["stored"] as? Int == 5, "\(stored.object)")
    }
}
