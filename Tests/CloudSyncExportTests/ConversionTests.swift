@testable import CloudSyncExport
@testable import CloudSyncModel
@testable import CloudSyncArchive
import CloudSyncTesting
import Foundation
import Testing

@Suite struct ConversionTests {
    static let samplePath = Paths.samples.appendingPathComponent("export.xml").path

    @Test func convertsTheSampleExport() throws {
        let (metrics, json, report) = try convert(Self.samplePath)
        #expect(metrics.count == 24)
        #expect(report.invalid == [InvalidRecordReason.valueNotFinite.rawValue: 1, InvalidRecordReason.endBeforeStart.rawValue: 1])
        #expect(report.exportVersion == 14)
        #expect(report.locale == "en_US")
        #expect(report.exportDate == "2024-11-03 09:15:00 -0500")
        #expect(report.controlCharactersReplaced == 5)
        // Every line is a JSON object with exactly the seven keys, metadata an object of strings with a device.
        for line in json {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["type", "startDate", "endDate", "value", "unit", "sourceApp", "metadata"])
            let metadata = try #require(object["metadata"] as? [String: String])
            #expect(metadata["device"] != nil)
        }
        let heartRate = try #require(metrics.first)
        #expect(json.first == #"{"type":"HKQuantityTypeIdentifierHeartRate","startDate":"2024-11-02T12:05:11Z","endDate":"2024-11-02T12:05:11Z","value":79,"unit":"bpm","sourceApp":"Alex’s Apple Watch","metadata":{"device":"Apple Watch","sourceVersion":"10.1","HKMetadataKeyHeartRateMotionContext":"1"}}"#)
        #expect(heartRate.metadata["HKMetadataKeyHeartRateMotionContext"] == "1")
        let vo2 = try #require(metrics.first { $0.type == "HKQuantityTypeIdentifierVO2Max" })
        #expect(vo2.unit == "ml/kg/min")
    }

    /// A sink may size its memory by the document its metrics come from (the store's filter of the
    /// samples it added does): the reader says export.xml's size before the first metric, from the
    /// zip's directory or from the file.
    @Test func theSinkIsToldExportXMLsSizeBeforeTheFirstMetric() throws {
        let xmlSize = try #require(FileManager.default.attributesOfItem(atPath: Paths.sampleXML)[.size] as? Int)
        for input in [Paths.sampleZip, Paths.sampleXML] {
            let sink = CollectingSink()
            _ = try ReaderRunner.run(ArchiveConverter(input: input, kinds: []), into: sink.sinks)
            let expected = try #require(sink.expected, "\(input)")
            #expect(expected.bytes == Int64(xmlSize), "\(input)")
            #expect(expected.afterMetrics == 0, "\(input)")
            #expect(sink.metrics.count == 24, "\(input)")
        }
    }

    @Test func correlationRecordsAreCountedOnce() throws {
        let (metrics, _, _) = try convert(Self.samplePath)
        #expect(metrics.filter { $0.type == "HKQuantityTypeIdentifierBloodPressureSystolic" }.count == 1)
        #expect(metrics.filter { $0.type == "HKQuantityTypeIdentifierBloodPressureDiastolic" }.count == 1)
        #expect(!metrics.contains { $0.type.contains("Correlation") })
    }

    @Test func workoutsCarryTheirTotals() throws {
        let (metrics, _, _) = try convert(Self.samplePath)
        let workouts = metrics.filter { $0.type == "workout" }
        #expect(workouts.count == 2)
        let run = workouts[0]
        #expect(run.value == 30.5)
        #expect(run.unit == "min")
        #expect(run.metadata["activityType"] == "running")
        #expect(run.metadata["totalDistanceKm"] == "4.9889664")   // 3.1 mi from WorkoutStatistics
        #expect(run.metadata["totalEnergyKcal"] == "310.5")
        #expect(run.metadata["heartRateAverage"] == "151.2")
        #expect(run.metadata["heartRateMaximum"] == "174")
        #expect(run.metadata["routeFile"] == "/workout-routes/route_2024-11-02_6.30pm.gpx")
        #expect(run.metadata["HKTimeZone"] == "America/New_York")
        let strength = workouts[1]
        #expect(strength.value == 45)                              // 0.75 hr
        #expect(strength.metadata["activityType"] == "traditionalStrengthTraining")
        #expect(strength.metadata["totalEnergyKcal"] == "200")     // 836.8 kJ attribute
        #expect(strength.metadata["routePointCount"] == "1")       // an inline Location
    }

    @Test func activitySummariesAreDays() throws {
        let (metrics, _, _) = try convert(Self.samplePath)
        let days = metrics.filter { $0.type == "activitySummary" }
        #expect(days.map(\.startDate).map { UTCDateFormatter.string($0) } == ["2024-11-01T00:00:00Z", "2024-11-02T00:00:00Z"])
        #expect(days.map { $0.endDate - $0.startDate } == [86_400, 86_400])
        #expect(days.map(\.value) == [520.25, 500])                // the second is 2092 kJ
        #expect(days[1].metadata["activeEnergyBurnedGoal"] == "500")
        #expect(days.allSatisfy { $0.sourceApp == "Apple Health" && $0.unit == "kcal" })
    }

    @Test func invalidRecordsAreSkippedAndCounted() throws {
        let xml = exportXML(
            record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "")
            + record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "inf")
            + record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "abc")
            + record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "NaN")
            + record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "1e999")   // overflows to infinity
            + record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "60", start: "yesterday")
            + record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "60", end: "2024-13-02 07:10:00 -0500")
            + record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "60", start: "2024-11-02 07:10:01 -0500")
            + record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "61"))
        let (metrics, _, report) = try convert(try writeFile(xml))
        #expect(metrics.map(\.value) == [61])
        #expect(report.invalid == ["no value": 1, "value is not a finite number": 4, "startDate does not parse": 1,
                                   "endDate does not parse": 1, "endDate is before startDate": 1])
        #expect(report.firstInvalidLine["no value"] == 4)
        #expect(report.firstInvalidLine["value is not a finite number"] == 5)
    }

    @Test func metadataIsAlwaysAnObjectWithADevice() throws {
        let xml = exportXML(record("HKQuantityTypeIdentifierStepCount", unit: "count", value: "3",
                                   children: "  <MetadataEntry key=\"device\" value=\"spoofed\"/>\n  <MetadataEntry key=\"k\" value=\"a &amp; b &lt;c&gt; &#38;\"/>\n"))
        let (metrics, json, _) = try convert(try writeFile(xml))
        #expect(metrics.first?.metadata == ["device": "Unknown", "k": "a & b <c> &"])
        #expect(json.first?.contains(#""metadata":{"device":"Unknown","k":"a & b <c> &"}"#) == true)
    }

    @Test func filtersByTypeAndDate() throws {
        let short = MetricFilter(types: ["heartRate", "HKCategoryTypeIdentifierSleepAnalysis"])
        let (metrics, _, report) = try convert(Self.samplePath, filter: short)
        #expect(Set(metrics.map(\.type)) == ["HKQuantityTypeIdentifierHeartRate", "HKCategoryTypeIdentifierSleepAnalysis"])
        #expect(metrics.count == 8)
        #expect(report.filteredOut == 16)
        let since = try #require("2024-11-02 13:00:00 +0000".withBytes(ExportDateParser.epochSeconds))
        let until = try #require("2024-11-03".withBytes(ExportDateParser.dayStartSeconds))
        let (dated, _, _) = try convert(Self.samplePath, filter: MetricFilter(since: since, until: until))
        #expect(!dated.isEmpty)
        #expect(dated.allSatisfy { $0.startDate >= since && $0.startDate < until })
        #expect(dated.count == 4)  // VO2max 13:00, the two blood-pressure records 13:30, the run 23:00
    }

    /// The parser's output must not depend on where chunk boundaries fall.
    @Test(arguments: [1, 7, 4096, Int.max])
    func chunkSizesGiveIdenticalMetrics(_ chunkSize: Int) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.samplePath)))
        final class Lines: ExportElementConsumer {
            let mapper = MetricMapper()
            var lines: [String] = []
            func consume(_ tree: ElementTree) throws {
                guard mapper.map(tree) == .metric else { return }
                var buffer = ByteBuffer(capacity: 512)
                MetricJSON.append(mapper.metric, to: &buffer)
                lines.append(buffer.withBytes { $0.string })
            }
        }
        let lines = Lines()
        let parser = ExportParser(consumer: lines)
        var stripper = DoctypeStripper()
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + min(chunkSize, bytes.count))
            var chunk = Array(bytes[start..<end])
            _ = chunk.withUnsafeMutableBufferPointer { ExportBytePass.prepare($0) }
            try chunk.withUnsafeBufferPointer { try stripper.process($0) { try parser.parse($0) } }
            start = end
        }
        try stripper.finish { try parser.parse($0) }
        try parser.finish()
        #expect(lines.lines == (try convert(Self.samplePath)).json)
    }

    @Test func typedElementsCoverTheDTD() throws {
        final class Seen: @unchecked Sendable {
            var kinds: [String] = []
            var hrvBeats: [Double?] = []
            var meAttributes = 0
            var correlationRecords = 0
        }
        let seen = Seen()
        let facts = try ExportReader.read(Self.samplePath) { element in
            switch element {
            case .exportDate: seen.kinds.append("exportDate")
            case .me(let me):
                seen.kinds.append("me")
                seen.meAttributes = me.attributes.count
            case .record(let record):
                seen.kinds.append("record")
                if !record.beats.isEmpty { seen.hrvBeats = record.beats.map(\.secondsSinceMidnight) }
            case .correlation(let correlation):
                seen.kinds.append("correlation")
                seen.correlationRecords = correlation.records.count
            case .workout(let workout):
                seen.kinds.append("workout")
                if workout.activityType == "HKWorkoutActivityTypeRunning" {
                    #expect(workout.statistics.count == 3)
                    #expect(workout.events.count == 1)
                    #expect(workout.routes.first?.filePath == "/workout-routes/route_2024-11-02_6.30pm.gpx")
                } else {
                    #expect(workout.routes.first?.locations.first?.latitude == 48.8566)
                }
            case .activitySummary: seen.kinds.append("activitySummary")
            case .clinicalRecord(let record):
                seen.kinds.append("clinicalRecord")
                #expect(record.attributes["resourceFilePath"] == "/clinical-records/Observation-A1B2.json")
            case .audiogram(let audiogram):
                seen.kinds.append("audiogram")
                #expect(audiogram.sensitivityPoints.count == 3)
            case .visionPrescription(let prescription):
                seen.kinds.append("visionPrescription")
                #expect(prescription.rightEye?["sphere"] == "-1.25" && prescription.attachments.count == 1)
            default: seen.kinds.append("other")
            }
        }
        let kinds = Dictionary(seen.kinds.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(kinds == ["exportDate": 1, "me": 1, "record": 22, "correlation": 1, "workout": 2, "activitySummary": 2, "clinicalRecord": 1, "audiogram": 1, "visionPrescription": 1])
        #expect(seen.hrvBeats == [26437.8, 26438.8, 26439.8])
        #expect(seen.meAttributes == 5)
        #expect(seen.correlationRecords == 2)
        #expect(facts.doctype?.exportVersion == 14)
    }

    @Test(arguments: [("00:20:37,80", 1237.8), ("7:20:37.80 AM", 26437.8), ("7:20:37 PM", 69637), ("12:00:01.5 AM", 1.5), ("19:20:37.8", 69637.8),
                      ("7:20:37.80\u{202F}PM", 69637.8), (" 23:59:59,999 ", 86399.999)])
    func beatTimesInEveryLocaleForm(_ text: String, _ seconds: Double) throws {
        let parsed = try #require(LocaleTimeParser.secondsSinceMidnight(text))
        #expect(abs(parsed - seconds) < 1e-9)
    }

    @Test(arguments: ["", "7:20", "25:00:00", "13:00:00 PM", "0:00:00 AM", "7:60:00", "7:20:37,", "7:20:37 XM", "x7:20:37", "7:20:37.8.9"])
    func beatTimesThatAreNotTimes(_ text: String) {
        #expect(LocaleTimeParser.secondsSinceMidnight(text) == nil)
    }
}
