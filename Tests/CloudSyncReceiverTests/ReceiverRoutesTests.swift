import CloudSyncKinds
@testable import CloudSyncReceiver
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// The receiver's routes in process (HummingbirdTesting's router framework: the real router and its
/// middleware, no socket), on a real SQLite file: what each contract answers, what it stores once,
/// and how it refuses. What a user runs, `cloudsync serve` on a port, is tested through the binary
/// in CloudSyncCLITests.
@Suite struct ReceiverRoutesTests {
    /// A receiver on a new SQLite file.
    static func receiver(_ configure: (inout ReceiverConfiguration) throws -> Void = { _ in }) async throws -> Receiver {
        var configuration = ReceiverConfiguration()
        let folder = try makeTemporaryDirectory()
        configuration.databasePath = folder.appendingPathComponent("received.sqlite").path
        configuration.patientStores = PatientStoreFolder(folder: folder.appendingPathComponent("received-patients").path,
                                                         configuration: .standard, wait: Receiver.pushWriteWait)
        try configure(&configuration)
        return try await Receiver(configuration: configuration, logger: Logger(label: "receiver-tests"))
    }

    /// Runs `body` against the receiver's router.
    static func test(_ receiver: Receiver, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await Application(router: receiver.makeRouter()).test(.router, body)
    }

    static func json(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }

    static let envelope = """
        {"userId":"u-1","deviceId":"d-1","exportTimestamp":"2024-05-01T00:00:00Z",
         "dataRange":{"startDate":"2024-04-30T08:00:00Z","endDate":"2024-04-30T08:05:00Z"},
         "metrics":[
          {"type":"HKQuantityTypeIdentifierStepCount","startDate":"2024-04-30T08:00:00Z","endDate":"2024-04-30T08:01:00Z",
           "sourceApp":"Watch","value":12,"unit":"count","metadata":{}},
          {"type":"HKQuantityTypeIdentifierBasalEnergyBurned","startDate":"2024-04-30T08:04:00Z","endDate":"2024-04-30T08:05:00Z",
           "sourceApp":"Watch","value":1.5,"unit":"kcal","metadata":{"HKWasUserEntered":"0"}}]}
        """

    @Test func cloudCareStoresAnEnvelopeOnceAndCountsTheSameAgainAsDuplicates() async throws {
        try await Self.test(try await Self.receiver()) { client in
            let path = "/api/v1/wearables/import/apple-health"
            let first = try await client.execute(uri: path, method: .post, body: Self.json(Self.envelope))
            #expect(first.status == .created)
            let answer = try Self.object(first)
            #expect(answer["total_metrics"] as? Int == 2 && answer["stored_count"] as? Int == 2 && answer["duplicate_count"] as? Int == 0)
            let again = try Self.object(try await client.execute(uri: path, method: .post, body: Self.json(Self.envelope)))
            #expect(again["stored_count"] as? Int == 0 && again["duplicate_count"] as? Int == 2 && again["was_duplicate"] as? Bool == true)
            let summary = try Self.object(try await client.execute(uri: "/api/v1/wearables/metrics/summary", method: .get))
            #expect(summary["metrics"] as? Int == 2)
        }
    }

    /// As the real backend: a type it does not know is dropped and not counted in `total_metrics`.
    @Test func likeTheRealBackendItCountsOnlyTheTypesItKnows() async throws {
        try await Self.test(try await Self.receiver { $0.dropsUnknownTypes = true }) { client in
            let answer = try Self.object(try await client.execute(uri: "/wearables/import/apple-health", method: .post, body: Self.json(Self.envelope)))
            #expect(answer["total_metrics"] as? Int == 1 && answer["stored_count"] as? Int == 1)
        }
    }

