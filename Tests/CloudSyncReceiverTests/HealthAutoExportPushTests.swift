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

/// `POST /health-auto-export` in process: the receiver built as `serve --store` builds it (its router,
/// a token, the push store over a real staging store), sent the app's real JSON with the headers its
/// REST automation sends; what the store holds afterwards read from the SQLite file.
@Suite struct HealthAutoExportPushTests {
    static let token = "a-token-of-enough-characters"

    /// A receiver taking pushes into the fixture's store, as `serve --store PATH --token-file …` makes it.
    static func receiver(_ fixture: StoreFixture, maxPushSize: Int? = nil) async throws -> Receiver {
        try await ReceiverRoutesTests.receiver {
            $0.users = ReceiverUsers(singleToken: token)
            $0.patientStores = PersonalStore(store: try fixture.open(), wait: Receiver.pushWriteWait)
            if let maxPushSize { $0.maxPushSize = maxPushSize }
        }
    }

    /// The headers of the app's REST automation, and the token as the user gives it.
    static func headers(token: String? = HealthAutoExportPushTests.token, apiKey: String? = nil, session: String = "session-1") -> HTTPFields {
        var headers: HTTPFields = [.init("automation-name")!: "Keep it current", .init("automation-id")!: "5B1D2E7A-0C7E-4D35-9A7A-5F3C1E2B9D10",
                                   .init("automation-period")!: "Since Last Sync", .init("session-id")!: session, .contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        if let apiKey { headers[.init("x-api-key")!] = apiKey }
        return headers
    }

    static func push(_ client: some TestClientProtocol, _ body: Data, headers: HTTPFields = headers()) async throws -> (status: HTTPResponse.Status, object: [String: Any]) {
        let response = try await client.execute(uri: Receiver.healthAutoExportPath, method: .post, headers: headers, body: ByteBuffer(bytes: body))
        return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:])
    }

    /// A count from the store's file, read as another process would read it.
    static func count(_ store: String, _ sql: String) throws -> Int64 {
        try SQLiteDatabase(path: store, mode: .readOnly).scalarInt(sql) ?? -1
    }

    /// The sample document split as the app splits a large export: its metrics, then its workouts.
    static func sampleParts() throws -> (metrics: Data, workouts: Data) {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Paths.sampleHealthAutoExport))) as? [String: Any])
        let data = try #require(document["data"] as? [String: Any])
        return (try JSONSerialization.data(withJSONObject: ["data": ["metrics": data["metrics"]!]]),
                try JSONSerialization.data(withJSONObject: ["data": ["workouts": data["workouts"]!]]))
    }

    @Test func aPushIsStoredAndCountedAndTheSamePushAgainStoresNothing() async throws {
        let fixture = try StoreFixture()
        let store = fixture.path
        let (metrics, workouts) = try Self.sampleParts()
        try await ReceiverRoutesTests.test(try await Self.receiver(fixture)) { client in
            let one = try await Self.push(client, metrics)
            #expect(one.status == .ok, "\(one.object)")
            #expect(one.object["stored"] as? Int == 14 && one.object["alreadyThere"] as? Int == 0, "\(one.object)")
            #expect((one.object["storedByType"] as? [String: Int])?["HKQuantityTypeIdentifierStepCount"] == 2)
            #expect((one.object["storedByType"] as? [String: Int])?.values.reduce(0, +) == 14)
            #expect(one.object["unmapped"] as? [String] == ["made_up_metric"])
            // The token as X-API-Key, as people give it to the app.
            let two = try await Self.push(client, workouts, headers: Self.headers(token: nil, apiKey: Self.token))
            #expect(two.status == .ok && two.object["stored"] as? Int == 1, "\(two.object)")
            #expect((two.object["routes"] as? [String: Int]) == ["new": 1, "alreadyThere": 0])
            #expect(((two.object["records"] as? [String: Any])?["series"] as? [String: Int])?["new"] == 1, "\(two.object)")
            #expect((two.object["notKept"] as? [String: Any])?.isEmpty == true, "\(two.object)")
            // The app retries: the same request again adds nothing, and says what was already there.
            let retry = try await Self.push(client, metrics)
            #expect(retry.status == .ok && retry.object["stored"] as? Int == 0 && retry.object["alreadyThere"] as? Int == 14, "\(retry.object)")
            #expect((retry.object["alreadyThereByType"] as? [String: Int])?["HKQuantityTypeIdentifierStepCount"] == 2)
            #expect((retry.object["storedByType"] as? [String: Int])?.isEmpty == true)
        }
        #expect(try Self.count(store, "SELECT count(*) FROM metric") == 15)
        #expect(try Self.count(store, "SELECT count(*) FROM route") == 1)
        #expect(try Self.count(store, "SELECT count(*) FROM import_run WHERE outcome = 'ok' AND source_kind = 'health-auto-export'") == 3)
        #expect(try Self.count(store, "SELECT count(*) FROM hae_push WHERE session_id = 'session-1' AND automation_name = 'Keep it current' AND period = 'Since Last Sync'") == 3)
    }

    @Test func aPushWithoutTheRightTokenIs401AndStoresNothing() async throws {
        let fixture = try StoreFixture()
        let store = fixture.path
        let good = Data(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2025-03-10 00:00:00 -0700","qty":5}]}]}}"#.utf8)
        try await ReceiverRoutesTests.test(try await Self.receiver(fixture)) { client in
            for headers in [Self.headers(token: nil), Self.headers(token: "wrong-token-of-enough-characters"), Self.headers(token: nil, apiKey: "wrong"),
                            Self.headers(token: String(Self.token.dropLast()))] {
                let refused = try await Self.push(client, good, headers: headers)
                #expect(refused.status == .unauthorized)
                #expect((refused.object["detail"] as? String)?.contains("Bearer token") == true)
            }
            #expect(try Self.count(store, "SELECT count(*) FROM import_run") == 0)
            #expect(try await Self.push(client, good).status == .ok)
        }
        #expect(try Self.count(store, "SELECT count(*) FROM metric") == 1)
    }

    /// 400 for what is not JSON, 422 for JSON that is not the app's, each naming the JSON path of
    /// the first problem (and the byte, for a syntax error); 413 over the limit. Nothing of any is kept.
    @Test func aRefusedPushNamesItsProblemAndStoresNothing() async throws {
        let fixture = try StoreFixture()
        let store = fixture.path
        let good = Data(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2025-03-10 00:00:00 -0700","qty":5}]}]}}"#.utf8)
        try await ReceiverRoutesTests.test(try await Self.receiver(fixture, maxPushSize: 4096)) { client in
            let malformed = try await Self.push(client, Data(#"{"data":{"metrics":[{"name":"step_count",]}}"#.utf8))
            #expect(malformed.status == .badRequest)
            #expect(malformed.object["path"] as? String == "$.data.metrics[0]")
            #expect(malformed.object["offset"] as? Int == 41)   // the ']' where a key should follow the ','
            let detail = try #require(malformed.object["detail"] as? String)
            #expect(detail.hasPrefix("the request: not valid JSON at $.data.metrics[0] (byte 41): ") && detail.hasSuffix("; nothing was stored"), "\(detail)")
            let cut = try await Self.push(client, good.prefix(good.count - 3))
            #expect(cut.status == .badRequest && cut.object["path"] != nil && cut.object["offset"] != nil, "\(cut.object)")
            let wrongShape = try await Self.push(client, Data(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2025-03-10 00:00:00 -0700","qty":5},{"date":"soon","qty":1}]}]}}"#.utf8))
            #expect(wrongShape.status == .unprocessableContent)
            #expect(wrongShape.object["path"] as? String == "$.data.metrics[0].data[1]")
            #expect(wrongShape.object["offset"] == nil)
            #expect((wrongShape.object["detail"] as? String)?.contains("not a Health Auto Export document") == true)
            let tooBig = try await Self.push(client, Data(repeating: 0x20, count: 8192) + good)
            #expect(tooBig.status == .contentTooLarge)
            #expect((tooBig.object["detail"] as? String)?.contains("larger than 4096 bytes") == true)
            #expect(try Self.count(store, "SELECT count(*) FROM metric") == 0)
            #expect(try Self.count(store, "SELECT count(*) FROM import_run") == 0)
            #expect(try Self.count(store, "SELECT count(*) FROM hae_push") == 0)
            // The first good push after them is stored whole.
            #expect(try await Self.push(client, good).object["stored"] as? Int == 1)
        }
        #expect(try Self.count(store, "SELECT count(*) FROM metric") == 1)
    }
}
