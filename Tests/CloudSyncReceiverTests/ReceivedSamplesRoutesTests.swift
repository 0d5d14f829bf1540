import CloudSyncKinds
@testable import CloudSyncReceiver
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Every route that receives a patient's samples (CloudCare batches, Flō samples, steps, Health
/// Auto Export pushes) writes the patient's store rows, under one identity: a sample that arrives
/// by two routes counts once, on SQLite (a store per patient) and on PostgreSQL (their rows).
@Suite(.serialized) struct ReceivedSamplesRoutesTests {
    enum Engine: String, CaseIterable, Sendable { case sqlite, postgres }

    static let postgresMissing = "PostgreSQL is not installed (Debian: postgresql)"
    static let users = "ana ana-token-0123456789\nben ben-token-0123456789\n"

    /// A receiver whose patients' stores are on `engine`, its router, and the cluster (PostgreSQL).
    static func withReceiver(_ engine: Engine, _ body: @escaping @Sendable (any TestClientProtocol, PostgresCluster?) async throws -> Void) async throws {
        let folder = try makeTemporaryDirectory("received")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ReceiverConfiguration()
        configuration.databasePath = folder.appendingPathComponent("clinic.sqlite").path
        configuration.users = try ReceiverUsers(parsing: users, file: "tokens")
        var cluster: PostgresCluster?
        defer { cluster?.remove() }
        var storeConfiguration = StagingStore.Configuration.standard
        storeConfiguration.writeWait = 600
        switch engine {
        case .sqlite:
            configuration.patientStores = PatientStoreFolder(folder: folder.appendingPathComponent("clinic-patients").path,
                                                             configuration: storeConfiguration, wait: 600)
        case .postgres:
            let made = try PostgresCluster()
            cluster = made
            let stores = PostgresPatientStores(address: made.url(), configuration: storeConfiguration)
            try stores.prepare()
            configuration.patientStores = stores
        }
        let receiver = try await Receiver(configuration: configuration, logger: Logger(label: "received-samples-tests"))
        let shared = cluster
        try await Application(router: receiver.makeRouter()).test(.router) { client in try await body(client, shared) }
    }

