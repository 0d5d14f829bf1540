import CloudSyncTesting
import Foundation
import Testing

/// Who reads what, on SQLite and on PostgreSQL: a patient writes and reads their own data, a carer
/// reads the patients named in `reads=` and writes nothing, an administrator erases a patient (every
/// row, in one transaction, the others untouched) and reads no health data. Anything else is 403.
@Suite struct ServeRolesTests {
    static let tokens = [
        "alice": "alice-token-0123456789abcdef", "bob": "bob-token-fedcba9876543210xx",
        "carol": "carol-token-carer-0123456789", "root": "root-token-admin-0123456789a",
    ]

    static func tokensFile(in dir: URL) throws -> String {
        let text = """
            alice \(tokens["alice"]!)
            bob   \(tokens["bob"]!)
            carol \(tokens["carol"]!) reads=alice   # alice's nurse
            root  \(tokens["root"]!) admin

            """
        let path = dir.appendingPathComponent("tokens").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// One CloudCare envelope of `count` heart rates.
    static func envelope(_ count: Int, first: Int = 0) -> [String: Any] {
        let metrics: [[String: Any]] = (first..<(first + count)).map { minute in
            let date = String(format: "2024-05-01T08:%02d:00Z", minute)
            return ["type": "HKQuantityTypeIdentifierHeartRate", "startDate": date, "endDate": date, "value": 60 + minute,
                    "unit": "count/min", "sourceApp": "Watch", "metadata": [String: Any]()]
        }
        return ["userId": "u", "deviceId": "d", "exportTimestamp": "2024-05-02T00:00:00Z",
                "dataRange": ["startDate": "2024-05-01T00:00:00Z", "endDate": "2024-05-02T00:00:00Z"], "metrics": metrics]
    }

    @Test func rolesOnSQLite() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try ServeProcess(["--tokens", try Self.tokensFile(in: dir)], directory: dir)
        defer { _ = serve.stop() }
        try Self.whoReadsWhat(serve)
    }

    /// On PostgreSQL, as a role of its own (not a superuser, which row-level security exempts), as
    /// docs/serve.md deploys it: the routes' check, and PostgreSQL's own behind it.
    @Test(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
    func rolesOnPostgreSQL() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let database = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try ServeProcess(["--tokens", try Self.tokensFile(in: dir)], directory: dir, database: database)
        defer { _ = serve.stop() }
        try Self.whoReadsWhat(serve)
        #expect(try cluster.psql("SELECT count(*) FROM metric WHERE owner = 'alice'", database: "clinic") == "0")
        #expect(try cluster.psql("SELECT count(*) FROM metric WHERE owner = 'bob'", database: "clinic") == "3")
        // Row-level security: serve's role, in a transaction that names no owner, sees no row at all,
        // whatever the statement asks; naming bob, bob's rows only; and it cannot write a row of
        // another owner than the one it named.
        let asServe = "SET ROLE clinic; "
        // psql prints each statement's result: the count is the last line.
        func count(_ sql: String) throws -> String? { try cluster.psql(asServe + sql, database: "clinic").split(separator: "\n").last.map(String.init) }
        #expect(try count("SELECT set_config('cloudsync.owner', '', false); SELECT count(*) FROM metric") == "0")
        #expect(try count("SELECT set_config('cloudsync.owner', 'bob', false); SELECT count(*) FROM metric") == "3")
        #expect(try count("SELECT set_config('cloudsync.owner', 'carol', false); SELECT count(*) FROM metric WHERE owner = 'bob'") == "0")
        #expect(throws: (any Error).self) {
            try cluster.psql(asServe + "SELECT set_config('cloudsync.owner', 'carol', false); "
                             + "INSERT INTO steps_sample(owner, uuid) VALUES ('bob', 'x')", database: "clinic")
        }
    }

    static func whoReadsWhat(_ serve: ServeProcess) throws {
        let summary = "/api/v1/wearables/metrics/summary"
        let upload = "/api/v1/wearables/import/apple-health"
        let stored = try serve.request("POST", upload, json: envelope(5), token: tokens["alice"])
        #expect(stored.status == 201, "\(stored)")
        #expect(try serve.request("POST", upload, json: envelope(3), token: tokens["bob"]).status == 201)
        let flo = try serve.request("POST", "/api/healthkit/samples", json: ["samples": [[
            "uuid": "A1", "dataType": "steps", "value": 5, "unit": "count", "startDate": "2024-05-01T08:00:00.000Z",
            "endDate": "2024-05-01T08:01:00.000Z", "sourceName": "Watch", "metadata": [String: Any]()]]], token: tokens["alice"])
        #expect(flo.status == 200 || flo.status == 201, "\(flo)")

        // A patient: their own data (the heart rates and the Flō sample, in their store), never another's.
        #expect(try serve.request("GET", summary, token: tokens["alice"]).object["metrics"] as? Int == 6)
        #expect(try serve.request("GET", summary + "?user=alice", token: tokens["alice"]).object["metrics"] as? Int == 6)
        #expect(try serve.request("GET", summary + "?user=bob", token: tokens["alice"]).status == 403)
        // A carer: the patients named, nothing else, and no writing.
        let carer = try serve.request("GET", summary + "?user=alice", token: tokens["carol"])
        #expect(carer.status == 200 && carer.object["userId"] as? String == "alice" && carer.object["metrics"] as? Int == 6, "\(carer)")
        #expect(try serve.request("GET", summary + "?user=bob", token: tokens["carol"]).status == 403)
        let noName = try serve.request("GET", summary, token: tokens["carol"])
        #expect(noName.status == 403 && (noName.object["detail"] as? String)?.contains("?user=NAME") == true, "\(noName)")
        #expect(try serve.request("POST", upload, json: envelope(1), token: tokens["carol"]).status == 403)
        #expect(try serve.request("GET", "/steps", token: tokens["carol"]).status == 403)
        // An administrator reads no health data, and is the only one who erases.
        #expect(try serve.request("GET", summary + "?user=alice", token: tokens["root"]).status == 403)
        #expect(try serve.request("POST", upload, json: envelope(1), token: tokens["root"]).status == 403)
        #expect(try serve.request("DELETE", "/api/v1/users/alice", token: tokens["bob"]).status == 403)
        #expect(try serve.request("DELETE", "/api/v1/users/alice", token: tokens["carol"]).status == 403)
        #expect(try serve.request("GET", "/api/v1/users/alice", token: tokens["root"]).status == 403)

        #expect(try serve.request("DELETE", "/api/v1/users/al%2Fice", token: tokens["root"]).status == 400)
        let erased = try serve.request("DELETE", "/api/v1/users/alice", token: tokens["root"])
        #expect(erased.status == 200, "\(erased)")
        let counts = erased.object["erased"] as? [String: Int] ?? [:]
        #expect(counts["store.metric"] == 6, "\(erased.object)")
        #expect((erased.object["total"] as? Int ?? 0) >= 6)
        #expect(try serve.request("GET", summary, token: tokens["alice"]).object["metrics"] as? Int == 0)
        #expect(try serve.request("GET", summary, token: tokens["bob"]).object["metrics"] as? Int == 3)
        // The log says it happened, not what went.
        #expect(serve.log.contains("erased the user alice") && !serve.log.contains("HeartRate"), "\(serve.log)")
    }
}
