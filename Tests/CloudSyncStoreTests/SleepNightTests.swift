import CloudSyncHealthAutoExport
import CloudSyncModel
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// The night's rule through the library (docs/aggregation.md, "Sleep"): a summarised night counts
/// the minutes the phone measured, segments inside it do not make it stop counting, and a store
/// made before the rule (schema 12: a summary that segments superseded, no `totalSleep` kept) gives
/// the right nights once upgraded.
@Suite struct SleepNightTests {
    /// A Watch's night of 2024-06-01 as the app summarises it (stages, totalSleep, inBed over its
    /// own window), and another app's segments of asleep inside it.
    static let night = #"""
        {"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[
         {"date":"2024-06-02 00:00:00 +0200","sleepStart":"2024-06-01 23:00:00 +0200","sleepEnd":"2024-06-02 07:00:00 +0200",
          "inBedStart":"2024-06-01 22:50:00 +0200","inBedEnd":"2024-06-02 07:10:00 +0200","source":"Watch",
          "totalSleep":7.5,"asleep":0,"core":4.5,"deep":1,"rem":2,"awake":0.25,"inBed":8},
         {"startDate":"2024-06-01 23:30:00 +0200","endDate":"2024-06-02 03:30:00 +0200","value":"Asleep","qty":4,"source":"Sleep Cycle"}
        ]}]}}
        """#

    static func nights(_ store: StagingStore) throws -> [SleepNight] {
        try SleepQuery(store).nights(zone: TimeZone(identifier: "Europe/Paris"))
    }

    @Test func aSummarisedNightCountsItsMinutesBesideSegments() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let stored = try HealthAutoExportStoreTests.push(Self.night, into: store)
        // Nothing superseded: the segment inside the night does not replace it.
        #expect(stored.new == 6 && stored.superseded == 0, "\(stored)")
        #expect(try Self.nights(store) == [SleepNight(night: "2024-06-01", inBed: 480, asleep: 450, core: 270, deep: 60, rem: 120, awake: 15)])
        // Hours hold the night's minutes spread over its window: 8 hours of 56.25 minutes asleep.
        let hours = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .hour, filter: MetricFilter(types: ["HKCategoryTypeIdentifierSleepAnalysis"]),
                                                                         timeZone: TimeZone(identifier: "Europe/Paris")))
        let asleep = hours.filter { $0.category == "asleep" }
        #expect(asleep.count == 8 && abs(asleep.reduce(0) { $0 + $1.sum } - 450) < 1e-6, "\(asleep.map { "\($0.bucket) \($0.sum)" })")
    }

    @Test func aStoreFromBeforeTheRuleGivesTheRightNightsOnceUpgraded() throws {
        let fixture = try StoreFixture()
        do {
            let store = try fixture.open()
            try HealthAutoExportStoreTests.push(Self.night, into: store)
            // As schema 12 kept it: no totalSleep in the samples' metadata, the summary superseded
            // (2) by the segment inside it, the schema's version 12.
            try store.database.execute("""
                UPDATE metric SET extra = substr(json_remove('{' || extra || '}', '$.totalSleep'), 2,
                                                 length(json_remove('{' || extra || '}', '$.totalSleep')) - 2)
                WHERE summary = 1;
                UPDATE metric SET superseded = 2 WHERE summary = 1;
                PRAGMA user_version = 12;
                """)
            #expect(try store.database.scalarInt("SELECT count(*) FROM metric WHERE extra LIKE '%totalSleep%'") == 0)
        }
        // A reader refuses the older store; a writer upgrades it.
        #expect(throws: StoreError.self) { try fixture.openForReading() }
        let upgraded = try fixture.open()
        #expect(try upgraded.database.scalarInt("PRAGMA user_version") == Int64(StoreSchema.currentVersion))
        #expect(try upgraded.database.scalarInt("SELECT count(*) FROM metric WHERE superseded != 0") == 0)
        // The phone's stages add up to its night (totalSleep = core + deep + REM on a Watch): the
        // same nights as a store made today.
        #expect(try Self.nights(upgraded) == [SleepNight(night: "2024-06-01", inBed: 480, asleep: 450, core: 270, deep: 60, rem: 120, awake: 15)])
        let status = try StatusQuery(upgraded).status()
        #expect(status.superseded == 0 && status.metrics == 6)
    }
}
