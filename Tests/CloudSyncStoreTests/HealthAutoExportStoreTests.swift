import CloudSyncExport
import CloudSyncHealthAutoExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Health Auto Export's documents in the store: each one in one transaction, once, and counted by
/// the supersede rule beside the export (docs/store.md, "Two sources").
@Suite struct HealthAutoExportStoreTests {
    /// A document of step samples: individual ones (`start`/`end`) and day summaries (`date` at midnight).
    static func steps(samples: [(String, Double)] = [], days: [(String, Double)] = [], source: String = "Watch") -> String {
        let sampleJSON = samples.map { #"{"date":"\#($0.0)","start":"\#($0.0)","end":"\#($0.0)","qty":\#($0.1),"source":"\#(source)"}"# }
        let dayJSON = days.map { #"{"date":"\#($0.0) 00:00:00 +0000","qty":\#($0.1),"source":"\#(source)"}"# }
        var metrics: [String] = []
        if !sampleJSON.isEmpty { metrics.append(#"{"name":"step_count","units":"count","data":[\#(sampleJSON.joined(separator: ","))]}"#) }
        if !dayJSON.isEmpty { metrics.append(#"{"name":"step_count","units":"count","data":[\#(dayJSON.joined(separator: ","))]}"#) }
        return #"{"data":{"metrics":[\#(metrics.joined(separator: ","))]}}"#
    }

    @discardableResult
    static func push(_ json: String, into store: StagingStore) throws -> StoreImportResult {
        try store.importDocument(HealthAutoExportDocument(bytes: Array(json.utf8), name: "push"),
                                 details: PushDetails(via: "push", automationName: "test")).stored
    }

    static func daily(_ store: StagingStore, merge: Bool = false) throws -> [String: Double] {
        let rows = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, filter: MetricFilter(types: ["HKQuantityTypeIdentifierStepCount"]),
                                                                mergeSources: merge))
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.bucket, $0.sum) })
    }

    @Test func theSamePushAgainAddsNothing() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let json = Self.steps(samples: [("2024-04-02 08:00:00 +0000", 10), ("2024-04-02 09:00:00 +0000", 20)], days: [("2024-04-03", 500)])
        let first = try Self.push(json, into: store)
        #expect(first.new == 3 && first.already == 0)
        let again = try Self.push(json, into: store)
        #expect(again.new == 0 && again.already == 3)
        #expect(try Self.daily(store) == ["2024-04-02": 30, "2024-04-03": 500])
    }

