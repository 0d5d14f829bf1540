import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// What the cluster tests need from the machine: PostgreSQL's server and nginx.
enum ClusterTools {
    /// Why the suite cannot run here (the runner reports it as skipped with this reason), or nil.
    static var missing: String? {
        if !PostgresCluster.isAvailable { return "PostgreSQL is not installed (Debian: postgresql)" }
        if !Nginx.isAvailable { return "nginx is not installed (Debian: nginx)" }
        return nil
    }
}

/// Four `serve` processes on one PostgreSQL database behind nginx behave as one backend: eight users
/// upload at once, through an instance killed half-way and through a database stopped for 10 s,
/// and every metric is stored exactly once per user. The cluster and nginx are the test's own.
@Suite(.serialized, .enabled(if: ClusterTools.missing == nil, Comment(rawValue: ClusterTools.missing ?? "")))
struct ServeClusterTests {
    static let users = (1...8).map { "user\($0)" }
    /// Each user's store: two overlapping exports of 1,500 heart rates (2,500 distinct), shifted
    /// by the user's number, so that users' data overlap too (and must still be counted apart).
    static let metricsPerUser = 2500

    /// The cluster, its four instances and nginx in front, for one test.
    final class Backend {
        let directory: URL
        let cluster: PostgresCluster
        var instances: [ServeProcess] = []
        let nginx: Nginx
        let tokens: URL

        init(instances count: Int = 4, serveArguments: [String] = []) throws {
            directory = try makeTemporaryDirectory()
            cluster = try PostgresCluster()
            tokens = directory.appendingPathComponent("tokens")
            try Data(ServeClusterTests.users.map { "\($0) \(ServeClusterTests.token($0))\n" }.joined().utf8).write(to: tokens)
            for index in 0..<count {
                instances.append(try ServeProcess(["--tokens", tokens.path] + serveArguments, directory: directory,
                                                  database: cluster.url(), name: "serve\(index)"))
            }
            nginx = try Nginx(upstreams: instances.map(\.port))
        }

        var url: String { "http://127.0.0.1:\(nginx.port)/api/v1" }

        /// Stops nginx, then each instance still running with SIGTERM: each must end cleanly.
        func stopCleanly() {
            nginx.stop()
            for (index, instance) in instances.enumerated() where instance.process.isRunning {
                let status = instance.stop()
                // A crash's backtrace is long: its first lines (the reason and the crashed thread's
                // top frames) say more than its tail.
                let crash = instance.log.split(separator: "\n").drop { !$0.contains("Program crashed") && !$0.contains("Fatal error") }.prefix(25)
                #expect(status == 0, "instance \(index) did not stop cleanly on SIGTERM (\(status)): \(crash.isEmpty ? String(instance.log.suffix(400)) : crash.joined(separator: "\n"))")
            }
        }

        /// Stored metrics per owner, from PostgreSQL.
        func storedPerUser() throws -> [String: Int] {
            let text = try cluster.psql("SELECT owner || ' ' || count(*) FROM metric GROUP BY owner")
            return Dictionary(uniqueKeysWithValues: text.split(separator: "\n").map {
                let parts = $0.split(separator: " ")
                return (String(parts[0]), Int(parts[1]) ?? -1)
            })
        }

        deinit {
            nginx.stop()
            for instance in instances { _ = instance.stop() }
            cluster.remove()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func token(_ user: String) -> String { "\(user)-token-0123456789abcdef" }

    /// An export of `count` heart rates, one a minute from minute `first` of November 2023.
    static func export(first: Int, count: Int) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
        for minute in first..<(first + count) {
            let date = Date(timeIntervalSince1970: TimeInterval(1_700_000_000 + minute * 60))
            let stamp = ISO8601DateFormatter.string(from: date, timeZone: TimeZone(identifier: "UTC")!,
                                                    formatOptions: [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime])
            text += " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" startDate=\"\(stamp) +0000\" endDate=\"\(stamp) +0000\" value=\"\(60 + minute % 50)\"/>\n"
        }
        return text + "</HealthData>\n"
    }

    /// Each user's store, imported from two overlapping exports.
    static func makeStores(in directory: URL) throws -> [String: String] {
        var stores: [String: String] = [:]
        for (index, user) in users.enumerated() {
            let store = directory.appendingPathComponent("\(user).sqlite").path
            for (part, first) in [index * 100, index * 100 + 1000].enumerated() {
                let input = directory.appendingPathComponent("\(user)-\(part).xml")
                try Data(export(first: first, count: 1500).utf8).write(to: input)
                let imported = try CLI.run(["import", input.path, "--store", store, "-q"])
                #expect(imported.status == 0, "\(imported.stderr)")
            }
            #expect(try StatusQuery(StagingStore(path: store, access: .read)).status().pending == metricsPerUser)
            stores[user] = store
        }
        return stores
    }

    /// The eight uploads, started at once; returns the running processes and their stderr files.
    static func startUploads(_ stores: [String: String], to url: String, in directory: URL) throws -> [(user: String, run: BackgroundRun)] {
        try users.map { user in
            let tokenFile = directory.appendingPathComponent("\(user).token")
            try Data(token(user).utf8).write(to: tokenFile)
            let run = try BackgroundRun(["upload", "--store", stores[user]!, "--server", url, "--token-file", tokenFile.path,
                                         "--batch-size", "100", "--retry-delay", "0.2", "--max-attempts", "12"],
                                        stderrPath: directory.appendingPathComponent("\(user).upload.err").path)
            return (user, run)
        }
    }

