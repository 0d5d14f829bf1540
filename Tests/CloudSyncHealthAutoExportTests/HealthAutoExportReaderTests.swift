import CloudSyncHealthAutoExport
import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// The reader and the mapping on the repository's own sample (samples/health-auto-export.json) and
/// small documents written here.
@Suite struct HealthAutoExportReaderTests {
    @Test func sampleMapsEveryShape() throws {
        let (out, report) = try Collected.read(path: Paths.sampleHealthAutoExport)
        #expect(out.finished)

        // Summarised days (the dates at local midnight), sources split on "|".
        let steps = out.of("HKQuantityTypeIdentifierStepCount")
        #expect(steps.map(\.value) == [8412, 10051])
        #expect(steps[0].startDate == utc("2025-03-08T08:00:00Z") && steps[0].endDate == utc("2025-03-09T08:00:00Z"))
        #expect(steps[0].sourceApp == "Zoë’s iPhone")
        #expect(steps[0].metadata["sources"] == "Zoë’s iPhone, Zoë’s Apple\u{a0}Watch")
        #expect(steps[0].metadata["device"] == "Apple Watch")
        #expect(steps[0].metadata["aggregation"] == "day")
        #expect(steps[0].metadata["HKTimeZone"] == "GMT-08:00")
        #expect(report.metrics["step_count"]?.summarised == 2)

        // Individual heart rate: start/end, Avg, the motion context as export.xml writes it.
        let heart = out.of("HKQuantityTypeIdentifierHeartRate")
        #expect(heart.map(\.value) == [96, 101])
        #expect(heart[0].unit == "bpm" && heart[0].startDate == utc("2025-03-09T21:30:05Z") && heart[0].endDate == heart[0].startDate)
        #expect(heart[0].metadata["HKMetadataKeyHeartRateMotionContext"] == "2")
        #expect(heart[1].metadata["HKMetadataKeyHeartRateMotionContext"] == "1")
        #expect(heart[0].metadata["aggregation"] == nil)
        #expect(heart[0].metadata["HKTimeZone"] == "GMT-07:00")

        // Units to the canonical ones.
        #expect(abs(out.of("HKQuantityTypeIdentifierDistanceWalkingRunning")[0].value - 0.0125 * 1.609344) < 1e-12)
        #expect(out.of("HKQuantityTypeIdentifierDistanceWalkingRunning")[0].unit == "km")
        #expect(out.of("HKQuantityTypeIdentifierBodyMass")[0].value == 68.0388555)
        #expect(out.of("HKQuantityTypeIdentifierBodyMass")[0].unit == "kg")

        // Blood pressure: two samples.
        #expect(out.of("HKQuantityTypeIdentifierBloodPressureSystolic").map(\.value) == [118])
        #expect(out.of("HKQuantityTypeIdentifierBloodPressureDiastolic").map(\.value) == [76])
        #expect(report.metrics["blood_pressure"]?.samples == 2)

        // Sleep: a summarised night gives its stages over the night; a segment is one sample.
        let sleep = out.of("HKCategoryTypeIdentifierSleepAnalysis")
        let night = sleep.filter { $0.metadata["aggregation"] == "night" }
        #expect(night.map { $0.metadata["category"]! } == ["core", "deep", "rem", "awake"])
        #expect(night.map(\.value) == [240, 75, 120, 30])
        #expect(night.allSatisfy { $0.startDate == utc("2025-03-08T07:10:00Z") && $0.endDate == utc("2025-03-08T14:55:00Z") })
        #expect(night.allSatisfy { $0.unit == "minutes" })
        let segment = sleep.filter { $0.metadata["aggregation"] == nil }
        #expect(segment.count == 1)
        #expect(segment[0].value == 30 && segment[0].metadata["categoryValue"] == "HKCategoryValueSleepAnalysisAsleepDeep")

        // A name with no mapping: kept under its own name and unit, and reported.
        let unmapped = out.of("made_up_metric")
        #expect(unmapped.count == 1 && unmapped[0].unit == "widgets" && unmapped[0].value == 3)
        #expect(report.unmapped == ["made_up_metric"])

        // The workout (version 2) and its route.
        let workout = try #require(out.of("workout").first)
        #expect(workout.value == 30 && workout.unit == "min")
        #expect(workout.metadata["activityType"] == "running")
        #expect(workout.metadata["totalEnergyKcal"] == "300")
        #expect(workout.metadata["totalDistanceKm"] == "4.9889664")
        #expect(workout.metadata["heartRateAverage"] == "150")
        #expect(out.routes.count == 1)
        #expect(out.routes[0].workoutType == "running" && out.routes[0].workoutStart == utc("2025-03-09T15:00:00Z"))
        #expect(out.routes[0].points.map(\.time) == [utc("2025-03-09T15:00:01Z"), utc("2025-03-09T15:00:02Z")])
        #expect(out.routes[0].points[1].elevation == 52.4)

        // Every array of the app is kept: the medication as its kind, the workout's heart rates as
        // its series; nothing is reported as not kept.
        #expect(report.records["medications"]?.records == 1 && report.records["series"] == RecordCount(records: 1, parts: 1), "\(report.records)")
        #expect(report.notKept.isEmpty, "\(report.notKept)")
    }

