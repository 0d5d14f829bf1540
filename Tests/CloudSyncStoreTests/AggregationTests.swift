import CloudSyncExport
import CloudSyncModel
import CloudSyncKinds
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

@Suite struct AggregationTests {
    /// Amounts that add up are told by their name, the same from a `String` and from its bytes (the
    /// import asks with the bytes it has).
    @Test func cumulativeTypesAreToldByTheirNameAsTextAndAsBytes() {
        let names: [(String, Bool)] = [
            ("HKQuantityTypeIdentifierStepCount", true), ("HKQuantityTypeIdentifierDistanceWalkingRunning", true),
            ("HKQuantityTypeIdentifierActiveEnergyBurned", true), ("HKQuantityTypeIdentifierNikeFuel", true), ("NikeFuel", true),
            ("HKQuantityTypeIdentifierHeartRate", false), ("step_count", false), ("HKQuantityTypeIdentifierDistanc", false),
            ("stepcount", false), ("", false), ("Dístance", false),
        ]
        for (name, cumulative) in names {
            #expect(CumulativeTypes.contains(name) == cumulative, "\(name)")
            #expect(Array(name.utf8).withUnsafeBufferPointer { CumulativeTypes.contains($0) } == cumulative, "\(name)")
        }
    }

    /// Sums per UTC day computed here from convert's own output, against the store's aggregate.
    @Test func dailyTotalsMatchAnIndependentSum() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let input = try fixture.file(stepsExport(firstDay: 1, days: 3))
        try store.importExport(input)
        try store.importExport(Paths.sampleZip)
        var expected: [String: (count: Int, sum: Double, min: Double, max: Double)] = [:]
        for metric in try convertDirectly(input) + convertDirectly(Paths.sampleZip) where metric.type == "HKQuantityTypeIdentifierStepCount" {
            let day = String(UTCDateFormatter.string(metric.startDate).prefix(10))
            var entry = expected[day] ?? (0, 0, .infinity, -.infinity)
            entry.count += 1
            entry.sum += metric.value
            entry.min = min(entry.min, metric.value)
            entry.max = max(entry.max, metric.value)
            expected[day] = entry
        }
        let rows = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, filter: MetricFilter(types: ["stepCount"])))
        #expect(rows.count == expected.count)
        for row in rows {
            let want = try #require(expected[row.bucket])
            #expect(row.count == want.count && row.sum == want.sum && row.minimum == want.min && row.maximum == want.max, "\(row.bucket)")
            #expect(row.average == want.sum / Double(want.count))
        }
    }

    @Test func bucketsFollowTheTimeZone() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.importExport(Paths.sampleZip)
        // The 2024-11-03 01:30 heart rates (-0400 then -0500, the fall-back hour) are 05:30Z and 06:30Z.
        let utc = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .hour, filter: MetricFilter(types: ["heartRate"])))
        #expect(utc.map(\.bucket) == ["2024-11-02T12:00", "2024-11-03T05:00", "2024-11-03T06:00"])
        let newYork = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .hour, filter: MetricFilter(types: ["heartRate"]),
                                                           timeZone: TimeZone(identifier: "America/New_York")))
        // The file writes every date with the export-time offset (-0500), but on Nov 2 New York was on
        // EDT (-0400): "07:05:11 -0500" is 12:05Z, 08:05 local. Then 01:30 twice (EDT, EST): one hour label.
        #expect(newYork.map(\.bucket) == ["2024-11-02T08:00", "2024-11-03T01:00"])
        #expect(newYork.map(\.count) == [1, 2])
        let days = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, filter: MetricFilter(types: ["sleepAnalysis"]),
                                                        timeZone: TimeZone(identifier: "America/New_York")))
        // "2024-11-01 23:10:00 -0500" is 04:10Z, 00:10 EDT on the 2nd: every sleep sample began
        // before noon on the 2nd, so the night is the evening of the 1st's, one row asleep, one in bed.
        #expect(days.map(\.bucket) == ["2024-11-01", "2024-11-01"] && days.map(\.category) == ["asleep", "inBed"])
        #expect(days.map(\.count) == [1, 1])
        let weeks = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .week, filter: MetricFilter(types: ["stepCount"])))
        #expect(weeks.map(\.bucket) == ["2024-10-28"])                 // a Monday
        let months = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .month, filter: MetricFilter(types: ["workout"])))
        #expect(months.map(\.bucket) == ["2023-06", "2024-11"])
    }

    /// A window of whole local days (Paris midnights) gives those days' buckets exactly as they are
    /// without a window: none cut short, none partial at either end, merged or not.
    @Test(arguments: [false, true])
    func aWindowOfLocalDaysGivesTheSameBucketsAsNoWindow(mergeSources: Bool) throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.importExport(try fixture.file(ExportTexts.halfHourlySteps()))
        let paris = TimeZone(identifier: "Europe/Paris")
        let march2 = Int64(1_614_639_600), march4 = Int64(1_614_812_400)   // 2021-03-02 and 2021-03-04 at midnight in Paris
        func days(_ filter: MetricFilter) throws -> [AggregateRow] {
            try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, filter: filter, timeZone: paris, mergeSources: mergeSources))
        }
        let all = try days(MetricFilter(types: ["stepCount"]))
        let window = try days(MetricFilter(types: ["stepCount"], since: march2, until: march4))
        #expect(window.map(\.bucket) == ["2021-03-02", "2021-03-03"])                   // no partial 2021-03-04
        #expect(window == all.filter { ["2021-03-02", "2021-03-03"].contains($0.bucket) })
        #expect(window.first?.count == 48)                                               // 48 half hours, the first included
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
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.importExport(try fixture.file(xml))
        let plain = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, filter: MetricFilter(types: ["stepCount"])))
        #expect(plain.first?.sum == 250)
        let merged = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, mergeSources: true))
        #expect(merged.first { $0.type.hasSuffix("StepCount") }?.sum == 200)
        #expect(merged.first { $0.type.hasSuffix("StepCount") }?.count == 3)
        #expect(merged.first { $0.type.hasSuffix("HeartRate") }?.sum == 80)   // not cumulative: untouched
    }
}