    static func post(_ client: any TestClientProtocol, _ path: String, as user: String, _ body: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        let response = try await client.execute(uri: path, method: .post, headers: [.authorization: "Bearer \(user)-token-0123456789"],
                                                body: ByteBuffer(string: body))
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:]
        return (response.status, object)
    }

    static func get(_ client: any TestClientProtocol, _ path: String, as user: String) async throws -> [String: Any] {
        let response = try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer \(user)-token-0123456789"])
        #expect(response.status == .ok, "\(path): \(response.status)")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }

    static func envelope(_ metrics: [String]) -> String {
        """
        {"userId":"u-1","deviceId":"d-1","exportTimestamp":"2024-05-02T00:00:00Z",
         "dataRange":{"startDate":"2024-05-01T08:00:00Z","endDate":"2024-05-01T08:10:00Z"},"metrics":[\(metrics.joined(separator: ","))]}
        """
    }

    static func steps(_ start: String, _ end: String, _ value: Int, metadata: String = #"{"device":"Apple Watch"}"#) -> String {
        #"{"type":"HKQuantityTypeIdentifierStepCount","startDate":"\#(start)","endDate":"\#(end)","sourceApp":"Watch","value":\#(value),"unit":"count","metadata":\#(metadata)}"#
    }

    static let batch = envelope([
        steps("2024-05-01T08:00:00Z", "2024-05-01T08:10:00Z", 100),
        // Same type and end date, another value or start: the real backend's index drops these; we keep them.
        steps("2024-05-01T08:00:00Z", "2024-05-01T08:10:00Z", 120),
        steps("2024-05-01T08:05:00Z", "2024-05-01T08:10:00Z", 100),
        #"{"type":"HKQuantityTypeIdentifierHeartRate","startDate":"2024-05-01T08:06:00Z","endDate":"2024-05-01T08:06:00Z","sourceApp":"Watch","value":72,"unit":"bpm","metadata":{"device":"Apple Watch"}}"#,
    ])

    @Test func eachSampleCountsOnceWhicheverRouteItCameByOnSQLite() async throws {
        try await Self.eachSampleCountsOnceWhicheverRouteItCameBy(.sqlite)
    }

    @Test(.enabled(if: PostgresCluster.isAvailable, Comment(rawValue: postgresMissing)))
    func eachSampleCountsOnceWhicheverRouteItCameByOnPostgreSQL() async throws {
        try await Self.eachSampleCountsOnceWhicheverRouteItCameBy(.postgres)
    }

    static func eachSampleCountsOnceWhicheverRouteItCameBy(_ engine: Engine) async throws {
        try await withReceiver(engine) { client, _ in
            let cloudCare = "/api/v1/wearables/import/apple-health"
            let (status, first) = try await post(client, cloudCare, as: "ana", batch)
            #expect(status == .created && first["stored_count"] as? Int == 4 && first["duplicate_count"] as? Int == 0, "\(first)")
            let (_, again) = try await post(client, cloudCare, as: "ana", batch)
            #expect(again["stored_count"] as? Int == 0 && again["duplicate_count"] as? Int == 4 && again["was_duplicate"] as? Bool == true)
            let (_, ben) = try await post(client, cloudCare, as: "ben", envelope([steps("2024-05-01T08:00:00Z", "2024-05-01T08:10:00Z", 100)]))
            #expect(ben["stored_count"] as? Int == 1)

            // The first steps sample again, as Flō, as the steps API and as a push: already there each time.
            let flo = #"{"samples":[{"dataType":"HKQuantityTypeIdentifierStepCount","value":100,"unit":"count","startDate":"2024-05-01T08:00:00.000Z","endDate":"2024-05-01T08:10:00.000Z","sourceName":"Watch","deviceName":"Apple Watch","metadata":{},"uuid":"5E8A2B4C-1D3F-4A5B-8C7D-9E0F1A2B3C4D"}]}"#
            let (_, floAnswer) = try await post(client, "/api/healthkit/samples", as: "ana", flo)
            #expect(floAnswer["inserted"] as? Int == 0 && floAnswer["duplicates"] as? Int == 1, "\(floAnswer)")
            let stepsBody = #"{"samples":[{"uuid":"5E8A2B4C-1D3F-4A5B-8C7D-9E0F1A2B3C4D","startDate":"2024-05-01T08:00:00.000Z","endDate":"2024-05-01T08:10:00.000Z","count":100,"sourceBundleId":"Watch","sourceDeviceName":"Apple Watch"},{"uuid":"6E8A2B4C-1D3F-4A5B-8C7D-9E0F1A2B3C4D","startDate":"2024-05-01T09:00:00.000Z","endDate":"2024-05-01T09:10:00.000Z","count":30,"sourceBundleId":"Watch","sourceDeviceName":"Apple Watch"}]}"#
            let (_, stepsAnswer) = try await post(client, "/steps", as: "ana", stepsBody)
            #expect(stepsAnswer["saved"] as? Int == 1, "\(stepsAnswer)")
            let push = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-05-01 08:00:00 +0000","start":"2024-05-01 08:00:00 +0000","end":"2024-05-01 08:10:00 +0000","qty":100,"source":"Watch"}]}]}}"#
            let (pushStatus, pushAnswer) = try await post(client, Receiver.healthAutoExportPath, as: "ana", push)
            #expect(pushStatus == .ok && pushAnswer["stored"] as? Int == 0 && pushAnswer["alreadyThere"] as? Int == 1, "\(pushAnswer)")

            let summary = try await get(client, "/api/v1/wearables/metrics/summary", as: "ana")
            #expect(summary["metrics"] as? Int == 5, "\(summary)")
            #expect(summary["byType"] as? [String: Int] == ["HKQuantityTypeIdentifierStepCount": 4, "HKQuantityTypeIdentifierHeartRate": 1])
            #expect(summary["first"] as? String == "2024-05-01T08:00:00Z" && summary["last"] as? String == "2024-05-01T09:10:00Z")
            #expect(try await get(client, "/steps", as: "ana")["storedCount"] as? Int == 4)
            #expect(try await get(client, "/api/v1/wearables/metrics/summary", as: "ben")["metrics"] as? Int == 1)
            #expect(try await get(client, "/steps", as: "ben")["storedCount"] as? Int == 1)
            let delete = try await client.execute(uri: "/steps", method: .delete, headers: [.authorization: "Bearer ana-token-0123456789"])
            #expect(delete.status == .methodNotAllowed)
            #expect(try await get(client, "/steps", as: "ana")["storedCount"] as? Int == 4)
        }
    }

    @Test func aBadDateIsRefusedNamingTheMetric() async throws {
        try await Self.withReceiver(.sqlite) { client, _ in
            let (status, answer) = try await Self.post(client, "/wearables/import/apple-health", as: "ana",
                                                   Self.envelope([Self.steps("2024-05-01T08:00:00Z", "yesterday", 1)]))
            #expect(status == .unprocessableContent)
            let errors = try #require(answer["errors"] as? [[String: Any]])
            #expect(errors.first?["field"] as? String == "metrics[0].endDate", "\(errors)")
            #expect(try await Self.get(client, "/api/v1/wearables/metrics/summary", as: "ana")["metrics"] as? Int == 0)
        }
    }

    /// A batch goes into PostgreSQL through `COPY`'s text form: every byte comes back as sent (tabs,
    /// newlines, backslashes and carriage returns, non-ASCII text), every double to its last bit.
    @Test(.enabled(if: PostgresCluster.isAvailable, Comment(rawValue: postgresMissing)))
    func aBatchComesBackFromPostgreSQLByteForByte() async throws {
        try await Self.withReceiver(.postgres) { client, cluster in
            let cluster = try #require(cluster)
            let metadata = #"{"device":"Apple Watch","note":"a\tb\nc\\d","raw":"\t\n\r\\N é 🫀"}"#
            let odd = #"{"type":"HKQuantityTypeIdentifierStepCount","startDate":"2024-05-01T08:00:00Z","endDate":"2024-05-01T08:10:00Z","sourceApp":"Watch\tof Ana\\N","value":0.30000000000000004,"unit":"count","metadata":\#(metadata)}"#
            let tiny = Self.steps("2024-05-01T09:00:00Z", "2024-05-01T09:10:00Z", 0).replacingOccurrences(of: #""value":0"#, with: #""value":1e-300"#)
            let (status, answer) = try await Self.post(client, "/wearables/import/apple-health", as: "ana", Self.envelope([odd, tiny, odd]))
            #expect(status == .created && answer["stored_count"] as? Int == 2, "\(answer)")
            let stored = try cluster.psql("""
                SELECT encode(convert_to(s.name || '|' || coalesce(m.extra, '') || '|' || m.value::text, 'UTF8'), 'hex')
                FROM metric m JOIN source s ON s.owner = m.owner AND s.id = m.source_id ORDER BY m.start_date
                """)
            // The metadata but its device, as members (`MetricWriter`: the device has a column of its own).
            let expected = ["Watch\tof Ana\\N|\"note\":\"a\\tb\\nc\\\\d\",\"raw\":\"\\t\\n\\r\\\\N é 🫀\"|0.30000000000000004", "Watch||1e-300"]
                .map { Array($0.utf8).map { String(format: "%02x", $0) }.joined() }
            #expect(stored.split(separator: "\n").map(String.init) == expected)
        }
    }

    /// A batch is answered 201 only once PostgreSQL committed it: a server stopped while the commit
    /// waits (a deferred trigger that sleeps, seen in pg_stat_activity) gives 503, and nothing stays.
    @Test(.enabled(if: PostgresCluster.isAvailable, Comment(rawValue: postgresMissing)))
    func aBatchIsAcknowledgedOnlyOnceCommitted() async throws {
        try await Self.withReceiver(.postgres) { client, cluster in
            let cluster = try #require(cluster)
            try cluster.psql("""
                CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN PERFORM pg_sleep(300); RETURN NULL; END';
                CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON metric DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW EXECUTE FUNCTION slow_commit();
                """)
            let call = Task { try await Self.post(client, "/wearables/import/apple-health", as: "ana", Self.batch).0 }
            let deadline = Date().addingTimeInterval(300)
            while try cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'") == "0" {
                guard Date() < deadline else { Issue.record("the batch never reached its commit"); call.cancel(); return }
                try await Task.sleep(for: .milliseconds(50))
            }
            try cluster.stop()
            #expect(try await call.value == .serviceUnavailable)
            try cluster.start()
            #expect(try cluster.psql("SELECT count(*) FROM metric") == "0")
        }
    }
}
