import CloudSyncExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// The registry of kinds, what the README says of it, and the kinds added as one conformance each
/// (audiograms, vision prescriptions) read from the sample's XML, their values checked independently.
@Suite struct RecordKindsRegistryTests {
    @Test func theRegistryHoldsEveryKind() {
        #expect(Set(RecordKinds.names) == Set(SampleRecords.byKind.keys))
        for name in RecordKinds.names { #expect(RecordKinds.named(name)?.name == name) }
        #expect(RecordKinds.named("audiogram") == nil)
        // What the commands open keeps every kind of the registry.
        #expect(StagingStore.Configuration.standard.kinds.map { $0.name } == RecordKinds.names)
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

    @Test func audiogramsCarryEveryPointInHertzAndDBHL() throws {
        let line = try #require(lines(try convertedLines(AudiogramKind.self, Paths.sampleZip, in: try makeTemporaryDirectory())).first)
        let audiogram = try object(line)
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
        let line = try #require(lines(try convertedLines(VisionPrescriptionKind.self, Paths.sampleZip, in: try makeTemporaryDirectory())).first)
        let prescription = try object(line)
        #expect(prescription["type"] as? String == "HKVisionPrescriptionTypeGlasses" && prescription["brand"] as? String == "Sample Optics")
        #expect(prescription["dateIssued"] as? String == "2024-02-29T23:00:00Z" && prescription["expirationDate"] as? String == "2026-02-28T23:00:00Z")
        let right = try #require(prescription["rightEye"] as? [String: [String: Any]])
        #expect(right["sphere"]?["value"] as? Double == -1.25 && right["sphere"]?["unit"] as? String == "D")
        #expect(right["axis"]?["value"] as? Double == 90 && right["axis"]?["unit"] as? String == "deg")
        #expect(right["farPD"]?["unit"] as? String == "mm" && right["add"] == nil)
        #expect((prescription["leftEye"] as? [String: [String: Any]])?["sphere"]?["value"] as? Double == -1.5)
        #expect(prescription["attachments"] as? [String] == ["prescription-scan.jpg"])
    }
}