    @Test func versionOneWorkoutAndTopLevelArray() throws {
        let json = """
            [{"data":{"workouts":[{"name":"Walking","start":"2023-03-18 08:55:40 +1100","end":"2023-03-18 09:41:32 +1100",
              "activeEnergy":{"units":"kJ","qty":418.4},"distance":{"qty":3.5,"units":"km"},"avgHeartRate":{"units":"bpm","qty":86},
              "maxHeartRate":{"units":"bpm","qty":112},"elevation":{"ascent":12,"descent":3,"units":"m"},"isIndoor":true,"route":[]}]}}]
            """
        let (out, report) = try Collected.read(json)
        let workout = try #require(out.metrics.first)
        #expect(workout.type == "workout" && workout.metadata["activityType"] == "walking")
        #expect(abs(workout.value - (utc("2023-03-17T22:41:32Z") - utc("2023-03-17T21:55:40Z")).asMinutes) < 1e-9)
        #expect(workout.metadata["totalEnergyKcal"] == "100")
        #expect(workout.metadata["totalDistanceKm"] == "3.5")
        #expect(workout.metadata["heartRateMaximum"] == "112")
        #expect(workout.metadata["HKIndoorWorkout"] == "1")
        #expect(out.routes.isEmpty && report.workouts == 1)
    }

    @Test func hourBucketsAreToldByTheirDates() throws {
        let json = """
            {"data":{"metrics":[{"name":"step_count","units":"count","data":[
              {"date":"2024-06-18 00:00:00 +0200","qty":10},{"date":"2024-06-18 01:00:00 +0200","qty":20}]},
              {"name":"active_energy","units":"kJ","data":[{"date":"2024-06-18 00:00:17 +0200","qty":4.184}]}]}}
            """
        let (out, _) = try Collected.read(json)
        let steps = out.of("HKQuantityTypeIdentifierStepCount")
        // One point is at midnight, the other is not: both are hours, not a day and an hour.
        #expect(steps.map { $0.endDate - $0.startDate } == [3600, 3600])
        #expect(steps.allSatisfy { $0.metadata["aggregation"] == "hour" })
        // Off the hour: an individual sample at an instant.
        let energy = try #require(out.of("HKQuantityTypeIdentifierActiveEnergyBurned").first)
        #expect(energy.startDate == energy.endDate && energy.value == 1 && energy.metadata["aggregation"] == nil)
    }

    @Test func theHeaderNamesTheBucket() throws {
        let json = """
            {"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-01-01 00:00:00 +0000","qty":900}]}]}}
            """
        let (out, _) = try Collected.read(json, aggregation: Aggregation(header: "Months"))
        let steps = try #require(out.metrics.first)
        #expect(steps.metadata["aggregation"] == "month")
        #expect(steps.endDate - steps.startDate == 31 * 86_400)
    }

    @Test func malformedJSONGivesThePathAndOffset() throws {
        let json = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-01-01 00:00:00 +0000","qty":9,}]}]}}"#
        let error = try #require(throws: HealthAutoExportError.self) { try Collected.read(json) }
        #expect(error.kind == .malformed)
        #expect(error.path == "$.data.metrics[0].data[0]")
        // The '}' where a key should follow the ','.
        #expect(error.offset == json.utf8.count - 6)
        #expect(error.description.contains("expected a key in quotes"))
    }

