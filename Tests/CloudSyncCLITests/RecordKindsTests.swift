import CloudSyncKinds
import CloudSyncModel
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Issue 23: every kind of record besides metrics, through the registry, as a user runs it on the
/// sample: JSON Lines and CSV (with the documented columns), stored idempotently and given back
/// unchanged, counted by inspect and status. Audiograms and vision prescriptions, the kinds added as
/// one conformance each, with their values read independently from the sample's XML.
@Suite struct RecordKindsTests {
    /// The sample's records per kind, and the CSV rows each gives (a row per part for the series kinds).
    static let expected: [String: (records: Int, csvRows: Int)] = [
        "beats": (1, 3), "correlations": (1, 2), "routes": (2, 2), "ecg": (1, 8), "clinical": (1, 1),
        "audiograms": (1, 3), "vision-prescriptions": (1, 2),
    ]

    @Test func theRegistryHoldsEveryKind() {
        #expect(Set(RecordKinds.names) == Set(Self.expected.keys))
    }

    /// The README's table of CSV columns is each kind's header, as the writer has it.
    @Test func theReadmeDocumentsEveryKindsCSVColumns() throws {
        let readme = try String(contentsOf: Paths.repository.appendingPathComponent("README.md"), encoding: .utf8)
        for kind in RecordKinds.all {
            let row = readme.split(separator: "\n").first { $0.hasPrefix("| `\(kind.name)` |") }
            #expect(row?.hasSuffix("| \(kind.csvColumns.joined(separator: ",")) |") == true, "README's CSV row of \(kind.name): \(row ?? "missing")")
            #expect(readme.contains("(`--kind \(kind.name)`)\n"), "README has no section for \(kind.name)")
        }
    }

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
        let expected = try #require(Self.expected[kind])
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path
        let converted = try CLI.run(["convert", CLI.sample, "--kind", kind])
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let again = try CLI.run(["import", CLI.sample, "--store", store])
        #expect(again.stderr.contains("0 new, 24 already there"), "\(again.stderr)")
        let exported = try CLI.run(["export", "--store", store, "--kind", kind])
        #expect(exported.status == 0 && exported.stdout == converted.stdout, "\(kind): \(exported.stderr)")
        // The CSV: the kind's documented header, a row per record (or per part), read by Python's csv module.
        let csv = try CLI.run(["convert", CLI.sample, "--kind", kind, "--format", "csv"])
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
        let inspect = try #require(try JSONSerialization.jsonObject(with: try CLI.run(["inspect", CLI.sample, "--json"]).stdout) as? [String: Any])
        #expect((inspect["records"] as? [String: [String: Int]])?[kind]?["records"] == expected.records, "\(kind)")
    }

    @Test func audiogramsCarryEveryPointInHertzAndDBHL() throws {
        let line = try #require(try CLI.run(["convert", CLI.sample, "--kind", "audiograms"]).lines.first)
        let audiogram = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(audiogram["startDate"] as? String == "2024-10-01T08:00:00Z" && audiogram["sourceApp"] as? String == "Mimi Hearing Test")
        let points = try #require(audiogram["points"] as? [[String: Any]])
        // The sample's SensitivityPoints, read from its XML with a regular expression, not our parser.
        let xml = try String(contentsOfFile: Paths.sampleXML, encoding: .utf8)
        let regex = try NSRegularExpression(pattern: #"<SensitivityPoint frequencyValue="(\d+)" frequencyUnit="Hz" leftEarValue="(\d+)" leftEarUnit="dBHL" rightEarValue="(\d+)""#)
        let written = regex.matches(in: xml, range: NSRange(xml.startIndex..., in: xml)).map { match in
            (1...3).map { Double(xml[Range(match.range(at: $0), in: xml)!])! }
        }
        #expect(written.count == 3)
        #expect(points.map { [$0["frequencyHz"] as? Double ?? -1, $0["leftEarDBHL"] as? Double ?? -1, $0["rightEarDBHL"] as? Double ?? -1] } == written)
        #expect((audiogram["metadata"] as? [String: String])?["HKWasUserEntered"] == "0")
    }

    @Test func visionPrescriptionsCarryEachEyeWithItsUnitsAndTheAttachments() throws {
        let line = try #require(try CLI.run(["convert", CLI.sample, "--kind", "vision-prescriptions"]).lines.first)
        let prescription = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(prescription["type"] as? String == "HKVisionPrescriptionTypeGlasses" && prescription["brand"] as? String == "Sample Optics")
        #expect(prescription["dateIssued"] as? String == "2024-02-29T23:00:00Z" && prescription["expirationDate"] as? String == "2026-02-28T23:00:00Z")
        let right = try #require(prescription["rightEye"] as? [String: [String: Any]])
        #expect(right["sphere"]?["value"] as? Double == -1.25 && right["sphere"]?["unit"] as? String == "D")
        #expect(right["axis"]?["value"] as? Double == 90 && right["axis"]?["unit"] as? String == "deg")
        #expect(right["farPD"]?["unit"] as? String == "mm" && right["add"] == nil)
        #expect((prescription["leftEye"] as? [String: [String: Any]])?["sphere"]?["value"] as? Double == -1.5)
        #expect(prescription["attachments"] as? [String] == ["prescription-scan.jpg"])
    }

    @Test func aKindAFormatCannotHoldIsRefusedNeverDropped() throws {
        let geojson = try CLI.run(["convert", CLI.sample, "--kind", "audiograms", "--format", "geojson"])
        #expect(geojson.status == 64 && geojson.stderr.contains("--format geojson is for --kind routes"))
        let typo = try CLI.run(["convert", CLI.sample, "--kind", "audiogram"])
        #expect(typo.status == 64 && typo.stderr.contains("did you mean audiograms"), "\(typo.stderr)")
        // The GeoJSON writer itself refuses another kind loudly.
        let sink = GeoJSONSink(output: OutputFile.standardOutput())
        #expect(throws: ConversionError.self) {
            try sink.write(Audiogram(type: "t", startDate: 0, endDate: 0, sourceApp: "", metadata: [], points: []), as: AudiogramKind.self)
        }
    }

    func python(_ script: String, stdin: Data) throws -> [String: Any] {
        let result = try CLI.run(["python3", "-c", script], stdinBytes: stdin, tool: "/usr/bin/env")
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }
}
