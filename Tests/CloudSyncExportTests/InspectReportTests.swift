import CloudSyncExport
import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// What `inspect` reports, made by the library as the command makes it (the converter watched by an
/// inspector), as text and as JSON.
@Suite struct InspectReportTests {
    func inspect(_ input: String) throws -> InspectReport {
        let inspector = ExportInspector()
        let converter = ArchiveConverter(input: input, kinds: [])
        converter.observer = inspector
        let archive = try ReaderRunner.run(converter, into: ReaderSinks(metrics: inspector, records: CountingRecordSink()))
        var report = inspector.report(archive.conversion)
        report.add(archive)
        return report
    }

    /// Samples dated after the export (a clock set wrong) are said, with their range and the line of
    /// the first, and kept: every one is converted.
    @Test func samplesDatedAfterTheExportAreFlaggedAndKept() throws {
        let input = try writeFile(ExportTexts.samplesAfterTheExport)
        let report = try inspect(input)
        #expect(report.text.contains("2 samples dated after the export (2030-03-03 … 2030-04-18, first at line 5), kept"), "\(report.text)")
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
        #expect((json["samplesAfterExport"] as? [String: Any])?["count"] as? Int == 2)
        #expect(report.metrics == 3)
        let (metrics, _, conversion) = try convert(input)
        #expect(metrics.count == 3 && conversion.samplesAfterExport.count == 2)
        #expect(conversion.summary.contains("2 samples dated after the export (2030-03-03 … 2030-04-18, first at line 5), kept"))
    }
}
