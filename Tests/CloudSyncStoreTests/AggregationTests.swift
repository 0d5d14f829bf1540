import CloudSyncExport
import CloudSyncModel
@testable import CloudSyncStore
import Foundation
import Testing

@Suite struct AggregationTests {
    /// Sums per UTC day computed here from convert's own output, against the store's aggregate.
    @Test func dailyTotalsMatchAnIndependentSum() throws {
        let store = try StagingStore(path: try StorePaths.newStore(), access: .write)
        let input = try StorePaths.write(stepsExport(firstDay: 1, days: 3))
        try store.importExport(input)
        try store.importExport(StorePaths.sampleZip)
        var expected: [String: (count: Int, sum: Double, min: Double, max: Double)] = [:]
        for metric in try convertDirectly(input) + convertDirectly(StorePaths.sampleZip) where metric.type == "HKQuantityTypeIdentifierStepCount" {
            let day = String(UTCDateFormatter.string(metric.startDate).prefix(10))
            var entry = expected[day] ?? (0, 0, .infinity, -.infinity)
            entry.count += 1
            entry.sum += metric.value
            entry.min = min(entry.min, metric.value)
            entry.max = max(entry.max, metric.value)
            expected[day] = entry
        }
        let rows = try store.aggregate(AggregateOptions(bucket: .day, filter: MetricFilter(types: ["stepCount"])))
        #expect(rows.count == expected.count)
        for row in rows {
            let want = try #require(expected[row.bucket])
            #expect(row.count == want.count && row.sum == want.sum && row.minimum == want.min && row.maximum == want.max, "\(row.bucket)")
            #expect(row.average == want.sum / Double(want.count))
        }
    }

    @Test func bucketsFollowTheTimeZone() throws {
        let store = try StagingStore(path: try StorePaths.newStore(), access: .write)
        try store.importExport(StorePaths.sampleZip)
        // The 2024-11-03 01:30 heart rates (-0400 then -0500, the fall-back hour) are 05:30Z and 06:30Z.
        let utc = try store.aggregate(AggregateOptions(bucket: .hour, filter: MetricFilter(types: ["heartRate"])))
        #expect(utc.map(\.bucket) == ["2024-11-02T12:00", "2024-11-03T05:00", "2024-11-03T06:00"])
        let newYork = try store.aggregate(AggregateOptions(bucket: .hour, filter: MetricFilter(types: ["heartRate"]),
                                                           timeZone: TimeZone(identifier: "America/New_York")))
        // The file writes every date with the export-time offset (-0500), but on Nov 2 New York was on
        // EDT (-0400): "07:05:11 -0500" is 12:05Z, 08:05 local. Then 01:30 twice (EDT, EST): one hour label.
        #expect(newYork.map(\.bucket) == ["2024-11-02T08:00", "2024-11-03T01:00"])
        #expect(newYork.map(\.count) == [1, 2])
        let days = try store.aggregate(AggregateOptions(bucket: .day, filter: MetricFilter(types: ["sleepAnalysis"]),
                                                        timeZone: TimeZone(identifier: "America/New_York")))
        // "2024-11-01 23:10:00 -0500" is 04:10Z, 00:10 EDT on the 2nd: every sleep sample is on the 2nd locally.
        #expect(days.map(\.bucket) == ["2024-11-02"])
        #expect(days.first?.count == 5)
        let weeks = try store.aggregate(AggregateOptions(bucket: .week, filter: MetricFilter(types: ["stepCount"])))
        #expect(weeks.map(\.bucket) == ["2024-10-28"])                 // a Monday
        let months = try store.aggregate(AggregateOptions(bucket: .month, filter: MetricFilter(types: ["workout"])))
        #expect(months.map(\.bucket) == ["2023-06", "2024-11"])
    }

    @Test func mergeSourcesCountsASpanOnce() throws {
        // The Watch counts 100 steps from 08:00 to 08:10; the iPhone 100 from 08:05 to 08:15 (half covered)
        // and 50 from 09:00 to 09:10 (alone). Merged: 100 + 100 × 5/10 + 50 = 200. Plain: 250.
        func step(_ source: String, _ device: String, _ start: String, _ end: String, _ value: Int) -> String {
            " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(source)\" device=\"&lt;&lt;HKDevice: 0x1&gt;, name:\(device)&gt;\" unit=\"count\" startDate=\"2024-05-01 \(start):00 +0000\" endDate=\"2024-05-01 \(end):00 +0000\" value=\"\(value)\"/>\n"
        }
        let xml = "<HealthData locale=\"en_US\">\n" + step("Phone", "iPhone", "08:05", "08:15", 100)
            + step("Watch", "Apple Watch", "08:00", "08:10", 100) + step("Phone", "iPhone", "09:00", "09:10", 50)
            + " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Phone\" unit=\"count/min\" startDate=\"2024-05-01 08:06:00 +0000\" endDate=\"2024-05-01 08:06:00 +0000\" value=\"80\"/>\n"
            + "</HealthData>\n"
        let store = try StagingStore(path: try StorePaths.newStore(), access: .write)
        try store.importExport(try StorePaths.write(xml))
        let plain = try store.aggregate(AggregateOptions(bucket: .day, filter: MetricFilter(types: ["stepCount"])))
        #expect(plain.first?.sum == 250)
        let merged = try store.aggregate(AggregateOptions(bucket: .day, mergeSources: true))
        #expect(merged.first { $0.type.hasSuffix("StepCount") }?.sum == 200)
        #expect(merged.first { $0.type.hasSuffix("StepCount") }?.count == 3)
        #expect(merged.first { $0.type.hasSuffix("HeartRate") }?.sum == 80)   // not cumulative: untouched
    }
}