    @Test func aMalformedEnvelopeIs422NamingTheField() async throws {
        try await Self.test(try await Self.receiver()) { client in
            let body = Self.envelope.replacingOccurrences(of: #""startDate":"2024-04-30T08:00:00Z","endDate":"2024-04-30T08:01:00Z","#, with: "")
            let response = try await client.execute(uri: "/wearables/import/apple-health", method: .post, body: Self.json(body))
            #expect(response.status == .unprocessableContent)
            let errors = try #require(try Self.object(response)["errors"] as? [[String: Any]])
            #expect(errors.first?["field"] as? String == "metrics[0].startDate", "\(errors)")
        }
    }

    @Test func withATokenEveryRouteButHealthWantsIt() async throws {
        try await Self.test(try await Self.receiver { $0.users = ReceiverUsers(singleToken: "s3cret") }) { client in
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            let path = "/wearables/import/apple-health"
            #expect(try await client.execute(uri: path, method: .post, body: Self.json(Self.envelope)).status == .unauthorized)
            let wrong = try await client.execute(uri: path, method: .post, headers: [.authorization: "Bearer s3cre"], body: Self.json(Self.envelope))
            #expect(wrong.status == .unauthorized)
            let right = try await client.execute(uri: path, method: .post, headers: [.authorization: "Bearer s3cret"], body: Self.json(Self.envelope))
            #expect(right.status == .created)
            #expect(try await client.execute(uri: "/steps", method: .get).status == .unauthorized)
        }
    }

    @Test func aBodyOverTheLimitIs413AndStoresNothing() async throws {
        try await Self.test(try await Self.receiver { $0.maxBodySize = 100 }) { client in
            let response = try await client.execute(uri: "/wearables/import/apple-health", method: .post, body: Self.json(Self.envelope))
            #expect(response.status == .contentTooLarge)
        }
    }

    @Test func floBackfillTakesEachUUIDOnceAndIsMarkedComplete() async throws {
        try await Self.test(try await Self.receiver()) { client in
            let status = try Self.object(try await client.execute(uri: "/api/healthkit/sync-status", method: .get))
            #expect(status["needsHistoricalSync"] as? Bool == true && status["recommendedStartDate"] as? String == "2021-12-07T00:00:00.000Z")
            let sample = """
                {"dataType":"HKQuantityTypeIdentifierStepCount","value":12,"unit":"count","startDate":"2024-04-30T08:00:00.000Z",
                 "endDate":"2024-04-30T08:01:00.000Z","sourceName":"Watch","sourceBundleId":null,"deviceName":"Watch",
                 "deviceManufacturer":"Apple Inc.","deviceModel":"Watch","metadata":{},"uuid":"6F0B7A1E-4352-4C8E-9D21-5A3FC477102B"}
                """
            let body = Self.json("{\"samples\":[\(sample),\(sample)]}")
            let answer = try Self.object(try await client.execute(uri: "/api/healthkit/samples", method: .post, body: body))
            #expect(answer["inserted"] as? Int == 1 && answer["duplicates"] as? Int == 1, "\(answer)")
            let marked = try Self.object(try await client.execute(uri: "/api/healthkit/mark-backfill-complete", method: .post,
                                                                   body: Self.json(#"{"sampleCount":1,"startDate":"2021-12-07T00:00:00.000Z","endDate":"2024-04-30T08:01:00.000Z"}"#)))
            #expect(marked["success"] as? Bool == true)
            let backfillDate = try #require(marked["backfillDate"] as? String)
            #expect(backfillDate.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/#) != nil, "\(backfillDate)")
            let after = try Self.object(try await client.execute(uri: "/api/healthkit/sync-status", method: .get))
            #expect(after["backfillComplete"] as? Bool == true && after["needsHistoricalSync"] as? Bool == false)
        }
    }

    @Test func stepsAreCountedOnceAndABadDateIs400() async throws {
        try await Self.test(try await Self.receiver()) { client in
            let sample = #"{"uuid":"6F0B7A1E-4352-4C8E-9D21-5A3FC477102B","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:28:22.000Z","count":40,"sourceBundleId":"com.apple.health","sourceDeviceName":"iPhone"}"#
            let saved = try Self.object(try await client.execute(uri: "/steps", method: .post, body: Self.json("{\"samples\":[\(sample)]}")))
            #expect(saved["saved"] as? Int == 1)
            _ = try await client.execute(uri: "/steps", method: .post, body: Self.json("{\"samples\":[\(sample)]}"))
            #expect(try Self.object(try await client.execute(uri: "/steps", method: .get))["storedCount"] as? Int == 1)
            let bad = try await client.execute(uri: "/steps", method: .post,
                                               body: Self.json(#"{"samples":[{"uuid":"6F0B7A1E-4352-4C8E-9D21-5A3FC477102C","startDate":"2025-05-11 16:27","endDate":"2025-05-11T16:28:22.000Z","count":1,"sourceBundleId":"x","sourceDeviceName":"y"}]}"#))
            #expect(bad.status == .badRequest)
            #expect((try Self.object(bad)["error"] as? String)?.contains("samples[0]") == true)
        }
    }

    /// The fault plan, in order: a 503, a 429 that names its wait, then normal service.
    @Test func faultsComeInTheOrderOfThePlan() async throws {
        try await Self.test(try await Self.receiver { $0.faults = try FaultPlan(parsing: "503,429:7") }) { client in
            let path = "/wearables/import/apple-health"
            #expect(try await client.execute(uri: path, method: .post, body: Self.json(Self.envelope)).status == .serviceUnavailable)
            let limited = try await client.execute(uri: path, method: .post, body: Self.json(Self.envelope))
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] == "7")
            #expect(try await client.execute(uri: path, method: .post, body: Self.json(Self.envelope)).status == .created)
        }
    }
}