    @Test(arguments: [
        (#"{"data":{"metrics":{}}}"#, "$.data.metrics", "expected an array, found an object"),
        (#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"yesterday","qty":1}]}]}}"#,
         "$.data.metrics[0].data[0]", "date \"yesterday\" is not a date"),
        (#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-01-01 00:00:00 +0000","qty":"9"}]}]}}"#,
         "$.data.metrics[0].data[0].qty", "expected a number, found a string"),
        (#"{"metrics":[]}"#, "$", "no \"data\" object"),
    ])
    func wrongShapeGivesThePath(json: String, path: String, problem: String) throws {
        let error = try #require(throws: HealthAutoExportError.self) { try Collected.read(json) }
        #expect(error.kind == .shape)
        #expect(error.path == path)
        #expect(error.problem.contains(problem))
    }

    @Test func escapesAndNullSources() throws {
        let json = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-01-01 10:11:12 +0000","qty":1,"source":null},{"date":"2024-01-01 10:11:13 +0000","qty":2,"source":"Zo\u00eb\u2019s \ud83d\udc4d|"}]}]}}"#
        let (out, _) = try Collected.read(json)
        #expect(out.metrics.map(\.sourceApp) == ["Health Auto Export", "Zoë’s 👍"])
    }

    @Test func aPointWithoutAValueIsReportedNotKept() throws {
        let json = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-01-01 10:11:12 +0000"},{"date":"2024-01-01 10:11:13 +0000","qty":2}]}]}}"#
        let (out, report) = try Collected.read(json)
        #expect(out.metrics.count == 1)
        #expect(report.notKept["step_count"] == .init(count: 1, reason: "no qty"))
    }
}

extension Int64 {
    var asMinutes: Double { Double(self) / 60 }
}

/// docs/mapping.md lists every name of the one table, with its type.
@Suite struct HealthAutoExportNamesTests {
    @Test func theDocumentedTableIsTheCodesTable() throws {
        let doc = try String(contentsOfFile: Paths.repository.appendingPathComponent("docs/mapping.md").path, encoding: .utf8)
        for name in HealthAutoExportNames.names {
            let entry = try #require(HealthAutoExportNames.entry(name))
            #expect(doc.contains("| `\(name)` | `\(entry.type)` |"), "docs/mapping.md lacks \(name)")
        }
        let documented = doc.components(separatedBy: "\n").filter { $0.hasPrefix("| `") && $0.contains("` | `HK") }
        #expect(documented.count == HealthAutoExportNames.names.count)
    }
}

/// What is and is not JSON on the network (RFC 8259: UTF-8; a byte order mark may be ignored).
@Suite struct HealthAutoExportEncodingTests {
    static let document = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-01-01 10:11:12 +0000","qty":1,"source":"SOURCE"}]}]}}"#

    @Test func aByteOrderMarkIsIgnored() throws {
        let collected = CollectingSink()
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(Self.document.utf8)
        _ = try ReaderRunner.run(HealthAutoExportReader(document: HealthAutoExportDocument(bytes: bytes, name: "bom")), into: collected.sinks)
        #expect(collected.metrics.count == 1)
    }

    @Test(arguments: [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x80]] as [[UInt8]])
    func invalidUTF8IsRefusedWithItsPath(_ sequence: [UInt8]) throws {
        let parts = Self.document.components(separatedBy: "SOURCE")
        let bytes = Array(parts[0].utf8) + sequence + Array(parts[1].utf8)
        let collected = CollectingSink()
        let error = try #require(throws: HealthAutoExportError.self) {
            try ReaderRunner.run(HealthAutoExportReader(document: HealthAutoExportDocument(bytes: bytes, name: "bad")), into: collected.sinks)
        }
        #expect(error.kind == .malformed && error.path == "$.data.metrics[0].data[0].source")
        #expect(collected.metrics.isEmpty && !collected.finished)
    }

    /// A string's plain bytes are passed eight at a time (`JSONCursor.plainPrefix`): a byte that needs
    /// a look of its own is found at every place in and across those eight.
    @Test(arguments: 0..<18)
    func aStringIsReadWhereverItsSpecialByteFalls(_ offset: Int) throws {
        let before = Array(repeating: UInt8(ascii: "a"), count: offset), after = Array(repeating: UInt8(ascii: "z"), count: 17 - offset)
        let parts = Self.document.components(separatedBy: "SOURCE")
        let document = { (middle: [UInt8]) in Array(parts[0].utf8) + before + middle + after + Array(parts[1].utf8) }
        let read: [(written: String, read: String)] = [(#"\""#, "\""), (#"\\"#, "\\"), ("ë", "ë"), (#"\u00e9"#, "é"), ("\u{7f}", "\u{7f}"),
                                                       ("!", "!"), ("#", "#"), ("]", "]")]
        for (written, expected) in read {
            let collected = CollectingSink()
            _ = try ReaderRunner.run(HealthAutoExportReader(document: HealthAutoExportDocument(bytes: document(Array(written.utf8)), name: "ok")),
                                     into: collected.sinks)
            #expect(collected.metrics.map(\.sourceApp) == [String(decoding: before, as: UTF8.self) + expected + String(decoding: after, as: UTF8.self)],
                    "\(written) after \(offset) bytes")
        }
        for refused: [UInt8] in [[0x00], [0x01], [0x1F], [0x0A], [0xFF], [0x80]] {
            let collected = CollectingSink()
            let error = try #require(throws: HealthAutoExportError.self) {
                try ReaderRunner.run(HealthAutoExportReader(document: HealthAutoExportDocument(bytes: document(refused), name: "bad")),
                                     into: collected.sinks)
            }
            #expect(error.kind == .malformed && error.path == "$.data.metrics[0].data[0].source", "\(refused) after \(offset) bytes")
        }
    }
}
