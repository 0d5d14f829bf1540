import CloudSyncTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `serve --db FILE` as a clinic's backend on one machine: each patient's Health Auto Export pushes
/// and exports go into their own store (`FILE-patients/NAME.sqlite`), where the store's rule counts
/// each sample once; an export is imported as its body arrives and is kept whole or not at all; an
/// administrator's erase removes the patient's store too; SIGHUP reads the tokens file again.
@Suite struct ClinicStoresTests {
    static let alice = "alice-token-0123456789abcdef"
    static let bob = "bob-token-fedcba9876543210xx"
    static let carol = "carol-token-carer-0123456789"
    static let root = "root-token-admin-0123456789a"

    static func tokensFile(in dir: URL, _ lines: [String]) throws -> String {
        let path = dir.appendingPathComponent("tokens").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return path
    }

    static let everyone = ["alice \(alice)", "bob \(bob)", "carol \(carol) reads=alice", "root \(root) admin"]

    /// `status --json` of a patient's store.
    static func status(_ store: String) throws -> [String: Any] {
        let result = try CLI.run(["status", "--store", store, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    static func upload(_ serve: ServeProcess, _ file: String, type: String, token: String) throws -> (status: Int, object: [String: Any]) {
        try serve.request("POST", "/api/v1/exports", body: try Data(contentsOf: URL(fileURLWithPath: file)), token: token,
                          headers: ["Content-Type": type])
    }

    @Test func eachPatientsPushesAndExportsGoIntoTheirOwnStore() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try ServeProcess(["--tokens", try Self.tokensFile(in: dir, Self.everyone)], directory: dir)
        defer { _ = serve.stop() }
        #expect(serve.log.contains("go into each patient's store in \(dir.path)/received-patients/"), "\(serve.log)")
        let alices = dir.appendingPathComponent("received-patients/alice.sqlite").path
        let bobs = dir.appendingPathComponent("received-patients/bob.sqlite").path

        let first = try Self.upload(serve, Paths.sampleZip, type: "application/zip", token: Self.alice)
        #expect(first.status == 201 && first.object["stored"] as? Int == 24 && first.object["alreadyThere"] as? Int == 0, "\(first)")
        #expect((first.object["records"] as? [String: Any])?["routes"] as? [String: Int] == ["new": 2, "alreadyThere": 0], "\(first)")
        // The same export again, as XML this time: every sample is already there.
        let again = try Self.upload(serve, Paths.sampleXML, type: "application/xml; charset=utf-8", token: Self.alice)
        #expect(again.status == 201 && again.object["stored"] as? Int == 0 && again.object["alreadyThere"] as? Int == 24, "\(again)")
        // Bob's push goes into his store, not alice's.
        let push = try serve.request("POST", "/health-auto-export", body: try Data(contentsOf: URL(fileURLWithPath: Paths.sampleHealthAutoExport)),
                                     token: Self.bob)
        #expect(push.status == 200 && push.object["stored"] as? Int == 15, "\(push)")
        #expect(try Self.status(alices)["metrics"] as? Int == 24)
        #expect(try Self.status(bobs)["metrics"] as? Int == 15)
        // The same push again is stored once.
        let pushAgain = try serve.request("POST", "/health-auto-export", body: try Data(contentsOf: URL(fileURLWithPath: Paths.sampleHealthAutoExport)),
                                          token: Self.bob)
        #expect(pushAgain.status == 200 && pushAgain.object["stored"] as? Int == 0 && pushAgain.object["alreadyThere"] as? Int == 15, "\(pushAgain)")
        // Health data files are the server's user's alone.
        let mode = { (path: String) in try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int }
        #expect(try mode(alices) == 0o600)
        #expect(try mode(dir.appendingPathComponent("received-patients").path) == 0o700)

        // The report page: the patient's own, and a carer's of the patients named in reads=, no other.
        let page = { (query: String, token: String) throws -> (status: Int, html: String) in
            var request = URLRequest(url: URL(string: serve.url + "/report" + query)!)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (status, body) = ServeProcess.send(request)
            return (status, String(decoding: body, as: UTF8.self))
        }
        let alicesPage = try page("", Self.alice)
        #expect(alicesPage.status == 200 && alicesPage.html.contains("<html"), "\(alicesPage.status)")
        let carolsPage = try page("?user=alice", Self.carol)
        #expect(carolsPage.status == 200 && carolsPage.html == alicesPage.html)
        #expect(try page("?user=bob", Self.carol).status == 403)
        #expect(try page("?user=bob", Self.alice).status == 403)
        #expect(try page("?user=alice", Self.root).status == 403)
        #expect(try page("", Self.bob).status == 200)

        // A carer writes nothing; another type of body is refused; a damaged export leaves nothing.
        #expect(try Self.upload(serve, Paths.sampleZip, type: "application/zip", token: Self.carol).status == 403)
        let json = try Self.upload(serve, Paths.sampleZip, type: "application/json", token: Self.bob)
        #expect(json.status == 415 && (json.object["detail"] as? String)?.contains("application/zip") == true, "\(json)")
        let pushAsExport = try Self.upload(serve, Paths.sampleHealthAutoExport, type: "application/zip", token: Self.bob)
        #expect(pushAsExport.status == 422 && (pushAsExport.object["detail"] as? String)?.contains("POST /health-auto-export") == true,
                "\(pushAsExport)")
        let cut = dir.appendingPathComponent("cut.xml").path
        try Data(try Data(contentsOf: URL(fileURLWithPath: Paths.sampleXML)).prefix(6000)).write(to: URL(fileURLWithPath: cut))
        let damaged = try Self.upload(serve, cut, type: "application/xml", token: Self.bob)
        #expect(damaged.status == 422 && (damaged.object["detail"] as? String)?.contains("nothing was stored") == true, "\(damaged)")
        let bobNow = try Self.status(bobs)
        #expect(bobNow["metrics"] as? Int == 15 && (bobNow["imports"] as? [Any])?.count == 2, "\(bobNow)")

        // The administrator erases bob: his store's files go, and the answer counts its rows; alice keeps hers.
        let erased = try serve.request("DELETE", "/api/v1/users/bob", token: Self.root)
        #expect(erased.status == 200 && (erased.object["erased"] as? [String: Int])?["store.metric"] == 15, "\(erased)")
        #expect(!FileManager.default.fileExists(atPath: bobs) && !FileManager.default.fileExists(atPath: bobs + "-wal"))
        #expect(try Self.status(alices)["metrics"] as? Int == 24)
    }

    /// A connection that drops half-way through an export keeps nothing of it, though the import had
    /// written rows of it already; the server goes on.
    @Test func anUploadThatStopsHalfWayKeepsNothing() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try ServeProcess(["--tokens", try Self.tokensFile(in: dir, Self.everyone)], directory: dir)
        defer { _ = serve.stop() }
        let xml = Data(sampleExport(count: 40_000, type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min").utf8)   // about 10 MB
        let socket = try Self.connect(port: serve.port)
        let head = "POST /api/v1/exports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Self.alice)\r\n"
            + "Content-Type: application/xml\r\nContent-Length: \(xml.count)\r\n\r\n"
        try Self.send(Data(head.utf8) + xml.prefix(xml.count * 3 / 4), to: socket)
        Thread.sleep(forTimeInterval: 1)
        close(socket)
        let deadline = Date().addingTimeInterval(20)
        while !serve.log.contains("stopped before its end") && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(serve.log.contains("an export upload stopped before its end; nothing of it was stored"), "\(serve.log)")
        let store = dir.appendingPathComponent("received-patients/alice.sqlite").path
        let status = try Self.status(store)
        #expect(status["metrics"] as? Int == 0 && (status["imports"] as? [Any])?.isEmpty == true, "\(status)")
        // The whole export, sent again, is taken.
        let whole = try serve.request("POST", "/api/v1/exports", body: xml, token: Self.alice, headers: ["Content-Type": "application/xml"])
        #expect(whole.status == 201 && whole.object["stored"] as? Int == 40_000, "\(whole.status) \(whole.object)")
    }

    /// Two instances started at the same moment on one new database file both start (the second
    /// failed with "database is locked" turning on WAL), and the same push sent to each at once, for a
    /// patient new to both, is stored once.
    @Test func twoInstancesOnOneFileStoreAPushOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.twoInstancesStoreAPushOnce(database: dir.appendingPathComponent("clinic.sqlite").path, in: dir)
        #expect(try Self.status(dir.appendingPathComponent("clinic-patients/alice.sqlite").path)["metrics"] as? Int == 15)
    }

    /// The same on PostgreSQL: both servers start on a new database (one makes the tables, the other
    /// finds them), and the push that reaches both is stored once (the patient's turn is PostgreSQL's lock).
    @Test(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
    func twoInstancesOnOnePostgreSQLStoreAPushOnce() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.twoInstancesStoreAPushOnce(database: address, in: dir)
        let status = try CLI.run(["status", "--store", address, "--user", "alice", "--json"])
        #expect(try (JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])?["metrics"] as? Int == 15, "\(status.stderr)")
    }

    /// Two `serve`s started at once on `database`; alice's push sent to both at once: one stores it,
    /// the other finds it there.
    static func twoInstancesStoreAPushOnce(database: String, in dir: URL) throws {
        let tokens = try Self.tokensFile(in: dir, Self.everyone)
        final class Started: @unchecked Sendable { var serves: [ServeProcess?] = [nil, nil]; var errors: [String] = [] }
        let started = Started(), lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            do {
                let serve = try ServeProcess(["--tokens", tokens], directory: dir, database: database, name: "serve\(i)")
                lock.withLock { started.serves[i] = serve }
            } catch {
                lock.withLock { started.errors.append("\(error)") }
            }
        }
        #expect(started.errors.isEmpty, "\(started.errors)")
        let serves = started.serves.compactMap { $0 }
        defer { for serve in serves { _ = serve.stop() } }
        try #require(serves.count == 2)
        let body = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleHealthAutoExport))
        final class Answers: @unchecked Sendable { var stored: [Int] = [0, 0]; var statuses: [Int] = [0, 0]; var details: [String] = ["", ""] }
        let answers = Answers()
        let urls = serves.map(\.url)
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let answer = try? ServeProcess.request("POST", urls[i] + "/health-auto-export", body: body, token: Self.alice)
            lock.withLock {
                answers.statuses[i] = answer?.status ?? 0
                answers.stored[i] = answer?.object["stored"] as? Int ?? -1
                answers.details[i] = answer?.object["detail"] as? String ?? ""
            }
        }
        #expect(answers.statuses == [200, 200] && answers.stored.sorted() == [0, 15], "\(answers.statuses) \(answers.stored) \(answers.details)")
    }

    /// `serve --store`: an export sent to the server goes into the person's store.
    @Test func anExportSentToAPersonalServerGoesIntoItsStore() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("health.sqlite").path
        let serve = try ServeProcess(["--store", store], directory: dir)
        defer { _ = serve.stop() }
        let sent = try serve.request("POST", "/api/v1/exports", body: try Data(contentsOf: URL(fileURLWithPath: Paths.sampleZip)),
                                     headers: ["Content-Type": "application/zip"])
        #expect(sent.status == 201 && sent.object["stored"] as? Int == 24, "\(sent)")
        #expect(try Self.status(store)["metrics"] as? Int == 24)
    }

    /// SIGHUP reads the tokens file again: a user added is let in, a user removed is refused, and a
    /// file that no longer reads keeps the users as they were. The server never stops for it.
    @Test func sighupReadsTheTokensFileAgain() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tokens = try Self.tokensFile(in: dir, ["alice \(Self.alice)"])
        let serve = try ServeProcess(["--tokens", tokens], directory: dir)
        defer { _ = serve.stop() }
        let push = { (token: String) throws -> Int in
            try serve.request("POST", "/health-auto-export", body: try Data(contentsOf: URL(fileURLWithPath: Paths.sampleHealthAutoExport)),
                              token: token).status
        }
        #expect(try push(Self.bob) == 401)
        let reload = { (expected: String) in
            kill(serve.process.processIdentifier, SIGHUP)
            let deadline = Date().addingTimeInterval(10)
            while !serve.log.contains(expected) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            #expect(serve.log.contains(expected), "\(serve.log)")
        }
        _ = try Self.tokensFile(in: dir, ["bob \(Self.bob)"])
        reload("read the tokens file \(tokens) again: 1 users")
        #expect(try push(Self.bob) == 200)
        #expect(try push(Self.alice) == 401)
        _ = try Self.tokensFile(in: dir, ["bob"])
        reload("cannot be used, the users stay as they were")
        #expect(try push(Self.bob) == 200)
        #expect(serve.process.isRunning)
        #expect(!serve.log.contains(Self.bob))
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = TCPListener.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
        return fd
    }

    static func send(_ data: Data, to fd: Int32) throws {
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw POSIXError(.EPIPE) }
                offset += n
            }
        }
    }
}
