@testable import CloudSyncReceiver
import CloudSyncTesting
import Foundation
import Logging
import Testing

/// One suite for every storage backend of `serve`: the same calls and the same answers from the
/// SQLite file and from PostgreSQL (a cluster the test creates and stops).
@Suite(.serialized) struct ReceiverStorageTests {
    enum Backend: String, CaseIterable, Sendable { case sqlite, postgres }

    static let postgresMissing = "PostgreSQL is not installed (Debian: postgresql)"

    /// The PostgreSQL storage's limits here: far above serve's (8 s to start, 5 s a call). Swift
    /// Testing runs the synchronous suites on this process's cooperative threads, and their waits
    /// for child processes can hold an async test up for minutes in a full run; a limit of serve's
    /// would then fail tests that only wait. The limits themselves are tested through the binary
    /// (ServePostgresRestartTests, ServeDatabaseStartTests).
    static let limits = PostgresLimits(start: .seconds(600), call: .seconds(600))

    /// A fresh storage of that backend (PostgreSQL's pool running), and what to clean up after.
    private static func storage(_ backend: Backend, limits: PostgresLimits = limits,
                                _ body: (any ReceiverStorage, PostgresCluster?) async throws -> Void) async throws {
        let folder = try makeTemporaryDirectory("storage")
        defer { try? FileManager.default.removeItem(at: folder) }
        switch backend {
        case .sqlite:
            let steps = StepsFile(path: folder.appendingPathComponent("steps.jsonl").path)
            try await body(try SQLiteReceiverStorage(path: folder.appendingPathComponent("serve.sqlite").path, steps: steps), nil)
        case .postgres:
            let cluster = try PostgresCluster()
            defer { cluster.remove() }
            let storage = try await PostgresReceiverStorage.open(try PostgresLocation(cluster.url()), limits: limits, logger: Logger(label: "test"))
            try await storage.whileRunning { try await body(storage, cluster) }
        }
    }

    private static func metric(_ type: String, _ start: String, _ end: String, _ value: Double, source: String = "Watch") -> ReceivedMetric {
        ReceivedMetric(type: type, startDate: start, endDate: end, sourceApp: source, value: value, unit: "count", metadata: "{}")
    }

    @Test func cloudCareStoresEachIdentityOncePerUserInSQLite() async throws {
        try await Self.cloudCareStoresEachIdentityOncePerUser(.sqlite)
    }

    @Test(.enabled(if: PostgresCluster.isAvailable, Comment(rawValue: postgresMissing)))
    func cloudCareStoresEachIdentityOncePerUserInPostgreSQL() async throws {
        try await Self.cloudCareStoresEachIdentityOncePerUser(.postgres)
    }

    static func cloudCareStoresEachIdentityOncePerUser(_ backend: Backend) async throws {
        try await Self.storage(backend) { storage, _ in
            let batch = [
                Self.metric("steps", "2024-05-01T08:00:00Z", "2024-05-01T08:10:00Z", 100),
                // Same type and end date, another value or start: the real backend's index drops these; we keep them.
                Self.metric("steps", "2024-05-01T08:00:00Z", "2024-05-01T08:10:00Z", 120),
                Self.metric("steps", "2024-05-01T08:05:00Z", "2024-05-01T08:10:00Z", 100),
                Self.metric("heart_rate", "2024-05-01T08:06:00Z", "2024-05-01T08:06:00Z", 72),
            ]
            #expect(try await storage.storeCloudCare(owner: "ana", userId: "u", deviceId: "d", metrics: batch) == 4)
            #expect(try await storage.storeCloudCare(owner: "ana", userId: "u", deviceId: "d", metrics: batch) == 0)
            #expect(try await storage.storeCloudCare(owner: "ben", userId: "u", deviceId: "d", metrics: Array(batch.prefix(1))) == 1)
            let ana = try await storage.cloudCareSummary(owner: "ana")
            #expect(ana.metrics == 4 && ana.byType == ["steps": 3, "heart_rate": 1])
            #expect(ana.first == "2024-05-01T08:00:00Z" && ana.last == "2024-05-01T08:10:00Z")
            #expect(try await storage.cloudCareSummary(owner: "ben").metrics == 1)
            #expect(try await storage.cloudCareSummary(owner: "nobody").metrics == 0)
            #expect(try await storage.storeCloudCare(owner: "ana", userId: "u", deviceId: "d", metrics: []) == 0)
        }
    }