    /// Names are told apart by their bytes, as the store's unique index does: a source named in NFD
    /// ("Jose" and a combining acute) is not the source named in NFC ("José"), which Swift's
    /// `String` holds equal. (A name table read whole into a dictionary by `String` gave the NFD
    /// push the NFC source's id, and its sample was "already there".)
    @Test func namesThatSwiftHoldsEqualAreTwoSources() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let sample = [("2024-04-02 08:00:00 +0000", 10.0)]
        let composed = "Jos\u{E9}", decomposed = "Jose\u{301}"
        #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
        #expect(try Self.push(Self.steps(samples: sample, source: composed), into: store).new == 1)
        let second = try Self.push(Self.steps(samples: sample, source: decomposed), into: store)
        #expect(second.new == 1 && second.already == 0)
        let third = try Self.push(Self.steps(samples: sample, source: composed), into: store)
        #expect(third.new == 0 && third.already == 1)
    }

    /// The rule: before the ExportDate the export counts; after it the pushed individual samples; a
    /// day summary only where no individual sample falls in it.
    @Test func eachMomentCountsOnce() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        // Mar 30 and 31, 24 records a day (100…123 steps); ExportDate 2024-04-01 10:00 UTC.
        try store.importExport(try fixture.file(stepsExport(firstDay: 30, days: 2)))
        let exportDay = Double((100...123).reduce(0, +))
        let result = try Self.push(Self.steps(
            samples: [("2024-03-31 05:30:00 +0000", 7), ("2024-04-01 09:00:00 +0000", 5), ("2024-04-01 12:00:00 +0000", 40),
                      ("2024-04-02 08:00:00 +0000", 60)],
            days: [("2024-03-31", 9999), ("2024-04-02", 8888), ("2024-04-03", 777)]), into: store)
        // Before the ExportDate: the two samples and the Mar 31 summary; Apr 2's summary has a sample in it.
        #expect(result.new == 7 && result.superseded == 4)
        let expected = ["2024-03-30": exportDay, "2024-03-31": exportDay, "2024-04-01": 40, "2024-04-02": 60, "2024-04-03": 777]
        #expect(try Self.daily(store) == expected)
        #expect(try Self.daily(store, merge: true) == expected)
    }

    @Test func aLaterPushOfTheSameBucketReplacesIt() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try Self.push(Self.steps(days: [("2024-05-01", 3000)]), into: store)
        try Self.push(Self.steps(days: [("2024-05-01", 9000)]), into: store)   // the same day, later in it
        #expect(try Self.daily(store) == ["2024-05-01": 9000])
        // And individual samples pushed later make the summary of their day give way.
        try Self.push(Self.steps(samples: [("2024-05-01 10:00:00 +0000", 4000), ("2024-05-01 18:00:00 +0000", 5100)]), into: store)
        #expect(try Self.daily(store) == ["2024-05-01": 9100])
    }

    @Test func aLaterExportSupersedesWhatWasPushed() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try Self.push(Self.steps(samples: [("2024-03-05 08:00:00 +0000", 33)], days: [("2024-03-06", 444)]), into: store)
        #expect(try Self.daily(store) == ["2024-03-05": 33, "2024-03-06": 444])
        try store.importExport(try fixture.file(stepsExport(firstDay: 5, days: 1)))   // ExportDate Apr 1
        #expect(try Self.daily(store) == ["2024-03-05": Double((100...123).reduce(0, +))])
        let superseded = try store.database.scalarInt("SELECT count(*) FROM metric WHERE superseded = 1")
        #expect(superseded == 2)
    }

    @Test func aRefusedDocumentLeavesNothing() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let bad = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-04-02 08:00:00 +0000","qty":1},{"date":"later","qty":2}]}]}}"#
        #expect(throws: HealthAutoExportError.self) { try Self.push(bad, into: store) }
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric") == 0)
        #expect(try store.database.scalarInt("SELECT count(*) FROM import_run") == 0)
        #expect(try store.database.scalarInt("SELECT count(*) FROM hae_push") == 0)
    }

    @Test func thePushIsRecorded() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let result = try Self.push(Self.steps(samples: [("2024-04-02 08:00:00 +0000", 10)]), into: store)
        #expect(try store.database.scalarText("SELECT automation_name FROM hae_push WHERE run_id = ?", [.int(result.runID)]) == "test")
        #expect(try store.database.scalarText("SELECT source_kind FROM import_run WHERE id = ?", [.int(result.runID)]) == "health-auto-export")
    }

    /// The hour summary (which `aggregate` reads for long ranges) gives what the rows give: a type
    /// with rows that do not count is left to its rows.
    @Test func theHourSummaryAgreesWithTheRule() throws {
        var configuration = StagingStore.Configuration.standard
        configuration.hourSummaryDenseCount = 100
        let fixture = try StoreFixture()
        let store = try fixture.open(configuration: configuration)
        var samples: [(String, Double)] = []
        for day in 2...11 {
            for hour in 0..<24 {
                for minute in [5, 25, 45] { samples.append((String(format: "2024-04-%02d %02d:%02d:00 +0000", day, hour, minute), 1)) }
            }
        }
        try Self.push(Self.steps(samples: samples), into: store)
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric_hour") ?? 0 > 0)
        try Self.push(Self.steps(days: [("2024-04-05", 5000), ("2024-04-20", 500)]), into: store)
        var expected: [String: Double] = [:]
        for day in 2...11 { expected[String(format: "2024-04-%02d", day)] = 72 }
        expected["2024-04-20"] = 500
        #expect(try Self.daily(store) == expected)
        // An export dated Apr 6 10:00 with one record on Apr 3: the export is the truth before it.
        let export = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-04-06 10:00:00 +0000"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" startDate="2024-04-03 12:00:00 +0000" endDate="2024-04-03 12:10:00 +0000" value="1234"/>
            </HealthData>
            """
        try store.importExport(try fixture.file(export))
        expected["2024-04-02"] = nil
        expected["2024-04-03"] = 1234
        expected["2024-04-04"] = nil
        expected["2024-04-05"] = nil
        expected["2024-04-06"] = 3 * 14   // 10:00 to midnight
        #expect(try Self.daily(store) == expected)
        #expect(try Self.daily(store, merge: true) == expected)
    }

    /// A store that schema 10 left with pushes beside an export (superseded rows of every reason)
    /// gives the same numbers once schema 11 took it over: the counts, the phone's line of `status`,
    /// the days and what an upload would send.
    @Test func aStoreFromBeforeOneDefinitionOfWhatCountsGivesTheSameNumbers() throws {
        let fixture = try StoreFixture()
        struct Numbers: Equatable {
            var metrics = 0, repeats = 0, superseded = 0, pending = 0
            var byType: [String: Int] = [:]
            var range: [String?] = []
            var phone: HealthAutoExportStatus?
            var days: [String: Double] = [:], merged: [String: Double] = [:]
            var exported = 0
        }
        func numbers(_ store: StagingStore) throws -> Numbers {
            let status = try StatusQuery(store).status()
            let collector = CollectingSink()
            try ExportQuery(store).metrics(to: collector)
            return Numbers(metrics: status.metrics, repeats: status.repeats, superseded: status.superseded,
                           pending: status.pending, byType: status.byType, range: [status.firstStart, status.lastEnd],
                           phone: status.healthAutoExport, days: try Self.daily(store), merged: try Self.daily(store, merge: true),
                           exported: collector.metrics.count)
        }
        let before: Numbers
        do {
            let store = try fixture.open()
            try store.importExport(try fixture.file(stepsExport(firstDay: 30, days: 2)))   // ExportDate Apr 1 10:00
            try Self.push(Self.steps(samples: [("2024-03-31 05:30:00 +0000", 7), ("2024-04-02 08:00:00 +0000", 60)],
                                     days: [("2024-03-31", 9999), ("2024-04-02", 8888), ("2024-04-03", 700)]), into: store)
            try Self.push(Self.steps(days: [("2024-04-03", 777)]), into: store)   // the same day again, later
            before = try numbers(store)
            // before the export's date (2), a summary with a sample in it (1), a summary pushed again (1)
            #expect(before.superseded == 4)
            #expect(before.phone?.beforeExportDate == 2 && before.phone?.summariesWithSamples == 1 && before.phone?.summariesPushedAgain == 1)
            #expect(before.days["2024-04-03"] == 777 && before.days["2024-04-02"] == 60)
            #expect(before.exported == before.metrics)
            try downgradeBeforeCountedRows(store.sqlite!, to: 10)
        }
        let upgraded = try fixture.open()
        #expect(try upgraded.database.scalarInt("PRAGMA user_version") == Int64(StoreSchema.currentVersion))
        #expect(try numbers(upgraded) == before)
    }

    /// A push taken while an export's import runs (the store is shared): the import sees it between
    /// two of its chunks, and the export's sample alike the pushed one (which has no creation date)
    /// makes that row the export's instead of adding a second one; the push's sample after the
    /// export's date counts beside the export.
    @Test(.timeLimit(.minutes(10))) func aPushDuringAnImportIsSeenByIt() throws {
        let fixture = try StoreFixture()
        var configuration = StagingStore.Configuration.standard
        configuration.importCommitEvery = 5
        let store = try fixture.open(configuration: configuration)
        var records = ""
        for day in [30, 31] {
            for hour in 0..<24 {
                let start = String(format: "2024-03-%02d %02d:00:00 +0000", day, hour), end = String(format: "2024-03-%02d %02d:10:00 +0000", day, hour)
                records += #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" creationDate="\#(end)" startDate="\#(start)" endDate="\#(end)" value="\#(100 + hour)"/>"# + "\n"
            }
        }
        let export = try fixture.file("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-04-01 10:00:00 +0000\"/>\n\(records)</HealthData>\n")
        let push = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":["#
            + #"{"date":"2024-03-31 05:00:00 +0000","start":"2024-03-31 05:00:00 +0000","end":"2024-03-31 05:10:00 +0000","qty":105,"source":"Watch"},"#
            + #"{"date":"2024-04-02 08:00:00 +0000","start":"2024-04-02 08:00:00 +0000","end":"2024-04-02 08:10:00 +0000","qty":60,"source":"Watch"}]}]}}"#

        /// Hands the export's metrics on; at the 12th, a push starts on another connection and the
        /// import waits long enough for it to be let in at its next commit.
        final class PushingSink: MetricSink {
            let sink: any MetricSink
            let push: @Sendable () -> Void
            var written = 0
            var pusher: Thread?
            init(_ sink: any MetricSink, push: @escaping @Sendable () -> Void) { self.sink = sink; self.push = push }
            func write(_ metric: MappedMetric) throws {
                written += 1
                if written == 12 {
                    let thread = Thread(block: push)
                    pusher = thread
                    thread.start()
                    Thread.sleep(forTimeInterval: 1.2)
                }
                try sink.write(metric)
            }
            func finish() throws { try sink.finish() }
            func abandon() throws { try sink.abandon() }
        }
        final class Source: RecordReader {
            let inner: ExportConverter
            let push: @Sendable () -> Void
            var sink: PushingSink?
            var name: String { inner.name }
            init(_ path: String, push: @escaping @Sendable () -> Void) { inner = ExportConverter(input: path); self.push = push }
            func read(into sinks: ReaderSinks, control: RunControl) throws -> ConversionReport {
                let sink = PushingSink(sinks.metrics, push: push)
                self.sink = sink
                return try inner.read(into: ReaderSinks(metrics: sink, records: sinks.records, facts: sinks.facts), control: control)
            }
        }
        /// The push's thread owns its store; the test reads the outcome once the thread ended.
        final class Pusher: @unchecked Sendable {
            let store: StagingStore
            var result: StoreImportResult?
            var error: (any Error)?
            init(_ store: StagingStore) { self.store = store }
        }
        let outcome = Pusher(try fixture.open())
        let source = Source(export) {
            do { outcome.result = try Self.push(push, into: outcome.store) } catch { outcome.error = error }
        }
        let session = try store.beginImport(ImportOrigin.export(input: export, size: nil))
        _ = try ReaderRunner.run(source, into: session.sinks)
        let imported = try session.complete()
        while source.sink?.pusher?.isFinished == false { Thread.sleep(forTimeInterval: 0.01) }
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.result?.new == 2)
        // Whoever rebuilt the steps' hours (the push, or the import at its end), none is left dirty.
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric_hour_state WHERE dirty_from IS NOT NULL") == 0)
        // The push came in the middle: after the import's run began and before it ended.
        #expect(try store.database.scalarInt("SELECT count(*) FROM import_run WHERE source_kind = 'health-auto-export' AND id > ?", [.int(imported.runID)]) == 1)
        #expect(imported.new == 47 && imported.already == 1, "\(imported)")
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric") == 49)
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric WHERE origin = 1") == 1)   // Apr 2's
        #expect(try StatusQuery(store).status().metrics == 49)
        #expect(try Self.daily(store)["2024-03-31"] == Double((100...123).reduce(0, +)))
        #expect(try Self.daily(store)["2024-04-02"] == 60)
    }

    /// A push while an export's import runs (it holds the store's `importing` lock, as `StoreImport`
    /// does) leaves the hours of its types dirty for the import to rebuild at its end, and readers
    /// read the rows meanwhile, with the same numbers; with no import beside it, a push rebuilds them.
    /// A push of steps after the last stored ones counts its hours as it adds them (it reads no row),
    /// import or not.
    @Test func aPushBesideAnImportLeavesTheHourSummaryToIt() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        func dirtySteps() throws -> Int64? {
            try store.database.scalarInt("""
                SELECT count(*) FROM metric_hour_state h JOIN metric_type t ON t.id = h.type_id
                WHERE t.name = 'HKQuantityTypeIdentifierStepCount' AND h.dirty_from IS NOT NULL
                """)
        }
        try Self.push(Self.steps(samples: [("2024-03-01 08:00:00 +0000", 10)]), into: store)
        #expect(try dirtySteps() == 0)
        let importer = try fixture.open()
        let locks = try #require(importer.sqlite?.waitingRoom)
        locks.holdImporting()
        try Self.push(Self.steps(samples: [("2024-03-02 08:00:00 +0000", 20)]), into: store)
        #expect(try dirtySteps() == 0)
        try Self.push(Self.steps(samples: [("2024-02-28 08:00:00 +0000", 5)]), into: store)
        #expect(try dirtySteps() == 1)
        #expect(try Self.daily(store) == ["2024-02-28": 5, "2024-03-01": 10, "2024-03-02": 20])
        locks.releaseImporting()
        try Self.push(Self.steps(samples: [("2024-03-03 08:00:00 +0000", 30)]), into: store)
        #expect(try dirtySteps() == 0)
        #expect(try Self.daily(store) == ["2024-02-28": 5, "2024-03-01": 10, "2024-03-02": 20, "2024-03-03": 30])
    }
}
