import CloudSyncExport
import CloudSyncModel
import CloudSyncKinds
import CloudSyncInputs
import CloudSyncHealthAutoExport
@testable import CloudSyncStore
import CSQLite3
import CloudSyncTesting
import Foundation
import Testing

@Suite struct StagingStoreTests {
    /// A store keeps only the kinds it is configured with: one handed another kind's record says so
    /// (loudly), and an import of a store without a kind simply does not read that kind.
    @Test func aKindTheStoreIsNotConfiguredForIsAnErrorNotALoss() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(configuration: .init(kinds: [RouteKind.self]))
        let result = try store.importExport(Paths.sampleZip)
        #expect(result.stored.records["routes"]?.new == 2 && result.stored.records["audiograms"] == nil)
        let session = try store.beginImport(ImportOrigin.export(input: "a test", size: nil))
        #expect(throws: StoreError.self) {
            try session.sinks.records.write(Audiogram(type: "t", startDate: 0, endDate: 0, sourceApp: "", metadata: [], points: []),
                                            as: AudiogramKind.self)
        }
        session.fail(StoreError.unstorable(AudiogramKind.name))
    }

    /// A new store is made beside its path and linked into place (`NewStoreFile`): a process killed
    /// while making it leaves no empty file at the path. What a maker that is no longer running left
    /// beside it is removed; a running one's is kept.
    @Test func aNewStoreIsMadeBesideItsPathAndLinkedIntoPlace() throws {
        let directory = try makeTemporaryDirectory("new-store")
        defer { try? FileManager.default.removeItem(at: directory) }
        let ended = try Self.endedProcessID()
        let left = [".store.sqlite.new-\(ended)", ".store.sqlite.new-\(ended)-wal"]
        let running = ".store.sqlite.new-\(getppid())"
        for name in left + [running] { try Data("half".utf8).write(to: directory.appendingPathComponent(name)) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try StagingStore(path: path, access: .write)
        #expect(try store.importExport(Paths.sampleZip).stored.new > 0)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(names.isDisjoint(with: left), "\(names)")
        #expect(names.contains(running))
        #expect(!names.contains(".store.sqlite.new-\(getpid())"), "\(names)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try StagingStore(path: path, access: .read).database.scalarInt("PRAGMA user_version") == Int64(StoreSchema.currentVersion))
    }

    /// A new store's first import is written beside its path (`NewStoreLoad`): until it is linked
    /// there a reader finds no store, as before the import; linked, the store is in the write-ahead
    /// log's mode, the owner's alone, and holds what an import in place gives; nothing is left beside it.
    @Test func aNewStoresFirstImportIsWrittenBesideItsPathAndLinkedWhenItEnds() throws {
        let directory = try makeTemporaryDirectory("new-store-load")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let load = try #require(NewStoreLoad.begin(at: path, configuration: .standard))
        #expect(try load.open().importExport(Paths.sampleZip).stored.new == 24)
        #expect(throws: StoreError.self) { try StagingStore(path: path, access: .read) }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try load.linkIntoPlace())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["store.sqlite"])
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let store = try StagingStore(path: path, access: .read)
        #expect(try store.database.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try store.integrityCheck() == "ok")

        let reference = try StoreFixture()
        try reference.open().importExport(Paths.sampleZip)
        for sql in ["SELECT count(*) FROM metric", "SELECT count(*) FROM metric_hour", "SELECT count(*) FROM route_point",
                    "SELECT sum(count) FROM metric_summary", "SELECT count(*) FROM import_run WHERE outcome = 'ok'"] {
            #expect(try store.database.scalarInt(sql) == reference.open().database.scalarInt(sql), "\(sql)")
        }
        // A store is there now: the next import goes in place, and removes what a maker killed
        // after its link left beside it (the log and shared memory a reader of that file made).
        let ended = try Self.endedProcessID()
        let left = [".store.sqlite.new-\(ended)-wal", ".store.sqlite.new-\(ended)-shm"]
        for name in left { try Data("left".utf8).write(to: directory.appendingPathComponent(name)) }
        #expect(NewStoreLoad.begin(at: path, configuration: .standard) == nil)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(names.isDisjoint(with: left), "\(names)")
    }

    /// The id of a process that has ended: what it left beside a store may be removed.
    static func endedProcessID() throws -> Int32 {
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        return ended.processIdentifier
    }

    /// A store another process made at the path while a new store's first import ran is kept as it
    /// is, and said (`linkIntoPlace` is false); the file beside is removed.
    @Test func aStoreMadeAtThePathMeanwhileIsKept() throws {
        let directory = try makeTemporaryDirectory("new-store-taken")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let load = try #require(NewStoreLoad.begin(at: path, configuration: .standard))
        #expect(try load.open().importExport(Paths.sampleZip).stored.new == 24)
        let made = try StagingStore(path: path, access: .write)
        try made.importDocument(HealthAutoExportDocument(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: Paths.sampleHealthAutoExport))), name: "a push"))
        let pushed = try made.database.scalarInt("SELECT count(*) FROM metric")
        #expect(try !load.linkIntoPlace())
        #expect(try made.database.scalarInt("SELECT count(*) FROM metric") == pushed)
        #expect(try StagingStore(path: path, access: .read).database.scalarInt("SELECT count(*) FROM metric") == pushed)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!names.contains { $0.hasPrefix(".store.sqlite.new-") }, "\(names)")
    }

    @Test func reimportAddsNothing() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let first = try store.importExport(Paths.sampleZip)
        #expect(first.stored.new == 24)
        #expect(first.stored.already == 0)
        let second = try store.importExport(Paths.sampleZip)
        #expect(second.stored.new == 0)
        #expect(second.stored.already == 24)
        let status = try StatusQuery(store).status()
        #expect(status.metrics == 24)
        #expect(status.imports.map(\.outcome) == ["ok", "ok"])
        #expect(status.imports.first?.duplicates == 24)
        #expect(status.exportFacts["exportVersion"] == "14")
        #expect(status.exportFacts["me"]?.contains("HKBiologicalSexNotSet") == true)
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func aLaterOverlappingExportAddsOnlyTheNewRecords() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let march1to10 = try fixture.file(stepsExport(firstDay: 1, days: 10))
        let march1to20 = try fixture.file(stepsExport(firstDay: 1, days: 20))
        #expect(try store.importExport(march1to10).stored.new == 240)
        let later = try store.importExport(march1to20)
        #expect(later.stored.new == 240)
        #expect(later.stored.already == 240)
        #expect(try StatusQuery(store).status().metrics == 480)
    }

    @Test func exportGivesBackWhatConvertProduced() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.importExport(Paths.sampleZip)
        let collector = CollectingSink()
        try ExportQuery(store).metrics(to: collector)
        let direct = try convertDirectly(Paths.sampleZip)
        func key(_ m: HealthMetric) -> String { "\(m.type)|\(m.startDate)|\(m.endDate)|\(m.sourceApp)|\(m.value)|\(m.unit)" }
        #expect(collector.metrics.map(key).sorted() == direct.map(key).sorted())
        // Same metadata, key for key.
        let byKey = Dictionary(direct.map { (key($0), $0.metadata) }, uniquingKeysWith: { a, _ in a })
        for metric in collector.metrics { #expect(metric.metadata == byKey[key(metric)], "\(metric.type)") }
        #expect(collector.metrics.map(\.startDate) == collector.metrics.map(\.startDate).sorted())
    }

    @Test func exportFiltersAndPending() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.importExport(Paths.sampleZip)
        let collector = CollectingSink()
        try ExportQuery(store).metrics(filter: MetricFilter(types: ["heartRate"]), pendingOnly: true, to: collector)
        #expect(collector.metrics.count == 3)
        // Acknowledge two of them for a CloudCare server: pending drops to the rest.
        try store.database.execute("""
            INSERT INTO upload_target(target, server) VALUES ('cloudcare', 'http://127.0.0.1:1');
            INSERT INTO upload_ack(target_id, metric_id) SELECT 1, id FROM metric LIMIT 2;
            """)
        // Pending is what an upload to that CloudCare server would send: of its types, the 20 the
        // sample has, less the two it acknowledged.
        let pending = CollectingSink()
        try ExportQuery(store).metrics(pendingOnly: true, to: pending)
        #expect(pending.metrics.count == 18)
        #expect(try StatusQuery(store).status().pending == 18)
        #expect(try StatusQuery(store).status().targets.first?.acknowledged == 2)
    }

    @Test func damagedInputKeepsWhatCameBeforeAndRecordsTheFailure() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let full = stepsExport(firstDay: 1, days: 5)
        let cut = try fixture.file(String(full.prefix(full.count * 3 / 4)))
        #expect(throws: ConversionError.self) { try store.importExport(cut) }
        let status = try StatusQuery(store).status()
        #expect(status.metrics > 60)
        #expect(status.metrics < 120)
        #expect(status.imports.first?.outcome == "failed")
        #expect(status.imports.first?.reason?.contains("damaged XML") == true)
        #expect(try store.integrityCheck() == "ok")
        // The complete export then fills in the rest, without doubles.
        let result = try store.importExport(try fixture.file(full))
        #expect(result.stored.new + status.metrics == 120)
        #expect(try StatusQuery(store).status().metrics == 120)
    }

    @Test func identityIsMadeOnceAndKept() throws {
        let fixture = try StoreFixture()
        let first = try fixture.open().identity()
        let again = try fixture.open().identity()
        #expect(first == again)
        #expect(UUID(uuidString: first.userId) != nil)
        #expect(UUID(uuidString: first.deviceId) != nil)
        #expect(first.userId != first.deviceId)
    }

    /// Many processes share a store (docs/store.md, "Many processes, one store"): writers take
    /// turns for SQLite's write lock, readers read beside them, and one upload per target runs.
    @Test func writersShareTheStoreAndOneUploadPerTargetRuns() throws {
        let fixture = try StoreFixture()
        let first = try fixture.open()
        let second = try fixture.open()
        try first.importExport(try fixture.file(stepsExport(firstDay: 1, days: 1), named: "a.xml"))
        try second.importExport(try fixture.file(stepsExport(firstDay: 2, days: 1), named: "b.xml"))
        #expect(try StatusQuery(fixture.open(.read)).status().metrics == 48)
        // The second writer's open did not mark the first one's runs as interrupted.
        #expect(try first.database.scalarInt("SELECT count(*) FROM import_run WHERE outcome = 'ok'") == 2)

        let target = try first.ledger.uploadTargetID(target: "cloudcare", server: "http://127.0.0.1:1", account: "no token")
        let turn = try first.takeUploadTurn(targetID: target)
        #expect { try second.takeUploadTurn(targetID: target) } throws: { error in
            guard case StoreError.uploading = error else { return false }
            return "\(error)".contains("another cloudsync process is uploading to cloudcare http://127.0.0.1:1")
        }
        let other = try second.ledger.uploadTargetID(target: "steps", server: "http://127.0.0.1:1", account: "no token")
        _ = try second.takeUploadTurn(targetID: other)   // another target: its own turn
        turn.end()
        _ = try second.takeUploadTurn(targetID: target)
    }

    /// A run marked running when no writer is alive was stopped by a kill: the next writer says so.
    @Test func aRunLeftRunningIsInterruptedOnlyWhenNoWriterIsAlive() throws {
        let fixture = try StoreFixture()
        do {
            let store = try fixture.open()
            try store.database.execute("INSERT INTO import_run(input, started_at, outcome, source_kind) VALUES ('x', 0, 'running', 'export')")
            let beside = try fixture.open()   // the first is alive: left running
            #expect(try beside.database.scalarText("SELECT outcome FROM import_run") == "running")
        }
        let next = try fixture.open()
        #expect(try next.database.scalarText("SELECT outcome FROM import_run") == "interrupted")
    }

    @Test func aNewerSchemaIsRefused() throws {
        let fixture = try StoreFixture()
        do {
            let store = try fixture.open()
            try store.database.execute("PRAGMA user_version = 99")
        }
        #expect { try fixture.open(.read) } throws: { "\($0)".contains("newer cloudsync (schema 99") }
        #expect { try fixture.open() } throws: { "\($0)".contains("newer cloudsync") }
    }

    @Test func aReadOnlyPlaceIsRefusedClearly() throws {
        // /proc refuses file creation even to root.
        #expect { try StagingStore(path: "/proc/cloudsync/staging.sqlite", access: .write) } throws: { error in
            guard case StoreError.readOnly = error else { return false }
            return true
        }
        #expect { try StagingStore(path: "/nonexistent/staging.sqlite", access: .read) } throws: { "\($0)".contains("no store there yet") }
    }

    @Test func aFileThatIsNotAStore() throws {
        let fixture = try StoreFixture()
        try fixture.file(String(repeating: "not sqlite ", count: 1000), named: "staging.sqlite")
        #expect { try fixture.open() } throws: { "\($0)".contains("not a cloudsync store") }
    }

    /// iOS 8's daily heart-rate summaries are stored as the metrics they convert to; the one with no
    /// value is not.
    @Test func iOS8DailyHeartRateSummariesAreStoredAsMetrics() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let result = try store.importExport(try fixture.file(ExportTexts.iOS8DailyHeartRateSummaries))
        #expect(result.stored.new == 3)
        #expect(result.conversion.invalid["no value"] == 1)
        #expect(try StatusQuery(store).status().byType["HKQuantityTypeIdentifierHeartRate"] == 2)
    }

    /// Samples dated after the export are kept, and the import says so.
    @Test func samplesDatedAfterTheExportAreKept() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let result = try store.importExport(try fixture.file(ExportTexts.samplesAfterTheExport))
        #expect(result.conversion.samplesAfterExport.count == 2)
        #expect(result.conversion.samplesAfterExport.note?.hasPrefix("2 samples dated after the export") == true)
        #expect(result.stored.new == 3)
        #expect(try StatusQuery(store).status().metrics == 3)
    }

    /// The facts of the export kept are those of the latest export (by its ExportDate), not of the
    /// export imported last.
    @Test func statusNamesTheLatestExportNotTheLastImported() throws {
        let fixture = try StoreFixture()
        func export(_ date: String, value: Int) throws -> String {
            try fixture.file("""
                <?xml version="1.0" encoding="UTF-8"?>
                <HealthData locale="en_US">
                 <ExportDate value="\(date)"/>
                 <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-01-01 08:00:00 +0000" endDate="2024-01-01 08:10:00 +0000" value="\(value)"/>
                </HealthData>

                """)
        }
        let store = try fixture.open()
        try store.importExport(try export("2024-06-01 10:00:00 +0200", value: 1))
        try store.importExport(try export("2024-03-01 10:00:00 +0100", value: 2))
        let status = try StatusQuery(store).status()
        #expect(status.exportFacts["exportDate"] == "2024-06-01 10:00:00 +0200", "\(status.exportFacts)")
        #expect(status.imports.map(\.exportDate) == ["2024-03-01 10:00:00 +0100", "2024-06-01 10:00:00 +0200"])   // newest run first
    }

    @Test func defaultLocationFollowsTheEnvironment() {
        #expect(StoreLocation.defaultPath(environment: ["CLOUDSYNC_STORE": "/a/b.sqlite", "HOME": "/h"]) == "/a/b.sqlite")
        #expect(StoreLocation.defaultPath(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/cloudsync/staging.sqlite")
        #expect(StoreLocation.defaultPath(environment: ["HOME": "/h"]) == "/h/.local/share/cloudsync/staging.sqlite")
    }
}

@Suite(.enabled(if: Paths.corpusExists, "../shared/corpus is not present: corpus import tests skipped"))
struct StoreCorpusTests {
    /// Per type, the store holds what convert produced, one row per identity
    /// (type, startDate, endDate, sourceApp, value, unit).
    @Test(arguments: ["v11-en_FR-garmin-workouts.zip", "v13-en_FR-hrv-routes.zip", "v13-broken-dtd-stray-gt.zip", "v-old-inline-locations.xml"])
    func importsWithConvertsCountsPerType(_ name: String) throws {
        let input = Paths.corpus.appendingPathComponent("exports/\(name)").path
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let result = try store.importExport(input)
        let converted = try convertDirectly(input)
        var identities: [String: Set<String>] = [:]
        for m in converted { identities[m.type, default: []].insert("\(m.startDate)|\(m.endDate)|\(m.sourceApp)|\(m.value)|\(m.unit)") }
        #expect(try StatusQuery(store).status().byType == identities.mapValues(\.count))
        #expect(result.stored.new + result.stored.already == converted.count)
    }
}
