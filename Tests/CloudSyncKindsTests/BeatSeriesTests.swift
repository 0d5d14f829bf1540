@testable import CloudSyncExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing
import ZIPFoundation

/// `--kind beats`: the beat-to-beat lists of HRV records, as instants, whatever the locale's time format.
@Suite struct BeatSeriesTests {
    func series(_ records: String) throws -> (CollectingSink, ArchiveConverter.Report) {
        let path = try writeFile("<?xml version=\"1.0\"?>\n<HealthData locale=\"fr_FR\">\n\(records)</HealthData>\n")
        let sink = CollectingSink()
        return (sink, try ReaderRunner.run(ArchiveConverter(input: path, kinds: [BeatSeriesKind.self]), into: ReaderSinks(metrics: DiscardingSink(), records: sink)))
    }

    static func record(start: String, end: String, _ beats: [(Int, String)]) -> String {
        """
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Montre" unit="ms" startDate="\(start)" endDate="\(end)" value="48.2">
          <HeartRateVariabilityMetadataList>
        \(beats.map { "   <InstantaneousBeatsPerMinute bpm=\"\($0.0)\" time=\"\($0.1)\"/>" }.joined(separator: "\n"))
          </HeartRateVariabilityMetadataList>
         </Record>

        """
    }

    @Test func localeFormatsMidnightAndAnOffsetThatDiffersFromTheRecords() throws {
        let (sink, report) = try series(
            Self.record(start: "2024-11-02 19:44:10 -0500", end: "2024-11-02 19:45:10 -0500",
                        [(62, "7:44:15.57 PM"), (63, "7:44:16.57 PM")])
            // A French list crossing midnight.
            + Self.record(start: "2024-11-02 23:59:58 +0100", end: "2024-11-03 00:00:58 +0100",
                          [(60, "23:59:59,50"), (61, "00:00:00,40"), (59, "zz:00:01")])
            // Exported in summer (+0200) while the beats were taken in winter (+0100).
            + Self.record(start: "2021-01-01 01:20:29 +0200", end: "2021-01-01 01:21:35 +0200", [(62, "00:20:37,80")]))
        #expect(report.count("beats") == RecordCount(records: 3, parts: 5) && report.notes == ["1 beat skipped: a time or bpm that does not parse"])
        let times = sink.series.map { $0.beats.map(\.time) }
        #expect(times[0] == [1_730_594_655_570, 1_730_594_656_570])     // 2024-11-03T00:44:15.570Z
        #expect(times[1] == [1_730_588_399_500, 1_730_588_400_400])     // 2024-11-02T22:59:59.5Z, then past midnight
        #expect(times[2] == [1_609_456_837_800])                        // 2020-12-31T23:20:37.8Z
        #expect(sink.series[0].value == 48.2 && sink.series[0].sourceApp == "Montre")
    }

    /// Compact dates and `source=`, as iOS 8 wrote them, read the same way.
    @Test func compactDatesAndSourceAttribute() throws {
        let record = Self.record(start: "20241102194410-0500", end: "20241102194510-0500", [(62, "7:44:15.57 PM")])
            .replacingOccurrences(of: "sourceName=", with: "source=")
        let (sink, report) = try series(record)
        #expect(report.count("beats").records == 1 && report.notes.isEmpty)
        #expect(sink.series.first?.beats.map(\.time) == [1_730_594_655_570])
        #expect(sink.series.first?.sourceApp == "Montre")
    }
}

@Suite(.enabled(if: Paths.corpusExists, "../shared/corpus is not present: corpus beat tests skipped"))
struct BeatSeriesCorpusTests {
    @Test func theCorpusBeatListsConvertBeatForBeat() throws {
        let zip = Paths.corpus.appendingPathComponent("exports/v13-en_FR-hrv-routes.zip")
        // The independent count: every InstantaneousBeatsPerMinute in the raw XML, with the first
        // and last bpm and time as written.
        let archive = try Archive(url: zip, accessMode: .read)
        var xml = Data()
        _ = try archive.extract(try #require(archive["apple_health_export/export.xml"])) { xml.append($0) }
        let text = String(decoding: xml, as: UTF8.self)
        let regex = try NSRegularExpression(pattern: #"<InstantaneousBeatsPerMinute bpm="(\d+)" time="([^"]+)""#)
        let matches = regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
        #expect(matches.count > 13_000)
        let sink = CollectingSink()
        let report = try ReaderRunner.run(ArchiveConverter(input: zip.path, kinds: [BeatSeriesKind.self]), into: ReaderSinks(metrics: DiscardingSink(), records: sink))
        #expect(report.count("beats").parts == matches.count && report.notes.isEmpty)
        func bpm(_ match: NSTextCheckingResult) -> Int { Int(text[Range(match.range(at: 1), in: text)!])! }
        #expect(sink.series.first?.beats.first?.bpm == bpm(matches.first!))
        #expect(sink.series.last?.beats.last?.bpm == bpm(matches.last!))
        // Every series starts inside its record's span.
        for series in sink.series {
            let first = try #require(series.beats.first).time
            #expect(first >= series.startDate * 1000 && first <= series.endDate * 1000 + 999)
        }
    }
}