    /// Waits for every upload and checks each ended well with everything acknowledged.
    static func finish(_ uploads: [(user: String, run: BackgroundRun)], stores: [String: String]) throws {
        for upload in uploads {
            let (status, log) = upload.run.finish()
            #expect(status == 0, "\(upload.user): \(log)")
            #expect(try StatusQuery(StagingStore(path: stores[upload.user]!, access: .read)).status().pending == 0, "\(upload.user): \(log)")
        }
    }

    /// Waits until PostgreSQL holds at least `count` metrics in all.
    static func waitForStored(_ backend: Backend, atLeast count: Int) throws {
        let deadline = Date().addingTimeInterval(120)
        while Int(try backend.cluster.psql("SELECT count(*) FROM metric")) ?? 0 < count {
            guard Date() < deadline else { Issue.record("fewer than \(count) metrics stored after 120 s"); return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    @Test func eightUsersThroughFourInstancesStoreEveryMetricOncePerUser() throws {
        let backend = try Backend()
        let stores = try Self.makeStores(in: backend.directory)
        let uploads = try Self.startUploads(stores, to: backend.url, in: backend.directory)
        try Self.finish(uploads, stores: stores)
        #expect(try backend.storedPerUser() == Dictionary(uniqueKeysWithValues: Self.users.map { ($0, Self.metricsPerUser) }))
        // Every instance took part.
        for instance in backend.instances {
            #expect(instance.log.contains("POST /api/v1/wearables/import/apple-health 20"), "\(instance.log.suffix(500))")
        }
        // Uploading again sends nothing.
        let again = try CLI.run(["upload", "--store", stores["user1"]!, "--server", backend.url,
                                 "--token-file", backend.directory.appendingPathComponent("user1.token").path])
        #expect(again.status == 0 && again.stderr.contains("nothing to upload"), "\(again.stderr)")
        backend.stopCleanly()
    }

    @Test func killingOneInstanceMidwayLosesAndDoublesNothing() throws {
        // Each batch takes 50 ms at the receivers, so that the uploads are still running when one dies.
        let backend = try Backend(serveArguments: ["--delay", "0.05"])
        let stores = try Self.makeStores(in: backend.directory)
        let uploads = try Self.startUploads(stores, to: backend.url, in: backend.directory)
        try Self.waitForStored(backend, atLeast: Self.users.count * Self.metricsPerUser / 4)
        kill(backend.instances[0].process.processIdentifier, SIGKILL)
        backend.instances[0].process.waitUntilExit()
        #expect(uploads.contains { $0.run.isRunning }, "the uploads ended before an instance could be killed")
        try Self.finish(uploads, stores: stores)
        #expect(try backend.storedPerUser() == Dictionary(uniqueKeysWithValues: Self.users.map { ($0, Self.metricsPerUser) }))
        backend.stopCleanly()
    }

    @Test func databaseDownForTenSecondsMeans503sThenCompletionExactlyOnce() throws {
        let backend = try Backend(serveArguments: ["--delay", "0.05"])
        let stores = try Self.makeStores(in: backend.directory)
        let uploads = try Self.startUploads(stores, to: backend.url, in: backend.directory)
        try Self.waitForStored(backend, atLeast: Self.users.count * Self.metricsPerUser / 4)
        try backend.cluster.stop()
        Thread.sleep(forTimeInterval: 10)
        #expect(uploads.contains { $0.run.isRunning }, "the uploads ended while the database was down")
        try backend.cluster.start()
        try Self.finish(uploads, stores: stores)
        #expect(try backend.storedPerUser() == Dictionary(uniqueKeysWithValues: Self.users.map { ($0, Self.metricsPerUser) }))
        // The receivers said 503 meanwhile, and recovered by themselves.
        let logs = backend.instances.map(\.log).joined()
        #expect(logs.contains("answered 503"), "\(logs.suffix(2000))")
        for instance in backend.instances { #expect(instance.process.isRunning) }
        let retried = uploads.map { $0.run.stderr }.joined()
        #expect(retried.contains("retr"), "\(retried.suffix(1000))")
        backend.stopCleanly()
    }

    /// SIGTERM while PostgreSQL is down and uploads keep coming: every instance stops cleanly within
    /// the graceful limit (10 s), its requests answered 503 or dropped, none waiting on the database.
    @Test func aSIGTERMDuringADatabaseOutageStopsEveryInstanceInTime() throws {
        let backend = try Backend(instances: 2, serveArguments: ["--delay", "0.05"])
        let stores = try Self.makeStores(in: backend.directory)
        let uploads = try Self.startUploads(stores, to: backend.url, in: backend.directory)
        // The uploads are not what this test looks at: killed at the end, not left to spend their retries.
        defer {
            for upload in uploads where upload.run.isRunning {
                upload.run.send(SIGKILL)
                upload.run.finish()
            }
        }
        try Self.waitForStored(backend, atLeast: Self.users.count * Self.metricsPerUser / 4)
        try backend.cluster.stop()
        Thread.sleep(forTimeInterval: 3)
        #expect(uploads.contains { $0.run.isRunning }, "the uploads ended before the database went down")
        for (index, instance) in backend.instances.enumerated() {
            let status = instance.stop()
            #expect(status == 0, "instance \(index) did not stop cleanly on SIGTERM (\(status)): \(instance.log.suffix(600))")
            // 0 and "stopped": it ended by itself within its graceful limit (ServiceLifecycle ends a
            // process that overruns it with a crash, and stop() kills one still running after 30 s).
            #expect(instance.log.contains("serve: stopped"), "\(instance.log.suffix(600))")
        }
    }
}
