import CloudSyncExport
import CloudSyncModel
import CloudSyncKinds
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Keep every sample, count each once: samples alike but for their creation date are distinct
/// samples in HealthKit (a Garmin workout re-written at every sync, a food entry logged twice).
@Suite struct RepeatedSampleTests {
    static func distance(_ created: String?, start: String = "2017-05-01 09:00:00 +0200", value: String = "0.5") -> String {
        let creation = created.map { " creationDate=\"\($0)\"" } ?? ""
        return " <Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"iPhone\" unit=\"km\"\(creation) startDate=\"\(start)\" endDate=\"2017-05-01 09:10:00 +0200\" value=\"\(value)\"/>\n"
    }

    static func run(_ created: String?) -> String {
        let creation = created.map { " creationDate=\"\($0)\"" } ?? ""
        return " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"31\" durationUnit=\"min\" sourceName=\"Garmin Connect\"\(creation) startDate=\"2020-06-01 07:00:00 +0200\" endDate=\"2020-06-01 07:31:00 +0200\"/>\n"
    }

    /// The same distance twice with two creation dates, once more with the second date (the export
    /// wrote that record twice), another distance, and one run re-written at three syncs.
    static func export(withCreationDates: Bool = true) -> String {
        let c = { (day: Int) in withCreationDates ? "2017-05-0\(day) 10:00:00 +0200" : nil }
        let body = distance(c(1)) + distance(c(2)) + distance(c(2))
            + distance(c(2), start: "2017-05-01 09:05:00 +0200", value: "0.7")
            + run(c(3)) + run(c(4)) + run(c(5))
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-04-01 10:00:00 +0000\"/>\n\(body)</HealthData>\n"
    }

