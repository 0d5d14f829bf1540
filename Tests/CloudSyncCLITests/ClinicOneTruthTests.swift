import CloudSyncTesting
import Foundation
import Testing

/// Issue 35's proof: two patients' exports (over HTTP), pushes that overlap and extend them, and
/// CloudCare batches go into PostgreSQL through `serve --db postgres://…`, and the same requests, in
/// the same order, go to each patient's own `serve --store FILE`. Every reader then answers the same
/// from the patient's rows as from their file: `status --json`, `aggregate` (by day, in a time zone,
/// sources merged, by hour over a clock change, sleep by night), `export` and the MCP `overview` and
/// `sleep`. A carer reads only their patient, and PostgreSQL itself holds the line when a route's
/// check is left out (a connection of serve's role naming another owner sees and writes nothing). An
/// erased patient leaves nothing in any table (`pg_dump --data-only`), and the other patient's
/// answers do not change.
@Suite(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
struct ClinicOneTruthTests {
    static let tokens = ["alice": ClinicStoresTests.alice, "bob": ClinicStoresTests.bob]

    /// A Health Auto Export push of steps from two sources, heart rates and a summarised night.
    static func push(steps: [(date: String, qty: Int, source: String)], night: (date: String, start: String, end: String)?) -> Data {
        var metrics: [[String: Any]] = [[
            "name": "step_count", "units": "count",
            "data": steps.map { ["date": $0.date, "qty": $0.qty, "source": $0.source] },
        ]]
        if let night {
            metrics.append(["name": "sleep_analysis", "units": "hr", "data": [[
                "date": night.date, "totalSleep": 6.5, "asleep": 0, "core": 3.5, "deep": 1.25, "rem": 1.75, "awake": 0.5, "inBed": 7,
                "inBedStart": night.start, "inBedEnd": night.end, "sleepStart": night.start, "sleepEnd": night.end, "source": "Watch",
            ]]])
        }
        return try! JSONSerialization.data(withJSONObject: ["data": ["metrics": metrics]])
    }

    /// A CloudCare batch of heart rates, one a minute from `first`.
    static func batch(day: String, hour: Int, count: Int, source: String) -> [String: Any] {
        let metrics: [[String: Any]] = (0..<count).map { minute in
            let date = String(format: "%@T%02d:%02d:00Z", day, hour, minute)
            return ["type": "HKQuantityTypeIdentifierHeartRate", "startDate": date, "endDate": date, "value": 60 + minute,
                    "unit": "count/min", "sourceApp": source, "metadata": [String: Any]()]
        }
        return ["userId": "u", "deviceId": "d", "exportTimestamp": "\(day)T23:59:00Z",
                "dataRange": ["startDate": "\(day)T00:00:00Z", "endDate": "\(day)T23:59:59Z"], "metrics": metrics]
    }

    /// One request, sent alike to the clinic (with the patient's token) and to the patient's own server.
    enum Sent {
        case export(Data, type: String)
        case push(Data)
        case batch([String: Any])
    }

    static func send(_ sent: Sent, to serve: ServeProcess, token: String?) throws -> Int {
        switch sent {
        case .export(let body, let type):
            return try serve.request("POST", "/api/v1/exports", body: body, token: token, headers: ["Content-Type": type]).status
        case .push(let body):
            return try serve.request("POST", "/health-auto-export", body: body, token: token).status
        case .batch(let envelope):
            return try serve.request("POST", "/api/v1/wearables/import/apple-health", json: envelope, token: token).status
        }
    }

    /// Each patient's inputs, in order.
    static func inputs() throws -> [String: [Sent]] {
        let alicesExport = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleZip))   // 2024-11-01/02, New York
        let bobsExport = Data(ExportTexts.halfHourlySteps().utf8)   // 2021-03-01 to 05, Paris
        return [
            "alice": [
                .export(alicesExport, type: "application/zip"),
                // Her phone: the export's day again (superseded by the export that covers it), the
                // clock change of 2024-11-03 (01:30 twice), a night after the export, from two sources.
                .push(push(steps: [("2024-11-02 08:30:00 -0500", 120, "Phone"), ("2024-11-03 01:30:00 -0400", 50, "Phone"),
                                   ("2024-11-03 01:30:00 -0500", 60, "Phone"), ("2024-11-04 09:00:00 -0500", 900, "Phone"),
                                   ("2024-11-04 09:00:00 -0500", 880, "Watch")],
                           night: ("2024-11-04 00:00:00 -0500", "2024-11-03 23:30:00 -0500", "2024-11-04 06:30:00 -0500"))),
                .batch(batch(day: "2024-11-02", hour: 14, count: 5, source: "Watch")),
                .push(try Data(contentsOf: URL(fileURLWithPath: Paths.sampleHealthAutoExport))),   // 2025-03, the spring's change
            ],
            "bob": [
                .export(bobsExport, type: "application/xml"),
                .batch(batch(day: "2021-03-02", hour: 9, count: 7, source: "Watch")),
                // His phone: a day of the export again (superseded: the export, of 2021-03-10, covers
                // it), then days after it, the night of the 27th into the 28th (Paris's clock change).
                .push(push(steps: [("2021-03-02 10:00:00 +0000", 10, "Phone"), ("2021-03-28 10:00:00 +0200", 400, "Phone"),
                                   ("2021-03-28 10:00:00 +0200", 390, "Watch")],
                           night: ("2021-03-28 00:00:00 +0100", "2021-03-27 23:00:00 +0100", "2021-03-28 07:00:00 +0200"))),
                .push(try Data(contentsOf: URL(fileURLWithPath: Paths.samplePhoneArrays))),   // medications, 2026-03
            ],
        ]
    }

    /// What every reader says of a patient's store, by reader.
    static func answers(store: [String]) throws -> [String: String] {
        var answers: [String: String] = [:]
        let readers: [[String]] = [
            ["aggregate", "--bucket", "day"],
            ["aggregate", "--bucket", "day", "--tz", "America/New_York", "--merge-sources", "--format", "jsonl"],
            ["aggregate", "--bucket", "day", "--tz", "Europe/Paris", "--merge-sources", "--format", "jsonl"],
            ["aggregate", "--bucket", "hour", "--tz", "America/New_York", "--format", "csv"],
            ["aggregate", "--bucket", "day", "--tz", "America/New_York", "--types", "sleepAnalysis", "--format", "jsonl"],
            ["aggregate", "--bucket", "day", "--tz", "Europe/Paris", "--types", "sleepAnalysis", "--format", "jsonl"],
            ["export", "--format", "jsonl"],
            ["export", "--kind", "medications", "--format", "jsonl"],
            // Alice's route, its points loaded in bulk into her new partition (`BulkLoad`).
            ["export", "--kind", "routes", "--format", "jsonl"],
            ["status", "--json"],
        ]
        for reader in readers {
            let result = try CLI.run(reader + store)
            #expect(result.status == 0, "\(reader) \(store.last ?? ""): \(result.stderr)")
            answers[reader.joined(separator: " ")] = String(decoding: result.stdout, as: UTF8.self)
        }
        let calls = [("overview", "{}"), ("sleep", #"{"timeZone":"America/New_York"}"#), ("sleep", #"{"timeZone":"Europe/Paris"}"#)]
        let mcp = try MCPScript.results(of: calls, store)
        #expect(mcp.run.status == 0, "\(mcp.run.stderr)")
        for (index, result) in mcp.results { answers["mcp \(calls[index].0) \(calls[index].1)"] = result }
        return answers
    }

    /// `status --json` without what names the store or the moment of the import (a file's path
    /// against an address, the inputs' names as they came): the rest must match key for key.
    static func comparable(_ answers: [String: String]) throws -> [String: String] {
        var answers = answers
        let status = try #require(try JSONSerialization.jsonObject(with: Data((answers["status --json"] ?? "").utf8)) as? [String: Any])
        var kept: [String: Any] = [:]
        for key in ["metrics", "repeats", "superseded", "pending", "firstStart", "lastEnd", "byType", "records"] { kept[key] = status[key] }
        answers["status --json"] = String(decoding: try JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys]), as: UTF8.self)
        // The overview's last import: its id (numbered across patients on PostgreSQL) and its moments.
        answers["mcp overview {}"] = answers["mcp overview {}"]?
            .replacingOccurrences(of: #""id":[0-9]+,"input""#, with: #""id":_,"input""#, options: .regularExpression)
            .replacingOccurrences(of: #""(startedAt|endedAt)":"[^"]*""#, with: #""$1":_"#, options: .regularExpression)
        return answers
    }

    /// Both texts from where they first differ (a failure's message).
    static func fromFirstDifference(_ file: String, _ clinic: String) -> String {
        let same = zip(file, clinic).prefix { $0 == $1 }.count
        return "file:   …\(file.dropFirst(max(0, same - 40)).prefix(400))\nclinic: …\(clinic.dropFirst(max(0, same - 40)).prefix(400))"
    }

    @Test func twoPatientsOnPostgreSQLAnswerAsTheirOwnStoreFilesAndAnErasedOneLeavesNothing() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clinic = try ServeProcess(["--tokens", try ClinicStoresTests.tokensFile(in: dir, ClinicStoresTests.everyone)], directory: dir,
                                      database: address)
        defer { _ = clinic.stop() }

        // The same requests in the same order: to the clinic as the patient, and to their own server.
        var files: [String: String] = [:]
        for (patient, sent) in try Self.inputs().sorted(by: { $0.key < $1.key }) {
            let file = dir.appendingPathComponent("\(patient).sqlite").path
            files[patient] = file
            let own = try ServeProcess(["--store", file], directory: dir, name: "serve-\(patient)")
            defer { _ = own.stop() }
            for (index, request) in sent.enumerated() {
                let toClinic = try Self.send(request, to: clinic, token: Self.tokens[patient])
                let toOwn = try Self.send(request, to: own, token: nil)
                #expect(toClinic == toOwn && (200...201).contains(toClinic), "\(patient) request \(index): \(toClinic) / \(toOwn)")
            }
        }

        var before: [String: [String: String]] = [:]
        for patient in ["alice", "bob"] {
            let fromFile = try Self.comparable(try Self.answers(store: ["--store", files[patient]!]))
            let fromClinic = try Self.comparable(try Self.answers(store: ["--store", address, "--user", patient]))
            #expect(fromFile.count == 13 && fromClinic.keys == fromFile.keys, "\(patient): \(fromClinic.keys.sorted())")
            for (reader, answer) in fromFile.sorted(by: { $0.key < $1.key }) {
                // Bob's export, an export.xml alone, has no route.
                let routeless = patient == "bob" && reader.contains("routes")
                #expect((routeless || !answer.isEmpty) && fromClinic[reader] == answer,
                        "\(patient) · \(reader), from the first difference:\n\(Self.fromFirstDifference(answer, fromClinic[reader] ?? "-"))")
            }
            before[patient] = fromClinic
        }
        // The inputs did reach the rules they are here to try: a pushed day superseded, a night, two patients apart.
        #expect(before["alice"]?["status --json"]?.contains(#""superseded":0"#) == false, "\(before["alice"]?["status --json"] ?? "")")
        #expect(before["alice"]?["mcp sleep {\"timeZone\":\"America/New_York\"}"]?.contains("2024-11-03") == true)
        #expect(before["bob"]?["aggregate --bucket day --tz Europe/Paris --types sleepAnalysis --format jsonl"]?.contains("2021-03-27") == true)
        #expect(before["bob"]?["export --format jsonl"]?.contains("2024-11") == false)
        #expect(before["alice"]?["export --kind routes --format jsonl"]?.contains("route_2024-11-02_6.30pm.gpx") == true)

        // A carer reads alice only; PostgreSQL holds the line too when no route checks: serve's own
        // role, naming carol (or no one), sees no row of alice's or bob's in any table and writes none.
        let carol = ClinicStoresTests.carol
        #expect(try clinic.request("GET", "/report?user=alice", token: carol).status == 200)
        #expect(try clinic.request("GET", "/report?user=bob", token: carol).status == 403)
        #expect(try clinic.request("GET", "/api/v1/wearables/metrics/summary?user=bob", token: carol).status == 403)
        let tables = try cluster.psql("""
            SELECT table_name FROM information_schema.columns WHERE column_name = 'owner' AND table_schema = 'public'
                AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE') ORDER BY 1
            """, database: "clinic").split(separator: "\n").map(String.init)
        #expect(tables.contains("metric") && tables.contains("route_point") && tables.count > 10, "\(tables)")
        // `request_log` is the server's own (who asked for which route, and the answer's status):
        // no health data, and no policy (PostgresMigration 3). Every other table is a patient's.
        let patients = tables.filter { $0 != "request_log" }
        for owner in ["carol", ""] {
            let counts = patients.map { "'\($0) ' || (SELECT count(*) FROM \"\($0)\")" }.joined(separator: ", ")
            let seen = try cluster.psql("SET ROLE clinic; SELECT set_config('cloudsync.owner', '\(owner)', false); SELECT concat_ws(', ', \(counts))",
                                        database: "clinic").split(separator: "\n").last.map(String.init) ?? ""
            let rows = seen.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasSuffix(" 0") }
            #expect(rows.isEmpty, "serve's role naming '\(owner)' saw rows: \(rows)")
        }
        let asCarol = "SET ROLE clinic; SELECT set_config('cloudsync.owner', 'carol', false); "
        let changed = try cluster.psql(asCarol + "WITH changed AS (UPDATE metric SET value = 0 WHERE true RETURNING 1) SELECT count(*) FROM changed",
                                       database: "clinic").split(separator: "\n").last
        #expect(changed == "0")
        #expect(throws: (any Error).self) {
            try cluster.psql(asCarol + "INSERT INTO metric(owner, type_id, start_date, end_date, source_id, value, unit_id, device_id, import_id) "
                             + "VALUES ('alice', 1, 0, 0, 1, 1, 1, 1, 1)", database: "clinic")
        }

        // The administrator erases alice: nothing of hers in any table, and bob's answers as they were.
        #expect(try cluster.dumpData(database: "clinic").contains("alice"))
        let erased = try clinic.request("DELETE", "/api/v1/users/alice", token: ClinicStoresTests.root)
        #expect(erased.status == 200 && (erased.object["total"] as? Int ?? 0) > 0, "\(erased)")
        let dump = try cluster.dumpData(database: "clinic")
        // The log keeps that the erase happened (its route names her), and nothing else of hers.
        let hers = dump.split(separator: "\n").filter { $0.contains("alice") && !($0.contains("\t/api/v1/users/alice\t200\t") && $0.hasSuffix("\troot")) }
        #expect(hers.isEmpty, "\(hers.prefix(5))")
        #expect(dump.contains("/api/v1/users/alice"))
        #expect(dump.contains("bob"))
        let bobAfter = try Self.comparable(try Self.answers(store: ["--store", address, "--user", "bob"]))
        for (reader, answer) in before["bob"]!.sorted(by: { $0.key < $1.key }) {
            #expect(bobAfter[reader] == answer, "bob · \(reader) changed when alice was erased")
        }
    }
}
