import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `serve --store` taking pushes as the app sends them.
@Suite struct HealthAutoExportServeTests {
    /// The headers Health Auto Export's REST automation sends, plus the token as the user adds it.
    static func push(_ url: String, body: Data, token: String? = nil, apiKey: String? = nil, session: String = "session-1",
                     aggregation: String? = nil) throws -> (status: Int, object: [String: Any]) {
        var headers = ["automation-name": "Keep it current", "automation-id": "5B1D2E7A-0C7E-4D35-9A7A-5F3C1E2B9D10",
                       "automation-period": "Since Last Sync", "session-id": session]
        if let aggregation { headers["automation-aggregation"] = aggregation }
        if let apiKey { headers["X-API-Key"] = apiKey }
        return try ServeProcess.request("POST", url + "/health-auto-export", body: body, token: token, headers: headers)
    }

    static func count(_ store: String, _ sql: String) throws -> Int {
        Int(try SQLiteDatabase(path: store, mode: .readOnly).scalarInt(sql) ?? 0)
    }

    @Test func aSessionSplitOverRequestsAndARetry() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let token = "a-token-of-enough-characters"
        let tokenFile = try writeFile(token, named: "token", in: dir)
        let serve = try ServeProcess(["--store", store, "--token-file", tokenFile], directory: dir)
        defer { _ = serve.stop() }
        let sample = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleHealthAutoExport))
        // The app splits a large export: the metrics in one request, the workouts in the next.
        let document = try #require(try JSONSerialization.jsonObject(with: sample) as? [String: Any])
        let data = try #require(document["data"] as? [String: Any])
        let first = try JSONSerialization.data(withJSONObject: ["data": ["metrics": data["metrics"]!]])
        let second = try JSONSerialization.data(withJSONObject: ["data": ["workouts": data["workouts"]!]])
        let one = try Self.push(serve.url, body: first, token: token)
        #expect(one.status == 200, "\(one.object)")
        #expect(one.object["stored"] as? Int == 14 && one.object["alreadyThere"] as? Int == 0)
        #expect((one.object["storedByType"] as? [String: Int])?["HKQuantityTypeIdentifierStepCount"] == 2)
        #expect(one.object["unmapped"] as? [String] == ["made_up_metric"])
        let two = try Self.push(serve.url, body: second, apiKey: token)
        #expect(two.status == 200 && two.object["stored"] as? Int == 1, "\(two.object)")
        #expect((two.object["routes"] as? [String: Int])?["new"] == 1)
        // The workout's heart rates are kept with it (the push holds no heart-rate samples of theirs).
        #expect(((two.object["records"] as? [String: Any])?["series"] as? [String: Int])?["new"] == 1, "\(two.object)")
        #expect((two.object["notKept"] as? [String: Any])?.isEmpty == true, "\(two.object)")
        // The app retries: the same request again adds nothing.
        let retry = try Self.push(serve.url, body: first, token: token)
        #expect(retry.status == 200 && retry.object["stored"] as? Int == 0 && retry.object["alreadyThere"] as? Int == 14)
        #expect(try Self.count(store, "SELECT count(*) FROM metric") == 15)
        #expect(try Self.count(store, "SELECT count(*) FROM hae_push WHERE session_id = 'session-1' AND automation_name = 'Keep it current'") == 3)
    }

    @Test func refusedPushesStoreNothing() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let token = "a-token-of-enough-characters"
        let tokenFile = try writeFile(token, named: "token", in: dir)
        let serve = try ServeProcess(["--store", store, "--token-file", tokenFile, "--max-body-size", "4096"], directory: dir)
        defer { _ = serve.stop() }
        let good = Data(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2025-03-10 00:00:00 -0700","qty":5}]}]}}"#.utf8)
        #expect(try Self.push(serve.url, body: good).status == 401)
        #expect(try Self.push(serve.url, body: good, token: "wrong-token-of-enough-characters").status == 401)
        #expect(try Self.push(serve.url, body: good, apiKey: "wrong").status == 401)
        let malformed = try Self.push(serve.url, body: Data(#"{"data":{"metrics":[{"name":"step_count",]}}"#.utf8), token: token)
        #expect(malformed.status == 400)
        #expect(malformed.object["path"] as? String == "$.data.metrics[0]")
        #expect(malformed.object["offset"] as? Int == 41)   // the ']' where a key should follow the ','
        let wrongShape = try Self.push(serve.url, body: Data(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2025-03-10 00:00:00 -0700","qty":5},{"date":"soon","qty":1}]}]}}"#.utf8), token: token)
        #expect(wrongShape.status == 422)
        #expect(wrongShape.object["path"] as? String == "$.data.metrics[0].data[1]")
        let tooBig = try Self.push(serve.url, body: Data(repeating: 0x20, count: 8192) + good, token: token)
        #expect(tooBig.status == 413)
        #expect(try Self.count(store, "SELECT count(*) FROM metric") == 0)
        #expect(try Self.count(store, "SELECT count(*) FROM import_run") == 0)
        #expect(try Self.push(serve.url, body: good, token: token).status == 200)
        #expect(try Self.count(store, "SELECT count(*) FROM metric") == 1)
    }

    /// Every real file of the corpus, pushed as the app pushes it: taken whole, and again adds nothing.
    @Test(.enabled(if: Paths.haeCorpusExists, "needs the shared corpus at ../shared/corpus/hae"))
    func theRealFilesPushed() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let serve = try ServeProcess(["--store", store], directory: dir)
        defer { _ = serve.stop() }
        var stored = 0
        for file in Paths.haeCorpusFiles {
            let body = try Data(contentsOf: URL(fileURLWithPath: file))
            let first = try Self.push(serve.url, body: body)
            #expect(first.status == 200, "\(file): \(first.object)")
            #expect((first.object["unmapped"] as? [String])?.isEmpty == true, "\(file)")
            let again = try Self.push(serve.url, body: body)
            #expect(again.object["stored"] as? Int == 0 && again.object["alreadyThere"] as? Int == (first.object["stored"] as? Int ?? -1)
                    + (first.object["alreadyThere"] as? Int ?? -1), "\(file)")
            stored += first.object["stored"] as? Int ?? 0
        }
        #expect(try Self.count(store, "SELECT count(*) FROM metric") == stored)
        #expect(try Self.count(store, "SELECT count(*) FROM hae_push") == 2 * Paths.haeCorpusFiles.count)
    }
}
