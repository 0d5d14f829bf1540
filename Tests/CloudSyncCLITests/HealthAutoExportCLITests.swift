import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Health Auto Export through the built binary: `import FILE.json`, `import FOLDER`, `inspect`, and
/// `serve --store` is in HealthAutoExportServeTests.
@Suite struct HealthAutoExportCLITests {
    static let sample = Paths.sampleHealthAutoExport

    @Test func importTheSampleTwice() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let first = try CLI.run(["import", Self.sample, "--store", store])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains(": 15 new, 0 already there"))
        #expect(first.stderr.contains("no mapping, kept under their own names: made_up_metric"))
        #expect(first.stderr.contains("1 medication dose new") && first.stderr.contains("1 sample series new") && !first.stderr.contains("not kept"),
                "\(first.stderr)")
        let again = try CLI.run(["import", Self.sample, "--store", store])
        #expect(again.status == 0 && again.stderr.contains(": 0 new, 15 already there"), "\(again.stderr)")
        let status = try CLI.run(["status", "--store", store, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        let phone = try #require(object["healthAutoExport"] as? [String: Any])
        #expect(phone["imports"] as? Int == 2 && phone["counted"] as? Int == 15)
        let text = try CLI.run(["status", "--store", store])
        #expect(text.stdout.count > 0 && String(decoding: text.stdout, as: UTF8.self).contains("from the phone: 2 pushes and files, 15 samples counted"))
    }

    /// `convert FILE.json`: the file's metrics as JSON Lines and as CSV, the same ones `import`
    /// stores (the one runner drives the app's reader into any sink).
    @Test func convertWritesTheFilesMetrics() throws {
        let dir = try makeTemporaryDirectory()
        let csvPath = dir.appendingPathComponent("phone.csv").path
        let csv = try CLI.run(["convert", Self.sample, "--format", "csv", "--output", csvPath])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stderr.contains("15 metrics from"), "\(csv.stderr)")
        let rows = try String(contentsOfFile: csvPath, encoding: .utf8).split(separator: "\r\n").map(String.init)
        #expect(rows.first == "type,startDate,endDate,value,unit,sourceApp,metadata")
        #expect(rows.count == 16)
        let steps = rows.filter { $0.hasPrefix("HKQuantityTypeIdentifierStepCount,") }.map { $0.split(separator: ",")[3] }
        #expect(steps == ["8412", "10051"], "\(steps)")
        let jsonl = try CLI.run(["convert", Self.sample])
        #expect(jsonl.status == 0)
        let types = jsonl.lines.filter { !$0.isEmpty }.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["type"] as? String
        }
        #expect(types.count == 15)
        #expect(types.sorted() == rows.dropFirst().map { String($0.prefix { $0 != "," }) }.sorted())
        // What import stores is what convert wrote.
        let store = dir.appendingPathComponent("store.sqlite").path
        #expect(try CLI.run(["import", Self.sample, "--store", store, "-q"]).status == 0)
        let exported = try CLI.run(["export", "--store", store, "--format", "csv"])
        #expect(String(decoding: exported.stdout, as: UTF8.self).split(separator: "\r\n").count == rows.count)
    }

    @Test func inspectRecognisesTheJSON() throws {
        let result = try CLI.run(["inspect", Self.sample, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(object["format"] as? String == "Health Auto Export JSON")
        #expect(object["samples"] as? Int == 15 && object["workouts"] as? Int == 1)
        let text = try CLI.run(["inspect", Self.sample])
        #expect(String(decoding: text.stdout, as: UTF8.self).contains("step_count (count) → HKQuantityTypeIdentifierStepCount: 2 points, 2 summarised"))
    }

    @Test func aDamagedFileIsRefusedWithItsPathAndNothingIsKept() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let good = try writeFile(try String(contentsOfFile: Self.sample, encoding: .utf8), named: "HealthAutoExport-2025-03-08.json", in: dir)
        let bad = try writeFile(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2025-03-10 00:00:00 -0700","qty":true}]}]}}"#,
                                named: "HealthAutoExport-2025-03-10.json", in: dir)
        let result = try CLI.run(["import", bad, "--store", store])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(bad): not a Health Auto Export document at $.data.metrics[0].data[0].qty: expected a number, found true or false"))
        #expect(result.stderr.contains("nothing of \(bad) was imported"))
        // A folder: the files in name order; the good one is kept, the damaged one stops the run.
        let folder = try CLI.run(["import", dir.path, "--store", store])
        #expect(folder.status == 65 && folder.stderr.contains("imported \(good)"), "\(folder.stderr)")
        let status = try CLI.run(["status", "--store", store, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        #expect(object["metrics"] as? Int == 15)
    }

    @Test(.enabled(if: Paths.haeCorpusExists, "needs the shared corpus at ../shared/corpus/hae"))
    func importTheRealFilesAsAFolder() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let result = try CLI.run(["import", Paths.haeCorpus.path, "--store", store, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let again = try CLI.run(["import", Paths.haeCorpus.path, "--store", store])
        #expect(again.status == 0)
        #expect(again.stderr.components(separatedBy: "\n").filter { $0.contains("imported") }.allSatisfy { $0.contains(": 0 new,") })
        let aggregate = try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--types", "stepCount", "--format", "csv"])
        // CSV rows end with CRLF: one day per row.
        #expect(aggregate.status == 0 && aggregate.stdout.filter { $0 == 0x0A }.count > 3000, "\(aggregate.stderr)")
    }
}

/// `cloudsync mcp` answers from pushed data by the same rule (driven over its standard input with
/// JSON-RPC lines, as any MCP client does).
@Suite struct HealthAutoExportMCPTests {
    static func call(_ store: String, _ tool: String, _ arguments: [String: Any]) throws -> [String: Any] {
        let answer = try reply(store, tool, arguments)
        return try #require((answer["result"] as? [String: Any])?["structuredContent"] as? [String: Any], "\(answer)")
    }

    /// The whole JSON-RPC reply as text: what a client is told of a refused call.
    static func callRaw(_ store: String, _ tool: String, _ arguments: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: try reply(store, tool, arguments)), as: UTF8.self)
    }

    static func reply(_ store: String, _ tool: String, _ arguments: [String: Any]) throws -> [String: Any] {
        let lines = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            String(decoding: try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                                                         "params": ["name": tool, "arguments": arguments]]), as: UTF8.self),
        ]
        // Standard input stays open until the answer comes: a server may stop at its end.
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["mcp", "--store", store]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        var received = Data()
        var reply: [String: Any]?
        while reply == nil {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received += chunk
            for line in received.split(separator: 0x0A) {
                if let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], object["id"] as? Int == 2 { reply = object }
            }
        }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return try #require(reply, "\(String(decoding: received, as: UTF8.self).prefix(600))")
    }

    @Test func seriesCountsEachMomentOnce() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store]).status == 0)   // ExportDate 2024-11-03; 1200 steps on Nov 2
        let push = try writeFile(#"""
            {"data":{"metrics":[{"name":"step_count","units":"count","data":[
              {"date":"2024-11-02 00:00:00 -0500","qty":5000,"source":"Alex’s iPhone"},
              {"date":"2025-01-11 00:00:00 -0500","qty":9999,"source":"Alex’s iPhone"},
              {"date":"2025-01-12 00:00:00 -0500","qty":777,"source":"Alex’s iPhone"}]},
             {"name":"step_count","units":"count","data":[
              {"date":"2025-01-11 10:00:00 -0500","start":"2025-01-11 10:00:00 -0500","end":"2025-01-11 10:05:00 -0500","qty":30,"source":"Alex’s iPhone"},
              {"date":"2025-01-11 15:00:00 -0500","start":"2025-01-11 15:00:00 -0500","end":"2025-01-11 15:05:00 -0500","qty":40,"source":"Alex’s iPhone"}]}]}}
            """#, named: "push.json", in: dir)
        #expect(try CLI.run(["import", push, "--store", store]).status == 0)
        let series = try Self.call(store, "series", ["type": "steps", "bucket": "day", "timeZone": "America/New_York"])
        let buckets = try #require(series["buckets"] as? [[String: Any]])
        let byDay = Dictionary(uniqueKeysWithValues: buckets.map { ($0["label"] as! String, ($0["value"] as! NSNumber).doubleValue) })
        #expect(byDay == ["2024-11-02": 1200, "2025-01-11": 70, "2025-01-12": 777])
        let sql = try Self.call(store, "sql", ["query": "SELECT count(*) AS n FROM stored_metrics WHERE superseded != 0"])
        #expect(((sql["rows"] as? [[Any]])?.first?.first as? NSNumber)?.intValue == 2, "\(sql)")
    }
}