    /// A batch goes into PostgreSQL as arrays of text: every byte comes back as sent (tabs,
    /// newlines, backslashes and carriage returns in any text, non-ASCII text), every double to its
    /// last bit, and a metric twice in one batch is stored once.
    @Test(.enabled(if: PostgresCluster.isAvailable, Comment(rawValue: postgresMissing)))
    func aBatchComesBackFromPostgreSQLByteForByte() async throws {
        try await Self.storage(.postgres) { storage, cluster in
            let cluster = try #require(cluster)
            let texts = "{\"note\":\"a\\tb\\nc\\\\d\",\"raw\":\"\t\n\r\\\\N é 🫀\"}"
            var odd = Self.metric("steps", "2024-05-01T08:00:00Z", "2024-05-01T08:10:00Z", 0.1 + 0.2, source: "Watch\tof Ana\\N")
            odd.metadata = texts
            let tiny = Self.metric("steps", "2024-05-01T09:00:00Z", "2024-05-01T09:10:00Z", 1e-300)
            #expect(try await storage.storeCloudCare(owner: "ana", userId: "u", deviceId: "d", metrics: [odd, tiny, odd]) == 2)
            let stored = try cluster.psql("""
                SELECT encode(convert_to(source_app || '|' || metadata || '|' || value::text, 'UTF8'), 'hex')
                FROM cloudcare_metric ORDER BY start_date
                """)
            let expected = ["\(odd.sourceApp)|\(texts)|0.30000000000000004", "Watch|{}|1e-300"]
                .map { Array($0.utf8).map { String(format: "%02x", $0) }.joined() }
            #expect(stored.split(separator: "\n").map(String.init) == expected)
        }
    }

    @Test func floAndStepsAndPairingsInSQLite() async throws {
        try await Self.floAndStepsAndPairings(.sqlite)
    }

    @Test(.enabled(if: PostgresCluster.isAvailable, Comment(rawValue: postgresMissing)))
    func floAndStepsAndPairingsInPostgreSQL() async throws {
        try await Self.floAndStepsAndPairings(.postgres)
    }

