import CloudSyncExport
import CloudSyncHealthAutoExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Synchronization
import Testing

/// The staging store on PostgreSQL (issue 35, item 1): the same inputs in the same order give a
/// patient's store in a clinic's PostgreSQL exactly what they give a store file, through the same
/// code (`StoreDatabase`), and each patient's store sees only its own rows. On a real PostgreSQL,
/// as a role that row-level security applies to.
@Suite(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
struct PostgresStagingStoreTests {
    /// What an import said it did, for comparing engines.
    static func counts(_ result: StoreImportResult) -> [Int] {
        [result.new, result.repeats, result.superseded, result.already, result.writtenTwice]
            + result.records.keys.sorted().flatMap { [result.records[$0]!.new, result.records[$0]!.already] }
    }

    /// What counts in the store, with nothing that differs by engine or clock (paths, times, ids).
    static func truth(_ store: StagingStore) throws -> [String] {
        let status = try StatusQuery(store).status()
        var lines = ["metrics \(status.metrics) repeats \(status.repeats) superseded \(status.superseded)",
                     "span \(status.firstStart ?? "-") … \(status.lastEnd ?? "-")",
                     "facts \(status.exportFacts.keys.sorted().map { "\($0)=\(status.exportFacts[$0]!)" })"]
        lines += status.byType.keys.sorted().map { "type \($0) \(status.byType[$0]!)" }
        lines += status.records.keys.sorted().map { "kind \($0) \(status.records[$0]!.records) \(status.records[$0]!.parts)" }
        lines += status.imports.map { "run \($0.outcome) new \($0.new) already \($0.duplicates) repeats \($0.repeats)" }
        let days = try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, filter: MetricFilter(types: ["HKQuantityTypeIdentifierStepCount"]),
                                                                        mergeSources: true))
        lines += days.map { "steps \($0.bucket) \($0.sum)" }
        return lines
    }

    /// A push of steps over a day the sample export holds, and a day it does not.
    static let push = HealthAutoExportStoreTests.steps(samples: [("2024-11-02 12:00:00 +0000", 1200), ("2024-11-20 08:00:00 +0000", 40)],
                                                       days: [("2024-11-21", 900)])

    /// A store file and alice's store in a new cluster's database `clinic`, for `body`.
    static func withBothEngines(_ body: (_ file: StagingStore, _ alice: StagingStore, _ address: String) throws -> Void) throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let fixture = try StoreFixture()
        let file = try fixture.open()
        let alice = try StagingStore.open(postgres: address, owner: "alice", access: .write, configuration: .standard)
        #expect(alice.isPostgres && !file.isPostgres)
        try body(file, alice, address)
    }

    @Test func theSameInputsGiveTheSameStoreOnBothEngines() throws { try Self.withBothEngines { file, alice, address in

        var steps: [[[Int]]] = []
        for store in [file, alice] {
            let export = try store.importExport(CLI.sample)
            let pushed = try HealthAutoExportStoreTests.push(Self.push, into: store)
            let again = try HealthAutoExportStoreTests.push(Self.push, into: store)
            let exportAgain = try store.importExport(CLI.sample)
            steps.append([Self.counts(export.stored), Self.counts(pushed), Self.counts(again), Self.counts(exportAgain.stored)])
        }
        #expect(steps[0] == steps[1])
        #expect(steps[0][0][0] > 0, "the sample export stores metrics")
        #expect(steps[0][2][0] == 0, "the same push again adds nothing")
        let fileTruth = try Self.truth(file)
        #expect(fileTruth.contains { $0.hasPrefix("steps 2024-11-21") } && fileTruth.contains { $0.hasPrefix("kind ") },
                "the comparison holds the pushed day's steps and the records")
        #expect(try Self.truth(alice) == fileTruth)

        // Bob's store, in the same tables, holds nothing of alice's; his own push is his alone.
        let bob = try StagingStore.open(postgres: address, owner: "bob", access: .write, configuration: .standard)
        #expect(try StatusQuery(bob).status().metrics == 0)
        try HealthAutoExportStoreTests.push(HealthAutoExportStoreTests.steps(samples: [("2024-11-05 10:00:00 +0000", 7)]), into: bob)
        #expect(try StatusQuery(bob).status().metrics == 1)
        #expect(try Self.truth(alice) == fileTruth)
        // Opened again (as a reader would), alice's store is what it was.
        let aliceAgain = try StagingStore.open(postgres: address, owner: "alice", access: .read, configuration: .standard)
        #expect(try Self.truth(aliceAgain) == fileTruth)
    } }

    /// Pushes that go on in time: a day after every stored sample is not read from the table (no
    /// stored row can be there), and still a sample twice in one push, the same push again, a push
    /// back into stored days and another source's samples are each what a store file makes of them.
    @Test func pushesAfterTheStoredDaysCountAsOnAStoreFile() throws { try Self.withBothEngines { file, alice, _ in
        let pushes = [
            HealthAutoExportStoreTests.steps(samples: [("2025-03-01 08:00:00 +0000", 100), ("2025-03-01 09:00:00 +0000", 50)]),
            // A later day, its first sample twice in the push.
            HealthAutoExportStoreTests.steps(samples: [("2025-03-03 08:00:00 +0000", 70), ("2025-03-03 08:00:00 +0000", 70),
                                                       ("2025-03-04 10:00:00 +0000", 30)]),
            HealthAutoExportStoreTests.steps(samples: [("2025-03-03 08:00:00 +0000", 70), ("2025-03-04 10:00:00 +0000", 30)]),
            // Back into a stored day, and on to a new one.
            HealthAutoExportStoreTests.steps(samples: [("2025-03-01 09:00:00 +0000", 50), ("2025-03-01 10:00:00 +0000", 5),
                                                       ("2025-03-06 10:00:00 +0000", 9)]),
            HealthAutoExportStoreTests.steps(samples: [("2025-03-06 10:00:00 +0000", 9), ("2025-03-07 10:00:00 +0000", 11)], source: "Phone"),
            // On in the last stored day, after its last sample (not read: it starts after every
            // row), that sample twice, then back before it but after the stored one, and the stored one.
            HealthAutoExportStoreTests.steps(samples: [("2025-03-07 12:00:00 +0000", 4), ("2025-03-07 12:00:00 +0000", 4),
                                                       ("2025-03-07 11:00:00 +0000", 6), ("2025-03-07 10:00:00 +0000", 11)], source: "Phone"),
            // More days than the import keeps in memory (`StoredSampleWindows.kept`), then the first again.
            HealthAutoExportStoreTests.steps(samples: (0..<(StoredSampleWindows.kept + 6)).map { day in
                (Self.date(daysAfter: day, from: "2025-04-01"), Double(day + 1))
            } + [(Self.date(daysAfter: 0, from: "2025-04-01"), 1)]),
        ]
        var counts: [[[Int]]] = []
        for store in [file, alice] {
            counts.append(try pushes.map { Self.counts(try HealthAutoExportStoreTests.push($0, into: store)) })
        }
        #expect(counts[0] == counts[1])
        #expect(counts[0][2][0] == 0, "the same samples again add nothing: \(counts[0])")
        #expect(counts[0][5][0] == 2, "12:00 once and 11:00 are new: \(counts[0])")
        #expect(try Self.truth(alice) == Self.truth(file))
        #expect(try HealthAutoExportStoreTests.daily(alice, merge: true) == HealthAutoExportStoreTests.daily(file, merge: true))
        #expect(try HealthAutoExportStoreTests.daily(file, merge: true)["2025-03-03"] == 70)
    } }

    /// "YYYY-MM-DD 08:00:00 +0000", `days` after `day`.
    static func date(daysAfter days: Int, from day: String) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let date = formatter.date(from: day)!.addingTimeInterval(Double(days) * 86_400)
        return formatter.string(from: date) + " 08:00:00 +0000"
    }

    /// The database `clinic` in `cluster`, its store made by the cluster's superuser, whom
    /// row-level security does not hold: its address, as that superuser.
    static func superusersClinic(_ cluster: PostgresCluster) throws -> String {
        _ = try cluster.psql("CREATE DATABASE clinic")
        let address = cluster.url(database: "clinic")
        try StagingStore.prepare(postgres: address, configuration: .standard)
        return address
    }

    /// A server connected as the cluster's superuser, whom row-level security does not hold, still
    /// keeps each patient's rows apart: a patient's connection acts as `cloudsync_patient`. (Before,
    /// bob's push of alice's samples was "already there": he saw her rows.)
    @Test func aSuperusersConnectionStillSeesOnePatient() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try Self.superusersClinic(cluster)
        let push = HealthAutoExportStoreTests.steps(samples: [("2024-11-05 10:00:00 +0000", 7), ("2024-11-05 11:00:00 +0000", 8)])
        for owner in ["alice", "bob"] {
            let store = try StagingStore.open(postgres: address, owner: owner, access: .write, configuration: .standard)
            #expect(try HealthAutoExportStoreTests.push(push, into: store).new == 2, "\(owner)")
            #expect(try StatusQuery(store).status().metrics == 2, "\(owner)")
        }
        #expect(try cluster.psql("SELECT owner || ' ' || count(*) FROM metric GROUP BY owner ORDER BY owner", database: "clinic")
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } == ["alice 2", "bob 2"])
        // A new patient's export, loaded in bulk by a connection that takes its own role back for
        // the tables it makes and the ids it takes.
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("export.xml").path
        try Self.exportWithRepeats().write(toFile: path, atomically: true, encoding: .utf8)
        let carol = try StagingStore.open(postgres: address, owner: "carol", access: .write, configuration: .standard)
        #expect(Self.counts(try carol.importExport(ExportInput(path: path), origin: .uploadedExport(input: "an upload")).stored) == [137, 1, 0, 0, 3])
        #expect(try StatusQuery(carol).status().metrics == 136)
        #expect(try cluster.psql("SELECT count(*) FROM pg_inherits WHERE inhparent = 'metric'::regclass", database: "clinic") == "3")
    }

    /// A server whose role row-level security does not hold (here the cluster's superuser) copies a
    /// write's new metrics straight into the patient's partition (`OwnerPartitions
    /// .straightCopyTargets`): the partition numbers them from the shared table's numbering, and the
    /// store counts what a store file fed the same pushes counts. A chunk the partition refuses
    /// whole (here ids already there, its numbering set back behind the writer's back; then no
    /// numbering at all) goes the statement's way, and nothing is lost or counted twice.
    @Test func aPrivilegedServersNewRowsAreCopiedStraightIntoThePartition() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try Self.superusersClinic(cluster)
        let fixture = try StoreFixture()
        let file = try fixture.open()
        let alice = try StagingStore.open(postgres: address, owner: "alice", access: .write, configuration: .standard)
        let first = HealthAutoExportStoreTests.steps(samples: [("2024-11-05 10:00:00 +0000", 7), ("2024-11-05 11:00:00 +0000", 8)])
        let second = HealthAutoExportStoreTests.steps(samples: [("2024-11-05 11:00:00 +0000", 8), ("2024-11-05 12:00:00 +0000", 9),
                                                                ("2024-11-06 09:00:00 +0000", 10)])
        let psql = { (sql: String) in try cluster.psql(sql, database: "clinic").trimmingCharacters(in: .whitespacesAndNewlines) }
        // The patients' role may not insert into the shared table: only a straight copy stores the push.
        _ = try psql("REVOKE INSERT ON metric FROM \(PostgresStoreSchema.patientRole)")
        #expect(Self.counts(try HealthAutoExportStoreTests.push(first, into: alice)) == Self.counts(try HealthAutoExportStoreTests.push(first, into: file)))
        _ = try psql("GRANT INSERT ON metric TO \(PostgresStoreSchema.patientRole)")
        let name = try psql("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'metric'::regclass")
        #expect(try psql("SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE d.adrelid = '\(name)'::regclass AND a.attname = 'id'")
            .contains("nextval('metric_id_seq'"))
        // The partition's numbering set back to ids it holds: the straight copy is refused whole.
        _ = try psql("CREATE SEQUENCE numbered_again; ALTER TABLE \(name) ALTER COLUMN id SET DEFAULT nextval('numbered_again')")
        #expect(Self.counts(try HealthAutoExportStoreTests.push(second, into: alice)) == Self.counts(try HealthAutoExportStoreTests.push(second, into: file)))
        #expect(try Self.truth(alice) == Self.truth(file))
        #expect(try psql("SELECT count(*) || ' ' || count(DISTINCT id) FROM metric") == "4 4")
        // The copy was tried (it took ids of the numbering set back) before the statement's way, and
        // the connection acts as the patients' role again.
        #expect(try psql("SELECT is_called FROM numbered_again") == "t")
        #expect(try (alice.database as? PostgresDatabase)?.scalarText("SELECT current_user") == PostgresStoreSchema.patientRole)

        // A copy refused for anything but a row already there (here a partition without numbering):
        // the push is stored the statement's way, and the connection tries the copy no more.
        _ = try psql("ALTER TABLE \(name) ALTER COLUMN id DROP DEFAULT")
        let third = HealthAutoExportStoreTests.steps(samples: [("2024-11-07 09:00:00 +0000", 11)])
        let fourth = HealthAutoExportStoreTests.steps(samples: [("2024-11-08 09:00:00 +0000", 12)])
        #expect(Self.counts(try HealthAutoExportStoreTests.push(third, into: alice)) == Self.counts(try HealthAutoExportStoreTests.push(third, into: file)))
        _ = try psql("CREATE SEQUENCE probe; ALTER TABLE \(name) ALTER COLUMN id SET DEFAULT nextval('probe')")
        #expect(Self.counts(try HealthAutoExportStoreTests.push(fourth, into: alice)) == Self.counts(try HealthAutoExportStoreTests.push(fourth, into: file)))
        #expect(try psql("SELECT is_called FROM probe") == "f")
        #expect(try Self.truth(alice) == Self.truth(file))
        #expect(try psql("SELECT count(*) || ' ' || count(DISTINCT id) FROM metric") == "6 6")

        // A partition a bulk load made has no numbering of its own: given it at the next write, on the
        // same connection.
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("export.xml").path
        try Self.exportWithRepeats().write(toFile: path, atomically: true, encoding: .utf8)
        let carolsDefault = """
            SELECT count(*) FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
            WHERE d.adrelid = ('metric_' || md5('carol'))::regclass AND a.attname = 'id'
            """
        let carol = try StagingStore.open(postgres: address, owner: "carol", access: .write, configuration: .standard)
        _ = try carol.importExport(ExportInput(path: path), origin: .uploadedExport(input: "an upload"))
        #expect(try psql(carolsDefault) == "0")
        #expect(try HealthAutoExportStoreTests.push(second, into: carol).new == 3)
        #expect(try psql(carolsDefault) == "1")
        #expect(try StatusQuery(carol).status().metrics == 139)
    }

    /// The hours a write knows new (after its type's latest stored row) are copied straight into the
    /// patient's hour partition by a server row-level security does not hold (`superuser`), apart
    /// from those it adds to stored hours (`OnlineHourSummary.FreshHours`); the owner deployment
    /// upserts them all. Both hold what a store file fed the same pushes holds. An hour that meets a
    /// stored hour after all (here one put there behind the writer's back) is refused by the key and
    /// added to that hour: nothing is lost or counted twice.
    @Test(arguments: [true, false])
    func newHoursGoInApartAndOneThatMeetsAStoredHourIsAddedToIt(superuser: Bool) throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = superuser ? try Self.superusersClinic(cluster) : try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let fixture = try StoreFixture()
        let file = try fixture.open()
        let alice = try StagingStore.open(postgres: address, owner: "alice", access: .write, configuration: .standard)
        let psql = { (sql: String) in try cluster.psql(sql, database: "clinic").trimmingCharacters(in: .whitespacesAndNewlines) }
        let hours = HourSummaryAddsUpTests.hours
        let first = HealthAutoExportStoreTests.steps(samples: [("2024-11-05 10:00:00 +0000", 7), ("2024-11-05 11:10:00 +0000", 8)])
        // The patients' role may not insert hours: only a straight copy stores the superuser's first push.
        if superuser { _ = try psql("REVOKE INSERT ON metric_hour FROM \(PostgresStoreSchema.patientRole)") }
        #expect(Self.counts(try HealthAutoExportStoreTests.push(first, into: alice)) == Self.counts(try HealthAutoExportStoreTests.push(first, into: file)))
        if superuser { _ = try psql("GRANT INSERT ON metric_hour TO \(PostgresStoreSchema.patientRole)") }
        // An hour the store has (11:00), and new ones.
        let second = HealthAutoExportStoreTests.steps(samples: [("2024-11-05 11:40:00 +0000", 9), ("2024-11-05 12:00:00 +0000", 10),
                                                                ("2024-11-06 09:00:00 +0000", 11)])
        #expect(Self.counts(try HealthAutoExportStoreTests.push(second, into: alice)) == Self.counts(try HealthAutoExportStoreTests.push(second, into: file)))
        #expect(try Self.truth(alice) == Self.truth(file))
        #expect(try hours(alice) == hours(file))
        #expect(try hours(alice).count == 4)

        // 2024-11-07 15:00 already has an hour, though no row: the push's hour, new by its rows, meets it.
        let hour = "floor(extract(epoch FROM timestamptz '2024-11-07 15:00:00+00') / 3600)::bigint"
        _ = try psql("""
            INSERT INTO metric_hour(owner, type_id, unit_id, hour, count, sum, minimum, maximum, merged_count, merged_sum)
            SELECT 'alice', t.id, u.id, \(hour), 5, 50, 10, 10, 5, 50
            FROM metric_type t, unit u WHERE t.name = 'HKQuantityTypeIdentifierStepCount' AND u.name = 'count'
            """)
        let third = HealthAutoExportStoreTests.steps(samples: [("2024-11-07 15:20:00 +0000", 12), ("2024-11-08 09:00:00 +0000", 13)])
        #expect(Self.counts(try HealthAutoExportStoreTests.push(third, into: alice)) == Self.counts(try HealthAutoExportStoreTests.push(third, into: file)))
        #expect(try psql("SELECT count || ' ' || sum || ' ' || merged_count FROM metric_hour WHERE hour = \(hour)") == "6 62 6")
        #expect(try psql("SELECT count(*) FROM metric_hour") == "6")
        #expect(try psql("SELECT count(*) FROM metric") == "7")
        // The superuser's connection acts as the patients' role again after the refused copy.
        guard superuser else { return }
        #expect(try (alice.database as? PostgresDatabase)?.scalarText("SELECT current_user") == PostgresStoreSchema.patientRole)
        // The hour partition refuses the copy for another reason than a row already there (its rows'
        // owner is no longer its default): the push is stored the statement's way, the connection
        // acts as the patients' role again, and copies straight no more.
        let hourPartition = try psql("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'metric_hour'::regclass")
        _ = try psql("ALTER TABLE \(hourPartition) ALTER COLUMN owner DROP DEFAULT")
        let fourth = HealthAutoExportStoreTests.steps(samples: [("2024-11-09 09:00:00 +0000", 14)])
        #expect(Self.counts(try HealthAutoExportStoreTests.push(fourth, into: alice)) == Self.counts(try HealthAutoExportStoreTests.push(fourth, into: file)))
        #expect(try psql("SELECT count(*) || ' ' || sum(count) FROM metric_hour") == "7 13")
        #expect(try (alice.database as? PostgresDatabase)?.scalarText("SELECT current_user") == PostgresStoreSchema.patientRole)
        #expect((alice.database as? PostgresDatabase)?.straightPartitions == nil)
    }

    /// A refused push leaves nothing in PostgreSQL either: one transaction, rolled back.
    @Test func aRefusedPushLeavesNothing() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let alice = try StagingStore.open(postgres: address, owner: "alice", access: .write, configuration: .standard)
        let broken = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2024-11-02 12:00:00 +0000","qty":5,"source":"Watch"}]},"#
        #expect(throws: (any Error).self) { try HealthAutoExportStoreTests.push(broken, into: alice) }
        let status = try StatusQuery(alice).status()
        #expect(status.metrics == 0 && status.imports.isEmpty)
        #expect(try cluster.psql("SELECT count(*) FROM metric", database: "clinic").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    /// A reader of a database where no store was ever made is told so, and makes nothing.
    @Test func aReaderOfAnEmptyDatabaseIsToldThereIsNoStore() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        #expect(throws: StoreError.self) { try StagingStore.open(postgres: address, owner: "alice", access: .read, configuration: .standard) }
        #expect(try cluster.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: "clinic")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    /// A new patient's export sent whole goes into a table of their own as a bulk load
    /// (`BulkLoad`): its samples written twice, a repeat, an undated sample then the same
    /// dated, and a hundred others count as on a store file, row by row and flag by flag; the same
    /// export again adds nothing; the table is the patient's partition, with the shared table's
    /// indexes. Bob's first export, beside alice's rows, is loaded the same way.
    /// `filterWords`: the import's memory of the samples it added, made so small (a word) that it
    /// answers "maybe" to most samples: nearly every row is undecided until the rows are in, the
    /// undated sample the next one dates among them.
    @Test(arguments: [nil, 1] as [Int?])
    func aNewPatientsExportLoadedInBulkCountsAsOnAStoreFile(filterWords: Int?) throws { try Self.withBothEngines { file, alice, address in
        var upload = ImportOrigin.uploadedExport(input: "an upload")
        upload.samples = filterWords
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("export.xml").path
        try Self.exportWithRepeats().write(toFile: path, atomically: true, encoding: .utf8)
        var said: [[Int]] = []
        for store in [file, alice] {
            let first = try store.importExport(ExportInput(path: path), origin: upload)
            let again = try store.importExport(ExportInput(path: path), origin: upload)
            said.append(Self.counts(first.stored) + Self.counts(again.stored))
        }
        #expect(said[0] == said[1])
        // new, repeats, superseded, already, written twice; then the same export again.
        #expect(said[0] == [137, 1, 0, 0, 3, 0, 0, 0, 140, 0])
        #expect(try Self.truth(alice) == Self.truth(file))
        let rows = """
            SELECT t.name || ' ' || m.start_date || ' ' || CAST(m.value * 1000 AS BIGINT) || ' ' || m.created_at || ' ' || m.is_repeat
            FROM metric m JOIN metric_type t ON t.id = m.type_id ORDER BY 1
            """
        let hours = """
            SELECT t.name || ' ' || h.hour || ' ' || CAST(h.sum * 1000 AS BIGINT) || ' ' || h.count || ' ' || CAST(h.merged_sum * 1000 AS BIGINT)
                   || ' ' || h.merged_count
            FROM metric_hour h JOIN metric_type t ON t.id = h.type_id ORDER BY 1
            """
        let aliceRows = try Self.lines(rows, alice.database), fileRows = try Self.lines(rows, file.database)
        #expect(aliceRows == fileRows, "\(Set(aliceRows).symmetricDifference(fileRows).sorted())")
        #expect(aliceRows.count == 137)
        let aliceHours = try Self.lines(hours, alice.database)
        #expect(aliceHours == (try Self.lines(hours, file.database)))
        #expect(aliceHours.filter { $0.hasPrefix("HKQuantityTypeIdentifierRestingHeartRate") }.count == 10)

        let bob = try StagingStore.open(postgres: address, owner: "bob", access: .write, configuration: .standard)
        let bobs = try bob.importExport(ExportInput(path: path), origin: upload)
        #expect(Self.counts(bobs.stored) == Array(said[0].prefix(5 + (said[0].count - 10) / 2)))
        #expect(try Self.lines(rows, bob.database) == Self.lines(rows, file.database))
        // Each in a partition of their own, with the shared table's indexes (the key, the identity,
        // the partial ones, each once: those made with the bulk load's table are the ones attached);
        // the shared table holds no row of its own, and no check made for the attach is left.
        let partitions = try PostgresDatabase(address: address, owner: nil)
        #expect(try partitions.scalarInt("SELECT count(*) FROM pg_inherits WHERE inhparent = 'metric'::regclass") == 2)
        let indexes = "SELECT count(*) FROM pg_index WHERE indrelid = ?::regclass"
        let shared = try partitions.scalarInt(indexes, [.text("metric")])
        for owner in ["alice", "bob"] {
            let name = try #require(try partitions.scalarText("SELECT 'metric_' || md5(?::text)", [.text(owner)]))
            #expect(try partitions.scalarInt(indexes, [.text(name)]) == shared)
            #expect(try partitions.scalarInt("""
                SELECT count(*) FROM pg_constraint WHERE conrelid IN (?::regclass, ('metric_hour_' || md5(?::text))::regclass) AND contype = 'c'
                """, [.text(name), .text(owner)]) == 0)
        }
    } }

    /// A new patient's write does not hold back another new patient's first push: their partitions
    /// are made and committed before the write's transaction (`BulkLoad.makeMissingPartitions`).
    /// Made in it, the lock that attaching takes on the shared tables was held to its commit, and 50
    /// phones' first pushes at once waited for one another, 12–14 of them past the push's 10 s.
    @Test func aNewPatientsOpenWriteDoesNotHoldBackAnothersFirstPush() throws { try Self.withBothEngines { _, alice, address in
        let open = try alice.beginImport(ImportOrigin(input: "a push", size: nil, counting: .whereNoTruthCounts, commit: .whole,
                                                      kindName: "Health Auto Export"))
        try withExtendedLifetime(open) {
            let bob = try StagingStore.open(postgres: address, owner: "bob", access: .write, configuration: .standard)
            try bob.database.execute("SET lock_timeout = '2s'")
            let pushed = try HealthAutoExportStoreTests.push(Self.push, into: bob)
            #expect(pushed.new == 3)
        }
    } }

    /// A new patient's push while their first export is being loaded in bulk waits for the load's
    /// turn, then finds the partitions the load made (`OwnerPartitions.makeMissingOwn` takes the
    /// patient's turn first). Without it, the push's tables raced the load's of the same names, and
    /// the push failed on the names when the load committed.
    @Test func aNewPatientsPushBesideTheirFirstBulkLoadWaitsForIt() throws { try Self.withBothEngines { _, alice, address in
        // The phone's connection is open before the load begins; it pushes once the load has begun.
        let opened = DispatchSemaphore(value: 0), loading = DispatchSemaphore(value: 0)
        let pushed = Mutex<Result<Int, any Error>?>(nil)
        Thread {
            let result = Result {
                let phone: StagingStore
                do {
                    defer { opened.signal() }
                    phone = try StagingStore.open(postgres: address, owner: "alice", access: .write, configuration: .standard)
                }
                loading.wait()
                return try HealthAutoExportStoreTests.push(Self.push, into: phone).new
            }
            pushed.withLock { $0 = result }
        }.start()
        opened.wait()
        let load = try alice.beginImport(.uploadedExport(input: "an upload"))
        loading.signal()
        Thread.sleep(forTimeInterval: 0.5)   // the push waits for the load's turn
        try load.complete()
        while pushed.withLock({ $0 == nil }) { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try pushed.withLock { try $0!.get() } == 3)
    } }

    /// A patient's statements are planned over their own partitions only (`OwnerViews`): with row-
    /// level security alone, each was planned over every patient's (19.9 ms for a `max(id)` with 50
    /// patients), and the store's views too.
    @Test func aPatientsStatementsArePlannedOverTheirOwnPartitionsOnly() throws { try Self.withBothEngines { _, alice, address in
        try HealthAutoExportStoreTests.push(Self.push, into: alice)
        let bob = try StagingStore.open(postgres: address, owner: "bob", access: .write, configuration: .standard)
        try HealthAutoExportStoreTests.push(Self.push, into: bob)
        let partitions = try PostgresDatabase(address: address, owner: nil)
        for (owner, store) in [("alice", alice), ("bob", bob)] {
            for statement in ["SELECT coalesce(max(id), 0) FROM metric", "SELECT count(*) FROM counted_metric",
                              "SELECT sum(count) FROM metric_hour", "UPDATE metric SET superseded = 0 WHERE id < 0"] {
                let plan = try Self.lines("EXPLAIN " + statement, store.database).joined(separator: "\n")
                // Pruned as the statement starts (by row-level security's owner), a partition was still planned.
                #expect(!plan.contains("Subplans Removed"), "\(owner): \(statement)\n\(plan)")
                for other in ["alice", "bob"] {
                    // Each partition's name ends with its owner's hash.
                    let hash = try #require(try partitions.scalarText("SELECT md5(?::text)", [.text(other)]))
                    #expect(plan.contains("_" + hash) == (other == owner), "\(owner): \(statement)\n\(plan)")
                }
            }
        }
    } }

    /// A type left to the rebuild from its rows after some of its hours were written (the import
    /// holds at most 8,192 hours before it writes them): the watch's steps an hour apart over 8,300
    /// hours, then the phone's, back in time. Its hours written as the rows came are replaced by the
    /// rebuilt ones (`BulkLoad.removeHours`), as on a store file.
    @Test func aTypeLeftToTheRebuildAfterItsHoursWereWrittenCountsAsOnAStoreFile() throws { try Self.withBothEngines { file, alice, _ in
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("export.xml").path
        let first = Date(timeIntervalSince1970: 1_700_000_000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        let steps = { (source: String, hour: Int, value: Int) in
            let start = formatter.string(from: first.addingTimeInterval(Double(hour) * 3600))
            return #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="\#(source)" unit="count" "#
                + #"creationDate="\#(start)" startDate="\#(start)" endDate="\#(start)" value="\#(value)"/>"#
        }
        let records = (0..<8_300).map { steps("Watch", $0, 10 + $0 % 50) } + (0..<5).map { steps("Phone", $0 * 1_000 + 1, 7) }
        try ("""
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2025-01-01 09:00:00 +0000"/>

            """ + records.joined(separator: "\n") + "\n</HealthData>\n").write(toFile: path, atomically: true, encoding: .utf8)
        for store in [file, alice] { _ = try store.importExport(ExportInput(path: path), origin: .uploadedExport(input: "an upload")) }
        let hours = "SELECT hour || ' ' || count || ' ' || CAST(sum AS BIGINT) || ' ' || merged_count || ' ' || CAST(merged_sum AS BIGINT) FROM metric_hour ORDER BY hour"
        let aliceHours = try Self.lines(hours, alice.database)
        #expect(aliceHours == (try Self.lines(hours, file.database)))
        #expect(aliceHours.count == 8_300)
        #expect(try Self.truth(alice) == Self.truth(file))
    } }

    /// An export of a hundred heart rates, one of them twice and one again with another creation
    /// date; two undated step counts, the same twice; then the same dated; thirty resting heart rates.
    static func exportWithRepeats() -> String {
        let record = { (type: String, unit: String, start: String, value: String, created: String?) in
            #"<Record type="\#(type)" sourceName="Watch" unit="\#(unit)" "# + (created.map { #"creationDate="\#($0)" "# } ?? "")
                + #"startDate="\#(start)" endDate="\#(start)" value="\#(value)"/>"#
        }
        var records = (0..<100).map { minute in
            record("HKQuantityTypeIdentifierHeartRate", "count/min", String(format: "2024-11-02 07:%02d:00 +0000", minute % 60).replacingOccurrences(of: "07:", with: minute < 60 ? "07:" : "08:"),
                   "\(60 + minute % 7)", "2024-11-02 09:00:00 +0000")
        }
        records.append(records[10])   // written twice
        records.append(record("HKQuantityTypeIdentifierHeartRate", "count/min", "2024-11-02 07:20:00 +0000", "\(60 + 20 % 7)",
                              "2024-11-03 09:00:00 +0000"))   // a repeat: another creation date
        // Back in time again: the repeat's hour is written before the rows are in, and the hour of
        // the two rows decided then loses them as written (`HourRun.remove`, its entry of −1).
        records.append(record("HKQuantityTypeIdentifierHeartRate", "count/min", "2024-11-02 06:50:00 +0000", "58", "2024-11-02 09:00:00 +0000"))
        let steps = record("HKQuantityTypeIdentifierStepCount", "count", "2024-11-02 10:00:00 +0000", "500", nil)
        records += [steps, steps, record("HKQuantityTypeIdentifierStepCount", "count", "2024-11-02 10:00:00 +0000", "500", "2024-11-02 10:05:00 +0000")]
        // The phone's steps listed after the watch's, overlapping them and starting before: their
        // merged values need every source in start order (rebuilt from the rows).
        let phone = [("08:30", "09:20"), ("08:59", "09:10"), ("09:30", "10:20"), ("09:59", "10:10")]
        records += phone.enumerated().map { index, times in
            #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" creationDate="2024-11-02 12:00:00 +0000" "#
                + #"startDate="2024-11-02 \#(times.0):00 +0000" endDate="2024-11-02 \#(times.1):00 +0000" value="\#(300 + index)"/>"#
        }
        // A type none of those touch: its hours are the ones the import counted, not rebuilt.
        records += (0..<30).map { index in
            record("HKQuantityTypeIdentifierRestingHeartRate", "count/min", String(format: "2024-11-%02d 06:00:00 +0000", 3 + index / 3),
                   "\(50 + index)", "2024-11-20 09:00:00 +0000")
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-11-04 09:00:00 +0000"/>
             <Me HKCharacteristicTypeIdentifierDateOfBirth=""/>
            \(records.map { " " + $0 }.joined(separator: "\n"))
            </HealthData>

            """
    }

    /// The first column of each row `sql` answers.
    static func lines(_ sql: String, _ database: some StoreDatabase) throws -> [String] {
        let rows = try database.prepare(sql)
        defer { rows.reset() }
        var lines: [String] = []
        while try rows.step() { lines.append(rows.text(0) ?? "NULL") }
        return lines
    }
}
