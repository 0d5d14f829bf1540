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

    @Test func floStateAndPairingsInSQLite() async throws {
        try await Self.floStateAndPairings(.sqlite)
    }

    @Test(.enabled(if: PostgresCluster.isAvailable, Comment(rawValue: postgresMissing)))
    func floStateAndPairingsInPostgreSQL() async throws {
        try await Self.floStateAndPairings(.postgres)
    }

    static func floStateAndPairings(_ backend: Backend) async throws {
        try await Self.storage(backend) { storage, _ in
            #expect(try await storage.floState(owner: "ana").backfillComplete == false)
            try await storage.markFloBackfillComplete(owner: "ana", date: "2024-05-03", sampleCount: 3)
            try await storage.markFloBackfillComplete(owner: "ana", date: "2024-05-04", sampleCount: 4)
            let state = try await storage.floState(owner: "ana")
            #expect(state.backfillComplete && state.backfillDate == "2024-05-04")
            #expect(try await storage.floState(owner: "ben").backfillComplete == false)

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

    @Test func postgresAddresses() throws {
        #expect(try PostgresLocation("postgres://ana@db.example:6543/health").description == "postgres://ana@db.example:6543/health")
        #expect(try PostgresLocation("postgresql://ana:secret@db/health?sslmode=require").description == "postgresql://ana:%E2%80%A6@db/health?sslmode=require")
        #expect(try PostgresLocation("postgres://ana@localhost/health?host=/run/postgresql").socketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(throws: StorageError.self) { try PostgresLocation("postgres://db.example/health") }
        #expect(throws: StorageError.self) { try PostgresLocation("postgres://ana@db.example/") }
        #expect(throws: StorageError.self) { try PostgresLocation("postgres://ana@db.example/health?sslmode=sometimes") }
    }
}
