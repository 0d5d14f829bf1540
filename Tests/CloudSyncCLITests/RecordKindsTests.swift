import CloudSyncKinds
import CloudSyncModel
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Issue 23: every kind of record besides metrics, through the registry, as a user runs it on the
/// sample: JSON Lines and CSV (with the documented columns), stored idempotently and given back
/// unchanged, counted by inspect and status. The same through the library, the registry and each
/// kind's values, are in CloudSyncKindsTests.
@Suite struct RecordKindsTests {
    /// A kind's name begun or misspelt gets the kind meant, exit 64, nothing written.
    @Test func aKindBegunOrMisspeltIsNamed() throws {
        for (typed, meant) in [("vision", "vision-prescriptions"), ("audiogram", "audiograms"), ("clincal", "clinical")] {
            let result = try CLI.run(["convert", CLI.sample, "--kind", typed])
            #expect(result.status == 64 && result.stdout.isEmpty)
            #expect(result.stderr.contains("did you mean \(meant)?"), "\(typed): \(result.stderr)")
        }
    }

    @Test(arguments: RecordKinds.names)
    func eachKindConvertsStoresAndComesBackTheSame(_ kind: String) throws {
        let expected = try #require(SampleRecords.byKind[kind])
        let input = SampleRecords.input(of: kind)
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path
        let converted = try CLI.run(["convert", input, "--kind", kind])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(try CLI.run(["import", input, "--store", store, "-q"]).status == 0)
        let again = try CLI.run(["import", input, "--store", store])
        #expect(again.stderr.contains(input == CLI.sample ? "0 new, 24 already there" : "0 new, 7 already there"), "\(again.stderr)")
        let exported = try CLI.run(["export", "--store", store, "--kind", kind])
        #expect(exported.status == 0 && exported.stdout == converted.stdout, "\(kind): \(exported.stderr)")
        // The CSV: the kind's documented header, a row per record (or per part), read by Python's csv module.
        let csv = try CLI.run(["convert", input, "--kind", kind, "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let table = try python("""
            import csv, io, json, sys
            rows = list(csv.reader(io.StringIO(sys.stdin.read(), newline="")))
            print(json.dumps({"header": rows[0], "rows": len(rows) - 1, "widths": sorted({len(r) for r in rows})}))
            """, stdin: csv.stdout)
        let header = try #require(table["header"] as? [String])
        #expect(header == RecordKinds.named(kind)?.csvColumns, "\(kind)")
        #expect(table["rows"] as? Int == expected.csvRows, "\(kind)")
        #expect(table["widths"] as? [Int] == [header.count], "\(kind): every row as wide as the header")
        #expect(try CLI.run(["export", "--store", store, "--kind", kind, "--format", "csv"]).stdout == csv.stdout)
        // Counted by status and inspect.
        let status = try #require(try JSONSerialization.jsonObject(with: try CLI.run(["status", "--store", store, "--json"]).stdout) as? [String: Any])
        #expect((status["records"] as? [String: [String: Int]])?[kind]?["records"] == expected.records, "\(kind)")
        let inspect = try #require(try JSONSerialization.jsonObject(with: try CLI.run(["inspect", input, "--json"]).stdout) as? [String: Any])
        #expect((inspect["records"] as? [String: [String: Int]])?[kind]?["records"] == expected.records, "\(kind)")
    }

    @Test func aKindAFormatCannotHoldIsRefusedNeverDropped() throws {
        let geojson = try CLI.run(["convert", CLI.sample, "--kind", "audiograms", "--format", "geojson"])
        #expect(geojson.status == 64 && geojson.stderr.contains("--format geojson is for --kind routes"))
        let typo = try CLI.run(["convert", CLI.sample, "--kind", "audiogram"])
        #expect(typo.status == 64 && typo.stderr.contains("did you mean audiograms"), "\(typo.stderr)")
    }

    func python(_ script: String, stdin: Data) throws -> [String: Any] {
        let result = try CLI.run(["python3", "-c", script], stdinBytes: stdin, tool: "/usr/bin/env")
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }
}
