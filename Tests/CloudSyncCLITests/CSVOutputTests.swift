import CloudSyncTesting
import Foundation
import Testing

/// `--format csv`: RFC 4180, read back by Python's csv module and by DuckDB, equal to the JSON Lines.
@Suite struct CSVOutputTests {
    /// The JSON Lines and the CSV as the same rows of seven strings (metadata as its JSON text,
    /// values as JSON numbers print them).
    static let compare = """
        import csv, io, json, sys
        jsonl, csvtext = open(sys.argv[1]).read(), open(sys.argv[2], newline="").read()
        rows = list(csv.reader(io.StringIO(csvtext)))
        assert rows[0] == ["type", "startDate", "endDate", "value", "unit", "sourceApp", "metadata"], rows[0]
        expected = []
        for line in jsonl.splitlines():
            m = json.loads(line)
            expected.append([m["type"], m["startDate"], m["endDate"], json.dumps(m["value"]), m["unit"], m["sourceApp"], m["metadata"]])
        got = [[r[0], r[1], r[2], json.dumps(json.loads(r[3])), r[4], r[5], json.loads(r[6])] for r in rows[1:]]
        assert got == expected, (got[:2], expected[:2])
        print(len(got))
        """

    @Test func csvReadBackByPythonEqualsTheJSONLines() throws {
        let dir = try makeTemporaryDirectory()
        // A source name with a comma, a quote and a leading space: every rule of RFC 4180 at work.
        let xml = try String(contentsOfFile: Paths.sampleXML, encoding: .utf8)
            .replacingOccurrences(of: "sourceName=\"Alex’s iPhone\"", with: "sourceName=\" Alex, &quot;the&quot; iPhone\"")
        let input = try writeFile(xml, in: dir)
        let jsonl = dir.appendingPathComponent("m.jsonl").path, csvPath = dir.appendingPathComponent("m.csv").path
        #expect(try CLI.run(["convert", input, "-o", jsonl, "-q"]).status == 0)
        let csv = try CLI.run(["convert", input, "--format", "csv", "-o", csvPath, "-q"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let checked = try CLI.run(["python3", "-c", Self.compare, jsonl, csvPath], tool: "/usr/bin/env")
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout == Data("24\n".utf8))
        // One file per type into a folder: together the same rows.
        let folder = dir.appendingPathComponent("by-type").path + "/"
        #expect(try CLI.run(["convert", input, "--format", "csv", "-o", folder, "-q"]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.contains("heartRate.csv") && files.contains("stepCount.csv"))
        var rows = 0
        for file in files {
            let text = try String(contentsOfFile: folder + file, encoding: .utf8)
            #expect(text.hasPrefix("type,startDate,endDate,value,unit,sourceApp,metadata\r\n"))
            rows += text.components(separatedBy: "\r\n").count - 2
        }
        #expect(rows == 24)
    }

    @Test(.enabled(if: DuckDB.isInstalled, "DuckDB is not installed (scripts/install-test-tools.sh): DuckDB read-back skipped"))
    func duckDBReadsTheCSVAndTheJSONLinesAlike() throws {
        let dir = try makeTemporaryDirectory()
        let jsonl = dir.appendingPathComponent("m.jsonl").path, csvPath = dir.appendingPathComponent("m.csv").path
        #expect(try CLI.run(["convert", Paths.sampleZip, "-o", jsonl, "-q"]).status == 0)
        #expect(try CLI.run(["convert", Paths.sampleZip, "--format", "csv", "-o", csvPath, "-q"]).status == 0)
        let script = """
            import duckdb, sys
            q = "select type, startDate, endDate, value::double v, unit, sourceApp from {} order by all"
            a = duckdb.sql(q.format(f"read_csv('{sys.argv[2]}', header=true, all_varchar=true)")).fetchall()
            b = duckdb.sql(q.format(f"read_json('{sys.argv[1]}', format='newline_delimited', columns={{'type':'VARCHAR','startDate':'VARCHAR','endDate':'VARCHAR','value':'DOUBLE','unit':'VARCHAR','sourceApp':'VARCHAR'}})")).fetchall()
            assert a == b and len(a) == 24, (a[:2], b[:2])
            print(len(a))
            """
        let result = try CLI.run(["-c", script, jsonl, csvPath], tool: DuckDB.python)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == Data("24\n".utf8))
    }

    @Test func aggregateWritesCSVWithTheSameWriter() throws {
        let store = try makeTemporaryDirectory().appendingPathComponent("s.sqlite").path
        #expect(try CLI.run(["import", Paths.sampleZip, "--store", store, "-q"]).status == 0)
        let result = try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--format", "csv", "--types", "heartRate"])
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(text.hasPrefix("type,bucket,unit,count,sum,average,minimum,maximum\r\n"))
        #expect(text.contains("HKQuantityTypeIdentifierHeartRate,2024-11-02,bpm,"))
    }
}