    func dailyDistance(_ store: StagingStore, countRepeats: Bool = false) throws -> AggregateRow? {
        try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, filter: MetricFilter(types: ["distanceWalkingRunning"]),
                                             countRepeats: countRepeats)).first
    }

    @Test func theStoreHoldsWhatHealthKitHeldAndCountsEachSampleOnce() throws {
        let fixture = try StoreFixture()
        let input = try fixture.file(Self.export())
        let store = try fixture.open()
        let first = try store.importExport(input)
        #expect(first.stored.new == 6)            // 2 + 1 distances, 3 runs
        #expect(first.stored.repeats == 3)         // the second distance, the second and third run
        #expect(first.stored.writtenTwice == 1)
        #expect(first.stored.already == 0)      // nothing was in the store: nothing "already there"
        let status = try StatusQuery(store).status()
        #expect(status.metrics == 3 && status.repeats == 3)
        #expect(status.byType["workout"] == 1)
        #expect(try StatusQuery(store).status(countRepeats: true).metrics == 6)
        #expect(status.imports.first?.repeats == 3 && status.imports.first?.writtenTwice == 1)

        let once = try #require(try dailyDistance(store))
        #expect(once.count == 2 && abs(once.sum - 1.2) < 1e-9)
        let all = try #require(try dailyDistance(store, countRepeats: true))
        #expect(all.count == 3 && abs(all.sum - 1.7) < 1e-9)
        // Uploads send each sample once, and export writes what counts; with --count-repeats, every
        // stored sample, as status --count-repeats counts them.
        #expect(try store.ledger.pendingSummary(targetID: nil).count == 3)
        #expect(try ExportQuery(store).metrics(to: CollectingSink()) == 3)
        let exported = CollectingSink()
        #expect(try ExportQuery(store).metrics(countRepeats: true, to: exported) == 6)

        let again = try store.importExport(input)
        #expect(again.stored.new == 0 && again.stored.already == 7 && again.stored.writtenTwice == 0)
        // The same export without creation dates (as iOS 8 wrote it) holds nothing new either.
        let undated = try store.importExport(try fixture.file(Self.export(withCreationDates: false)))
        #expect(undated.stored.new == 0 && undated.stored.already == 7)
        #expect(try StatusQuery(store).status(countRepeats: true).metrics == 6)
        #expect(try store.integrityCheck() == "ok")
    }

    /// The same rules into a store that already holds rows (its new samples then go in a chunk at a
    /// time while the filter of this import's samples decides what must be looked up): a repeat of a
    /// stored sample, a repeat and a record written twice within the import, and new samples.
    @Test func intoAStoreWithRowsEachSampleIsCountedOnceToo() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let first = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
            + Self.distance("2017-05-01 10:00:00 +0200", start: "2017-04-01 09:00:00 +0200", value: "9")
            + Self.distance("2017-05-01 10:00:00 +0200") + "</HealthData>\n"
        #expect(try store.importExport(try fixture.file(first, named: "first.xml")).stored.new == 2)
        let imported = try store.importExport(try fixture.file(Self.export(), named: "second.xml")).stored
        // Stored before: the first distance with the 1st's creation date. New: the same distance
        // dated the 2nd (a repeat of the stored one), written twice; the other distance; three runs.
        #expect(imported.already == 1 && imported.writtenTwice == 1, "\(imported)")
        #expect(imported.new == 5 && imported.repeats == 3, "\(imported)")
        let status = try StatusQuery(store).status()
        #expect(status.metrics == 4 && status.repeats == 3)   // the April distance, two May distances, one run
        let once = try #require(try dailyDistance(store, countRepeats: false))
        #expect(once.count == 1 && once.bucket == "2017-04-01")
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric WHERE is_repeat = 1") == 3)
        #expect(try store.integrityCheck() == "ok")
    }

    /// A store written by schema 4 kept each (type, dates, source, value, unit) once, with one
    /// upload acknowledged. After the upgrade, the next import of the same export fills in the
    /// creation dates of those rows instead of copying them, adds the samples the old identity lost,
    /// and keeps the acknowledgement.
    @Test func aStoreOfThePreviousSchemaUpgradesWithoutDuplicatingARow() throws {
        let fixture = try StoreFixture()
        do {
            let database = try SQLiteDatabase(path: fixture.path, mode: .readWrite)
            for step in 0..<4 { try database.execute(StoreSchema.migrations[step]) }
            try database.execute("PRAGMA user_version = 4")
            // What schema 4's import stored for this export: the distance and the run once each.
            try database.execute("""
                INSERT INTO import_run(id, input, started_at, outcome, new_count, duplicate_count) VALUES (1, 'old.zip', 1700000000, 'ok', 3, 4);
                INSERT INTO metric_type(id, name) VALUES (1, 'HKQuantityTypeIdentifierDistanceWalkingRunning'), (2, 'workout');
                INSERT INTO source(id, name) VALUES (1, 'iPhone'), (2, 'Garmin Connect');
                INSERT INTO unit(id, name) VALUES (1, 'km'), (2, 'min');
                INSERT INTO device(id, name) VALUES (1, 'Unknown');
                INSERT INTO metric(id, type_id, start_date, end_date, source_id, value, unit_id, device_id, import_id) VALUES
                    (1, 1, 1493622000, 1493622600, 1, 0.5, 1, 1, 1),
                    (2, 1, 1493622300, 1493622600, 1, 0.7, 1, 1, 1),
                    (3, 2, 1590987600, 1590989460, 2, 31, 2, 1, 1);
                INSERT INTO upload_target(id, target, server) VALUES (1, 'cloudcare', 'http://old');
                INSERT INTO upload_ack(target_id, metric_id) VALUES (1, 1);
                """)
        }
        let store = try fixture.open()
        let result = try store.importExport(try fixture.file(Self.export()))
        #expect(result.stored.new == 3 && result.stored.repeats == 3)   // the lost second distance and two runs
        #expect(result.stored.already == 3 && result.stored.writtenTwice == 1)
        let status = try StatusQuery(store).status()
        #expect(status.metrics == 3 && status.repeats == 3)
        #expect(try StatusQuery(store).status(countRepeats: true).metrics == 6)
        #expect(status.targets.first?.acknowledged == 1 && status.targets.first?.pending == 2)
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric WHERE created_at = \(StoreSchema.undated)") == 0)
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric WHERE id <= 3 AND is_repeat = 0") == 3)
        let once = try #require(try dailyDistance(store))
        #expect(once.count == 2 && abs(once.sum - 1.2) < 1e-9)

        let again = try store.importExport(try fixture.file(Self.export()))
        #expect(again.stored.new == 0 && again.stored.already == 7)
        #expect(try store.integrityCheck() == "ok")
    }

    /// The filter that spares an import into an empty store the lookup of every new row: it never
    /// misses a sample it was given (or the import would miss a repeat), and rarely answers "maybe"
    /// for a new one.
    @Test func seenSamplesNeverMissesAndRarelyGuesses() {
        var seen = SeenSamples()
        var maybes = 0
        for i in 0..<200_000 {
            if seen.insert(type: Int64(i % 7), start: Int64(i) * 60, end: Int64(i) * 60 + 30, source: 1, value: Double(i % 500), unit: 2, category: 0) {
                maybes += 1
            }
        }
        #expect(maybes < 20)
        for i in stride(from: 0, to: 200_000, by: 997) {
            let again = seen.insert(type: Int64(i % 7), start: Int64(i) * 60, end: Int64(i) * 60 + 30, source: 1, value: Double(i % 500), unit: 2, category: 0)
            #expect(again)
        }
        _ = seen.insert(type: 9, start: 0, end: 0, source: 1, value: 0.0, unit: 1, category: 0)
        let negativeZero = seen.insert(type: 9, start: 0, end: 0, source: 1, value: -0.0, unit: 1, category: 0)
        #expect(negativeZero)
    }

    /// A batch's filter is sized by its samples (a word each): it still never misses one, and a batch
    /// that holds a sample twice stores it once.
    @Test func aBatchsFilterIsItsSizeAndNeverMisses() throws {
        var seen = SeenSamples(samples: 1_000)
        var maybes = 0
        for i in 0..<1_000 where seen.insert(type: 1, start: Int64(i) * 60, end: Int64(i) * 60, source: 1, value: 70, unit: 1, category: 0) {
            maybes += 1
        }
        #expect(maybes < 5)
        for i in 0..<1_000 {
            let again = seen.insert(type: 1, start: Int64(i) * 60, end: Int64(i) * 60, source: 1, value: 70, unit: 1, category: 0)
            #expect(again)
        }

        let fixture = try StoreFixture()
        let store = try fixture.open()
        let sample = { (minute: Int64) in
            HealthMetric(type: "HKQuantityTypeIdentifierHeartRate", startDate: 1_710_000_000 + minute * 60, endDate: 1_710_000_000 + minute * 60,
                         value: 70, unit: "count/min", sourceApp: "Watch", metadata: ["device": "Apple Watch"])
        }
        let batch = (0..<500).map(sample) + [sample(7)]
        let stored = try store.importMetrics(batch, origin: .receivedSamples(input: "a batch", kindName: "cloudcare"))
        #expect(stored.new == 500 && stored.writtenTwice == 1)
    }

    /// One app's sleep of one night written three times, as a real 2017 export holds it: InBed
    /// created a second before an Asleep and another InBed over the same span.
    static let sleepTwice = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2017-05-01 10:00:00 +0200"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Sleep App" creationDate="2017-04-30 06:27:51 +0200" startDate="2017-04-29 23:10:00 +0200" endDate="2017-04-30 06:27:00 +0200" value="HKCategoryValueSleepAnalysisInBed"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Sleep App" creationDate="2017-04-30 06:27:52 +0200" startDate="2017-04-29 23:10:00 +0200" endDate="2017-04-30 06:27:00 +0200" value="HKCategoryValueSleepAnalysisAsleep"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Sleep App" creationDate="2017-04-30 06:27:52 +0200" startDate="2017-04-29 23:10:00 +0200" endDate="2017-04-30 06:27:00 +0200" value="HKCategoryValueSleepAnalysisInBed"/>
        </HealthData>

        """

    /// A category sample's category is part of its identity: the Asleep is kept apart from the InBed
    /// of the same span, and the second InBed repeats the first.
    @Test func aCategorySampleIsKeptApartFromAnotherCategoryOfTheSameSpan() throws {
        let fixture = try StoreFixture()
        let input = try fixture.file(Self.sleepTwice)
        let store = try fixture.open()
        try store.importExport(input)
        // Every stored sample, repeats included, as `export --count-repeats` writes them.
        let exported = CollectingSink()
        try ExportQuery(store).metrics(countRepeats: true, to: exported)
        #expect(exported.metrics.compactMap { $0.metadata["categoryValue"] }.sorted()
                == ["HKCategoryValueSleepAnalysisAsleep", "HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisInBed"])
        // Counted once each: the second InBed repeats the first; the Asleep repeats nothing.
        let status = try StatusQuery(store).status()
        #expect(status.metrics == 2 && status.repeats == 1)
        try store.importExport(input)
        #expect(try StatusQuery(store).status().metrics == 2)
    }

    /// A store of schema 6 holding what the old identity kept of that night (the Asleep marked as a
    /// repeat of the InBed, the second InBed lost) is upgraded without losing a row, and the next
    /// import adds the lost sample.
    @Test func theUpgradeKeepsEveryRowAndTheNextImportAddsWhatWasLost() throws {
        let fixture = try StoreFixture()
        do {
            let database = try SQLiteDatabase(path: fixture.path, mode: .readWrite)
            for step in 0..<6 { try database.execute(StoreSchema.migrations[step]) }
            try database.execute("PRAGMA user_version = 6")
            let extra = { (value: String, category: String) in "'\"category\":\"\(category)\",\"categoryValue\":\"HKCategoryValueSleepAnalysis\(value)\"'" }
            try database.execute("""
                INSERT INTO import_run(id, input, started_at, outcome) VALUES (1, 'old.zip', 1700000000, 'ok');
                INSERT INTO metric_type(id, name) VALUES (1, 'HKCategoryTypeIdentifierSleepAnalysis');
                INSERT INTO source(id, name) VALUES (1, 'Sleep App');
                INSERT INTO unit(id, name) VALUES (1, 'minutes');
                INSERT INTO device(id, name) VALUES (1, 'Unknown');
                INSERT INTO identity(key, value) VALUES ('userId', 'U'), ('deviceId', 'D');
                INSERT INTO metric(type_id, start_date, end_date, source_id, value, unit_id, device_id, extra, import_id, created_at, is_repeat)
                    VALUES (1, 1493500200, 1493526420, 1, 437, 1, 1, \(extra("InBed", "inBed")), 1, 1493526471, 0),
                           (1, 1493500200, 1493526420, 1, 437, 1, 1, \(extra("Asleep", "asleep")), 1, 1493526472, 1);
                INSERT INTO metric_summary VALUES (1, 1, 1, 2, 1, 1493500200, 1493526420);
                """)
        }
        // A reader refuses it and leaves it as it is; `status --upgrade` (.update) upgrades it:
        // both rows, neither a repeat now.
        #expect { try fixture.openForReading() } throws: { "\($0)".contains("status --upgrade") }
        do {
            let upgraded = try StatusQuery(fixture.open(.update)).status()
            #expect(upgraded.metrics == 2 && upgraded.repeats == 0)
        }
        let store = try fixture.open()
        let result = try store.importExport(try fixture.file(Self.sleepTwice))
        #expect(result.stored.new == 1)                    // the lost InBed
        let after = try StatusQuery(store).status(countRepeats: true)
        #expect(after.metrics == 3 && after.repeats == 1)
        #expect(try store.integrityCheck() == "ok")
    }

    /// The same sample written first without a creation date, then with one, in one export: one row,
    /// dated, whichever the order (a review found the second became a repeat).
    @Test func anUndatedThenDatedSampleInOneExportIsOneRow() throws {
        let body = Self.distance(nil) + Self.distance("2017-05-01 10:00:00 +0200")
        let xml = "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n\(body)</HealthData>\n"
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let result = try store.importExport(try fixture.file(xml))
        #expect(result.stored.new == 1 && result.stored.repeats == 0 && result.stored.writtenTwice == 1)
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric WHERE created_at <> \(StoreSchema.undated)") == 1)
    }
}
