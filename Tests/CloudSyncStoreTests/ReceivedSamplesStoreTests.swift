import CloudSyncExport
import CloudSyncModel
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Samples received already normalised (a CloudCare batch, Flō samples, steps) go into the store
/// through its one door, under the export's identity: each counted once, whichever came first.
@Suite struct ReceivedSamplesStoreTests {
    static func batch(_ metrics: [HealthMetric], into store: StagingStore) throws -> StoreImportResult {
        try store.importMetrics(metrics, origin: .receivedSamples(input: "a CloudCare batch", kindName: "cloudcare"))
    }

    static func dailySteps(_ store: StagingStore) throws -> [String: Double] {
        let rows = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, filter: MetricFilter(types: ["HKQuantityTypeIdentifierStepCount"])))
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.bucket, $0.sum) })
    }

    @Test func aBatchOfTheExportsSamplesIsAlreadyThere() throws {
        let fixture = try StoreFixture()
        let export = try fixture.file(stepsExport(firstDay: 10, days: 2))
        let store = try fixture.open()
        try store.importExport(export)
        let expected = try Self.dailySteps(store)
        let metrics = try convertDirectly(export)
        #expect(metrics.count == 48)
        let result = try Self.batch(metrics, into: store)
        #expect(result.new == 0 && result.already == 48)
        #expect(try Self.dailySteps(store) == expected)
        #expect(try StatusQuery(store).counts().metrics == 48)
    }

    /// The batch first: its rows have no creation date, and the export dates them instead of adding
    /// them again; the same batch again adds nothing.
    @Test func anExportAfterTheBatchDatesItsRows() throws {
        let fixture = try StoreFixture()
        let dated = stepsExport(firstDay: 10, days: 2).replacingOccurrences(of: " startDate=", with: " creationDate=\"2024-03-12 06:00:00 +0000\" startDate=")
        let export = try fixture.file(dated)
        let store = try fixture.open()
        let metrics = try convertDirectly(export)
        let first = try Self.batch(metrics, into: store)
        #expect(first.new == 48 && first.already == 0)
        let again = try Self.batch(metrics, into: store)
        #expect(again.new == 0 && again.already == 48)
        let imported = try store.importExport(export)
        #expect(imported.stored.new == 0 && imported.stored.already == 48)
        #expect(try StatusQuery(store).counts().metrics == 48)
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric WHERE created_at = \(StoreSchema.undated)") == 0)
        #expect(try Self.dailySteps(store) == ["2024-03-10": Double((100...123).reduce(0, +)), "2024-03-11": Double((100...123).reduce(0, +))])
    }

    /// Two sleep samples of one span differ only in their category (metadata `categoryValue`): both kept.
    @Test func categorySamplesKeepTheirCategory() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let night = { (category: String) in
            HealthMetric(type: "HKCategoryTypeIdentifierSleepAnalysis", startDate: 1_710_000_000, endDate: 1_710_003_600, value: 60,
                         unit: "minutes", sourceApp: "Watch", metadata: ["device": "Apple Watch", "categoryValue": category])
        }
        let result = try Self.batch([night("HKCategoryValueSleepAnalysisInBed"), night("HKCategoryValueSleepAnalysisAsleepCore"),
                                     night("HKCategoryValueSleepAnalysisInBed")], into: store)
        #expect(result.new == 2 && result.writtenTwice + result.already == 1)
    }

    /// Each sample's texts are mapped afresh, though the metadata list is kept from one sample to the
    /// next (`ReceivedMetrics.withMapped`): a sample with fewer metadata than the one before
    /// keeps none of its, and the device comes first, then `sourceVersion`, then the rest by name.
    @Test func eachSampleIsMappedAfresh() throws {
        let samples = [
            HealthMetric(type: "HKQuantityTypeIdentifierHeartRate", startDate: 1_710_000_000, endDate: 1_710_000_000, value: 61,
                         unit: "count/min", sourceApp: "Zoë’s Apple Watch",
                         metadata: ["device": "Apple Watch", "sourceVersion": "11.6", "HKMetadataKeyHeartRateMotionContext": "1", "b": "2"]),
            HealthMetric(type: "HKQuantityTypeIdentifierStepCount", startDate: 1_710_000_000, endDate: 1_710_000_600, value: 5,
                         unit: "count", sourceApp: "Phone", metadata: [:]),
            HealthMetric(type: "HKCategoryTypeIdentifierSleepAnalysis", startDate: 1_710_000_000, endDate: 1_710_003_600, value: 60,
                         unit: "minutes", sourceApp: "Watch", metadata: ["categoryValue": "HKCategoryValueSleepAnalysisInBed", "device": "W"]),
        ]
        let collected = CollectingSink()
        _ = try ReaderRunner.run(HealthMetricsReader(samples, name: "three samples"), into: collected.sinks)
        #expect(collected.metrics.map(\.type) == samples.map(\.type))
        #expect(collected.metrics.map(\.sourceApp) == samples.map(\.sourceApp))
        #expect(collected.metrics.map(\.metadata) == [samples[0].metadata, ["device": "Unknown"], samples[2].metadata])
        #expect(collected.jsonLines[0].contains(#""metadata":{"device":"Apple Watch","sourceVersion":"11.6","HKMetadataKeyHeartRateMotionContext":"1","b":"2"}"#),
                "\(collected.jsonLines[0])")
        #expect(collected.jsonLines[1].contains(#""metadata":{"device":"Unknown"}"#), "\(collected.jsonLines[1])")
    }

    /// A refused batch (the store's own failure half-way) leaves nothing, not even its run.
    @Test func aBatchIsAllOrNothing() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let good = HealthMetric(type: "HKQuantityTypeIdentifierStepCount", startDate: 1_710_000_000, endDate: 1_710_000_600, value: 5,
                                unit: "count", sourceApp: "Phone", metadata: ["device": "iPhone"])
        let stopped = RunControl(shouldStop: { true })
        let session = try store.beginImport(.receivedSamples(input: "a batch", kindName: "steps"))
        #expect(throws: ConversionError.self) {
            try ReaderRunner.run(HealthMetricsReader([good], name: "a batch"), into: session.sinks, control: stopped)
        }
        session.fail(ConversionError.interrupted)
        #expect(try StatusQuery(store).counts().metrics == 0)
        #expect(try store.database.scalarInt("SELECT count(*) FROM import_run") == 0)
    }
}