    static func floAndStepsAndPairings(_ backend: Backend) async throws {
        try await Self.storage(backend) { storage, cluster in
            #expect(try await storage.floState(owner: "ana").backfillComplete == false)
            let samples = (0..<3).map { ReceivedFloSample(uuid: "u\($0)", dataType: "steps", value: Double($0), unit: "count",
                                                         startDate: "2024-05-0\($0 + 1)", endDate: "2024-05-0\($0 + 1)", body: "{}") }
            #expect(try await storage.storeFloSamples(owner: "ana", samples) == 3)
            #expect(try await storage.storeFloSamples(owner: "ana", samples) == 0)
            #expect(try await storage.storeFloSamples(owner: "ben", samples) == 3)
            try await storage.markFloBackfillComplete(owner: "ana", date: "2024-05-03", sampleCount: 3)
            try await storage.markFloBackfillComplete(owner: "ana", date: "2024-05-04", sampleCount: 4)
            let state = try await storage.floState(owner: "ana")
            #expect(state.backfillComplete && state.backfillDate == "2024-05-04")
            #expect(try await storage.floState(owner: "ben").backfillComplete == false)

            let steps = ["a", "b", "a"].map { ReceivedStepsSample(uuid: $0, line: "{\"uuid\":\"\($0)\"}") }
            #expect(try await storage.storeSteps(owner: "ana", steps) == 2)
            #expect(try await storage.storeSteps(owner: "ana", steps) == 0)
            #expect(try await storage.stepsCount(owner: "ana") == 2)
            if let sqlite = storage as? SQLiteReceiverStorage {
                let file = sqlite.steps.url(for: "ana")
                #expect(try String(contentsOf: file, encoding: .utf8) == "{\"uuid\":\"a\"}\n{\"uuid\":\"b\"}\n")
                // A file that cannot be written: nothing is marked as stored.
                try FileManager.default.removeItem(at: file)
                try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
                await #expect(throws: (any Error).self) {
                    try await storage.storeSteps(owner: "ana", [ReceivedStepsSample(uuid: "c", line: "{}")])
                }
                #expect(try await storage.stepsCount(owner: "ana") == 2)
                try FileManager.default.removeItem(at: file)
            } else if let cluster {
                // PostgreSQL keeps each line in its row: no file is made of the database's address.
                let lines = try cluster.psql("SELECT line FROM steps_sample WHERE owner = 'ana' ORDER BY uuid", database: "postgres")
                #expect(lines.contains("{\"uuid\":\"a\"}") && lines.contains("{\"uuid\":\"b\"}"), "\(lines)")
            }
            try await storage.deleteSteps(owner: "ana")
            #expect(try await storage.stepsCount(owner: "ana") == 0)

            let pairing = ReceivedPairing(iosUserId: "i", iosDeviceId: "d", androidUserId: "a", deviceName: nil, pairedAt: "2024-05-01")
            let first = try await storage.storePairing(owner: "ana", pairing)
            #expect(try await storage.storePairing(owner: "ana", pairing) > first)
            await storage.log(owner: "ana", path: "/x", status: 200, count: 3)
        }
    }

    @Test(.enabled(if: PostgresCluster.isAvailable, Comment(rawValue: postgresMissing)))
    func twoInstancesStartingAtOnceMigrateOnce() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let location = try PostgresLocation(cluster.url())
        async let first = PostgresReceiverStorage.open(location, limits: Self.limits, logger: Logger(label: "a"))
        async let second = PostgresReceiverStorage.open(location, limits: Self.limits, logger: Logger(label: "b"))
        _ = try await (first, second)
        #expect(try cluster.psql("SELECT count(*) FROM cloudsync_migration") == "\(PostgresMigration.steps.count)")
        // A third finds the schema current.
        _ = try await PostgresReceiverStorage.open(location, limits: Self.limits, logger: Logger(label: "c"))
        #expect(try cluster.psql("SELECT count(*) FROM cloudsync_migration") == "\(PostgresMigration.steps.count)")
    }

    /// PostgreSQL sends a statement's rows before it commits it (at the protocol's Sync), and a
    /// server stopped in between flushes them with its goodbye and rolls the statement back. A
    /// deferred trigger that sleeps at commit holds that moment open; the server is stopped while
    /// it sleeps (seen in pg_stat_activity), and the batch must not be acknowledged. The sleep and
    /// the call's limit are long, so that only the stop can end the call.
    @Test(.enabled(if: PostgresCluster.isAvailable, Comment(rawValue: postgresMissing)))
    func aBatchIsAcknowledgedOnlyOnceCommitted() async throws {
        try await Self.storage(.postgres) { storage, cluster in
            let cluster = try #require(cluster)
            try cluster.psql("""
                CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN PERFORM pg_sleep(300); RETURN NULL; END';
                CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON cloudcare_metric DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW EXECUTE FUNCTION slow_commit();
                """)
            let metrics = [Self.metric("steps", "2024-05-01T08:00:00Z", "2024-05-01T08:10:00Z", 100)]
            let call = Task { try await storage.storeCloudCare(owner: "ana", userId: "u", deviceId: "d", metrics: metrics) }
            let deadline = Date().addingTimeInterval(300)
            while try cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'") == "0" {
                guard Date() < deadline else { Issue.record("the batch never reached its commit"); call.cancel(); return }
                try await Task.sleep(for: .milliseconds(50))
            }
            try cluster.stop()
            await #expect(throws: StorageUnavailable.self) { _ = try await call.value }
            try cluster.start()
            #expect(try cluster.psql("SELECT count(*) FROM cloudcare_metric") == "0")
        }
    }

    @Test func postgresAddresses() throws {
        #expect(try PostgresLocation("postgres://ana@db.example:6543/health").description == "postgres://ana@db.example:6543/health")
        #expect(try PostgresLocation("postgresql://ana:secret@db/health?sslmode=require").description == "postgresql://ana:%E2%80%A6@db/health?sslmode=require")
        #expect(try PostgresLocation("postgres://ana@localhost/health?host=/run/postgresql").socketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(throws: StorageError.self) { try PostgresLocation("postgres://db.example/health") }
        #expect(throws: StorageError.self) { try PostgresLocation("postgres://ana@db.example/") }
        #expect(throws: StorageError.self) { try PostgresLocation("postgres://ana@db.example/health?sslmode=sometimes") }
    }
}