/// The merge rule when the higher-ranked sample starts later, and the hour summary against the rows.
@Suite struct HourSummaryTests {
    private static func step(_ source: String, _ device: String, _ start: String, _ end: String, _ value: Double,
                             type: String = "HKQuantityTypeIdentifierStepCount", unit: String = "count") -> String {
        " <Record type=\"\(type)\" sourceName=\"\(source)\" device=\"&lt;&lt;HKDevice: 0x1&gt;, name:\(device)&gt;\" unit=\"\(unit)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\"/>\n"
    }

    private static func export(_ body: String) -> String { "<HealthData locale=\"en_US\">\n\(body)</HealthData>\n" }

    @Test func aWatchSampleStartingInsideAnIPhoneSampleCoversIt() throws {
        // The iPhone counts 100 from 08:00 to 08:10; the Watch 100 from 08:05 to 08:15. The Watch
        // covers the iPhone's second half: 50 + 100 = 150 (not 200: the overlap once).
        let xml = Self.export(Self.step("Phone", "iPhone", "2024-05-01 08:00:00 +0000", "2024-05-01 08:10:00 +0000", 100)
                              + Self.step("Watch", "Apple Watch", "2024-05-01 08:05:00 +0000", "2024-05-01 08:15:00 +0000", 100))
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.importExport(try fixture.file(xml))
        let merged = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, mergeSources: true))
        #expect(merged.map(\.sum) == [150])
        #expect(merged.map(\.count) == [2])
    }

    /// Three weeks of overlapping iPhone and Watch steps (iPhone samples of 7 to 25 minutes, Watch
    /// ones of 3 to 11, starting anywhere) and a non-cumulative type, in two imports.
    private static func overlappingExport(days: Range<Int>, seed: UInt64, extra: String = "", grouped: Bool = false) -> String {
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        func date(_ minute: Int) -> String {
            let day = minute / 1440, hour = (minute % 1440) / 60
            return String(format: "2024-03-%02d %02d:%02d:00 +0000", day + 1, hour, minute % 60)
        }
        var body = ""
        for day in days {
            var phone = day * 1440 + next(30), watch = day * 1440 + next(30)
            while phone < (day + 1) * 1440 - 30 {
                let length = 7 + next(19)
                body += step("Phone", "iPhone", date(phone), date(phone + length), Double(10 + next(400)))
                phone += length + next(20)
            }
            while watch < (day + 1) * 1440 - 30 {
                let length = 3 + next(9)
                body += step("Watch", "Apple Watch", date(watch), date(watch + length), Double(5 + next(300)))
                body += step("Watch", "Apple Watch", date(watch), date(watch), Double(60 + next(80)),
                             type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min")
                watch += length + next(40)
            }
        }
        // Grouped: the steps, then the heart rates, each in start order, as exports list them.
        let lines = body.split(separator: "\n", omittingEmptySubsequences: true)
        func start(_ line: Substring) -> Substring { line.split(separator: "startDate=").last ?? "" }
        let ordered = grouped ? lines.filter { $0.contains("StepCount") }.sorted { start($0) < start($1) }
            + lines.filter { !$0.contains("StepCount") }.sorted { start($0) < start($1) } : lines
        return export(ordered.map { $0 + "\n" }.joined() + extra)
    }

    private static func bothWays(_ store: StagingStore, _ options: AggregateOptions) throws -> (summary: [AggregateRow], rows: [AggregateRow]) {
        // The same store opened a second time, configured to read the rows only.
        var rowsOnly = StagingStore.Configuration.standard
        rowsOnly.readsHourSummary = false
        let rows = try StagingStore(path: store.path, access: .read, configuration: rowsOnly)
        return (try AggregateQuery(store).aggregate(options), try AggregateQuery(rows).aggregate(options))
    }

    private static func expectSame(_ a: [AggregateRow], _ b: [AggregateRow], _ what: String) {
        #expect(a.map(\.bucket) == b.map(\.bucket), "\(what): buckets")
        #expect(a.map(\.count) == b.map(\.count), "\(what): counts")
        for (x, y) in zip(a, b) {
            #expect(abs(x.sum - y.sum) <= 1e-9 * max(1, abs(y.sum)), "\(what) \(x.bucket): sum \(x.sum) vs \(y.sum)")
            #expect(x.minimum == y.minimum && x.maximum == y.maximum, "\(what) \(x.bucket): extremes")
        }
    }

    @Test func theSummaryGivesWhatTheRowsGive() throws {
        var configuration = StagingStore.Configuration.standard
        configuration.hourSummaryDenseCount = 100
        configuration.importCommitEvery = 300   // hours written at several commits
        let fixture = try StoreFixture()
        let store = try fixture.open(configuration: configuration)
        // An iPhone sample from 09:50, and (next import) a Watch sample inside it from 10:05: the
        // rebuild must reach back to 09:00, the hour of the sample that the new one covers.
        // And a heart rate sample written twice with two creation dates: a repeat, counted once.
        let repeated = (1...2).map { " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" creationDate=\"2024-03-05 11:0\($0):00 +0000\" startDate=\"2024-03-05 11:00:00 +0000\" endDate=\"2024-03-05 11:00:00 +0000\" value=\"250\"/>\n" }.joined()
        let early = Self.step("Phone", "iPhone", "2024-03-05 09:50:00 +0000", "2024-03-05 10:20:00 +0000", 300) + repeated
        let late = Self.step("Watch", "Apple Watch", "2024-03-05 10:05:00 +0000", "2024-03-05 10:08:00 +0000", 30)
        try store.importExport(try fixture.file(Self.overlappingExport(days: 0..<12, seed: 1, extra: early, grouped: true)))
        // The second import adds days after, and samples among the first ones: a partial rebuild.
        try store.importExport(try fixture.file(Self.overlappingExport(days: 9..<21, seed: 2, extra: late)))
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric_hour") ?? 0 > 0)
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric_hour_state WHERE summarised = 1") == 2)   // steps, heart rate
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric_hour_state WHERE dirty_from IS NOT NULL") == 0)
        #expect(try store.database.scalarInt("SELECT sum(repeats) FROM metric_summary") == 1)
        let paris = TimeZone(identifier: "Europe/Paris")!, newYork = TimeZone(identifier: "America/New_York")!
        let since = Int64(ISO8601DateFormatter().date(from: "2024-03-04T23:00:00Z")!.timeIntervalSince1970)  // Paris midnight
        for bucket in AggregateBucket.allCases {
            for zone in [nil, paris, newYork] {
                for merge in [false, true] {
                    for filter in [MetricFilter(types: ["stepCount", "heartRate"]), MetricFilter(types: ["stepCount"], since: since, until: since + 86_400 * 9)] {
                        let (summary, rows) = try Self.bothWays(store, AggregateOptions(bucket: bucket, filter: filter, timeZone: zone, mergeSources: merge))
                        #expect(!rows.isEmpty)
                        Self.expectSame(summary, rows, "\(bucket) \(zone?.identifier ?? "UTC") merge \(merge) since \(filter.since.map(String.init) ?? "-")")
                    }
                }
            }
        }
        // Rebuilt from nothing, the summary is the same as the one kept across the two imports.
        let kept = try store.database.scalarInt("SELECT total(sum * 7 + merged_sum * 3 + count) FROM metric_hour")
        try store.database.execute("DELETE FROM metric_hour; UPDATE metric_hour_state SET summarised = 0, dirty_from = 0, dirty_to = 0")
        try HourSummaryBuilder.refresh(store.database, denseCount: store.configuration.hourSummaryDenseCount)
        #expect(try store.database.scalarInt("SELECT total(sum * 7 + merged_sum * 3 + count) FROM metric_hour") == kept)
        // Rebuilt in turns (a few hours' window first, as a rebuild of years is cut so that a push
        // beside it never waits long): the same summary, and nothing left dirty.
        try store.database.execute("""
            UPDATE metric_hour SET sum = sum + 1000, count = count + 1;
            UPDATE metric_hour_state SET dirty_from = (SELECT min(start_date) FROM metric WHERE type_id = metric_hour_state.type_id),
                                         dirty_to = (SELECT max(end_date) FROM metric WHERE type_id = metric_hour_state.type_id)
            WHERE summarised = 1
            """)
        try HourSummaryBuilder.refresh(store.database, denseCount: store.configuration.hourSummaryDenseCount, firstTurnHours: 3)
        #expect(try store.database.scalarInt("SELECT total(sum * 7 + merged_sum * 3 + count) FROM metric_hour") == kept)
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric_hour_state WHERE dirty_from IS NOT NULL") == 0)
    }

    /// Every type has a summary (schema 10): a sparse one, and one whose second source comes after the
    /// first, going back in time. A store of version 9, whose sparse types had none, gets theirs at its
    /// next import; until then their rows answer.
    @Test func everyTypeHasASummaryAndAnUpgradedStoreGetsTheMissingOnes() throws {
        let fixture = try StoreFixture()
        var phoneHeartRates = ""
        for day in 0..<4 {
            for hour in stride(from: 0, to: 24, by: 3) {
                let at = String(format: "2024-03-%02d %02d:10:00 +0000", day + 1, hour)
                phoneHeartRates += Self.step("Phone", "iPhone", at, at, Double(70 + hour), type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min")
            }
        }
        let bodyMass = (1...3).map {
            Self.step("Scale", "Withings", "2024-03-0\($0) 07:00:00 +0000", "2024-03-0\($0) 07:00:00 +0000", Double(70 + $0),
                      type: "HKQuantityTypeIdentifierBodyMass", unit: "kg")
        }.joined()
        let input = try fixture.file(Self.overlappingExport(days: 0..<4, seed: 5, extra: phoneHeartRates + bodyMass))
        let current = "SELECT count(*) FROM metric_hour_state WHERE summarised = 1 AND dirty_from IS NULL"
        do {
            let store = try fixture.open()
            try store.importExport(input)
            #expect(try store.database.scalarInt(current) == 3)   // steps, heart rate, body mass
            try Self.expectSameEveryWay(store, "new store")
            // As a store of version 9 left it: the sparse type without a summary.
            try store.database.execute("""
                DELETE FROM metric_hour WHERE type_id = (SELECT id FROM metric_type WHERE name = 'HKQuantityTypeIdentifierBodyMass');
                UPDATE metric_hour_state SET summarised = -1, dirty_from = NULL, dirty_to = NULL
                    WHERE type_id = (SELECT id FROM metric_type WHERE name = 'HKQuantityTypeIdentifierBodyMass');
                """)
            try downgradeBeforeCountedRows(store.sqlite!, to: 9)
        }
        let upgraded = try fixture.open()
        #expect(try upgraded.database.scalarInt("SELECT count(*) FROM metric_hour_state WHERE summarised = 0 AND dirty_from IS NOT NULL") == 1)
        try Self.expectSameEveryWay(upgraded, "upgraded, before its import")
        let again = try upgraded.importExport(input)
        #expect(again.stored.new == 0)
        #expect(try upgraded.database.scalarInt(current) == 3)
        #expect(try upgraded.database.scalarInt("SELECT count(*) FROM metric_hour h JOIN metric_type t ON t.id = h.type_id WHERE t.name LIKE '%BodyMass'") == 3)
        try Self.expectSameEveryWay(upgraded, "upgraded, after its import")
    }

    private static func expectSameEveryWay(_ store: StagingStore, _ what: String) throws {
        for bucket in [AggregateBucket.hour, .day, .month] {
            for zone in [nil, TimeZone(identifier: "Europe/Paris")!] {
                for merge in [false, true] {
                    let (summary, rows) = try bothWays(store, AggregateOptions(bucket: bucket, timeZone: zone, mergeSources: merge))
                    #expect(!rows.isEmpty)
                    expectSame(summary, rows, "\(what): \(bucket) \(zone?.identifier ?? "UTC") merge \(merge)")
                }
            }
        }
    }

    @Test func aZoneOfHalfHoursAndADirtyTypeReadTheRows() throws {
        var configuration = StagingStore.Configuration.standard
        configuration.hourSummaryDenseCount = 100
        let fixture = try StoreFixture()
        let store = try fixture.open(configuration: configuration)
        try store.importExport(try fixture.file(Self.overlappingExport(days: 0..<5, seed: 3)))
        let kolkata = AggregateOptions(bucket: .day, filter: MetricFilter(types: ["stepCount"]), timeZone: TimeZone(identifier: "Asia/Kolkata"),
                                       mergeSources: true)
        let (summary, rows) = try Self.bothWays(store, kolkata)
        Self.expectSame(summary, rows, "Asia/Kolkata")
        // This export lists each day's iPhone steps, then its Watch steps: out of start order, so
        // the import left the type to the rebuild from the rows, which merges it right.
        var paris = kolkata
        paris.timeZone = TimeZone(identifier: "Europe/Paris")
        let (parisSummary, parisRows) = try Self.bothWays(store, paris)
        Self.expectSame(parisSummary, parisRows, "Europe/Paris")
        // A killed import leaves its types dirty: the rows answer, with the new rows counted.
        try store.database.execute("""
            INSERT INTO metric(type_id, start_date, end_date, source_id, value, unit_id, device_id, import_id)
                SELECT type_id, start_date + 86400 * 40, end_date + 86400 * 40, source_id, value, unit_id, device_id, import_id
                FROM metric WHERE id = (SELECT min(m.id) FROM metric m JOIN metric_type t ON t.id = m.type_id WHERE t.name LIKE '%StepCount');
            UPDATE metric_hour_state SET dirty_from = 0, dirty_to = 0
            """)
        let plain = AggregateOptions(bucket: .month, filter: MetricFilter(types: ["stepCount"]))
        let (dirtySummary, dirtyRows) = try Self.bothWays(store, plain)
        #expect(dirtySummary.map(\.bucket) == ["2024-03", "2024-04"])
        Self.expectSame(dirtySummary, dirtyRows, "dirty")
    }
}
