import CloudSyncKinds
import CloudSyncModel
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// A type whose values do not merge across sources (heart rate) and whose summary is current gets
/// a new import's hours added to its summary, not rebuilt from the rows; a type whose values merge
/// (steps) is rebuilt. Either way the summary is what a rebuild from nothing gives, and nothing is
/// left dirty: after an export, after batches of new and known hours, after a batch that repeats
/// the export, and after an export that dates a batch's rows.
@Suite struct HourSummaryAddsUpTests {
    /// Heart rates every 20 minutes and steps every hour of `days` of March 2024, with a creation
    /// date when `created` is given.
    static func export(days: Range<Int>, created: String?, extra: String = "") -> String {
        let creation = created.map { " creationDate=\"\($0)\"" } ?? ""
        var body = ""
        for day in days {
            for hour in 0..<24 {
                for minute in [0, 20, 40] {
                    let date = String(format: "2024-03-%02d %02d:%02d:00 +0000", day, hour, minute)
                    body += " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\"\(creation) startDate=\"\(date)\" endDate=\"\(date)\" value=\"\(60 + (day * 7 + hour * 3 + minute) % 50)\"/>\n"
                }
                let start = String(format: "2024-03-%02d %02d:05:00 +0000", day, hour), end = String(format: "2024-03-%02d %02d:15:00 +0000", day, hour)
                body += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Watch\" unit=\"count\"\(creation) startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(100 + hour)\"/>\n"
            }
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-04-01 10:00:00 +0000\"/>\n\(body)\(extra)</HealthData>\n"
    }

    /// The summary's rows, a line an hour, by type name.
    static func hours(_ store: StagingStore) throws -> [String] {
        let rows = try store.database.prepare("""
            SELECT t.name, h.unit_id, h.hour, h.count, h.sum, h.minimum, h.maximum, h.merged_count, h.merged_sum
            FROM metric_hour h JOIN metric_type t ON t.id = h.type_id ORDER BY t.name, h.unit_id, h.hour
            """)
        var lines: [String] = []
        while try rows.step() {
            lines.append((0..<9).map { $0 == 0 ? rows.text(0) ?? "" : $0 == 4 || $0 == 8 ? String(rows.double($0)) : String(rows.int64($0)) }
                .joined(separator: " "))
        }
        return lines
    }

    /// The summary as its rows say, then as a rebuild from nothing says.
    static func keptAndRebuilt(_ store: StagingStore) throws -> (kept: [String], rebuilt: [String]) {
        #expect(try store.database.scalarInt("SELECT count(*) FROM metric_hour_state WHERE dirty_from IS NOT NULL") == 0)
        let kept = try hours(store)
        try store.database.transaction {
            try store.database.execute("DELETE FROM metric_hour")
            try store.database.execute("UPDATE metric_hour_state SET summarised = 0, dirty_from = 0, dirty_to = 0")
        }
        try HourSummaryBuilder.refresh(store.database, denseCount: store.configuration.hourSummaryDenseCount)
        return (kept, try hours(store))
    }

    /// The hours kept and rebuilt are the same (a failure names those that differ, not all of them).
    static func expectSame(_ kept: [String], _ rebuilt: [String], _ what: String) {
        let differ = Set(kept).symmetricDifference(rebuilt).sorted()
        #expect(differ.isEmpty && kept.count == rebuilt.count, "\(what): the hours that differ, kept or rebuilt: \(differ.prefix(6))")
    }

    static func heartRates(days: Range<Int>, offsetMinutes: Int64) -> [HealthMetric] {
        days.flatMap { day in
            (0..<24).map { hour in
                let start = 1_709_251_200 + Int64((day - 1) * 86_400 + hour * 3600) + offsetMinutes * 60   // 2024-03-01 00:00 UTC
                return HealthMetric(type: "HKQuantityTypeIdentifierHeartRate", startDate: start, endDate: start, value: Double(70 + hour),
                                    unit: "count/min", sourceApp: "Phone", metadata: ["device": "iPhone"])
            }
        }
    }

    /// Steps of the phone, 10 minutes from the hour's start (the watch's run from minute 5 to 15:
    /// where both are, the merge counts the overlap once).
    static func phoneSteps(days: Range<Int>) -> [HealthMetric] {
        days.flatMap { day in
            (0..<24).map { hour in
                let start = 1_709_251_200 + Int64((day - 1) * 86_400 + hour * 3600)
                return HealthMetric(type: "HKQuantityTypeIdentifierStepCount", startDate: start, endDate: start + 600, value: Double(50 + hour),
                                    unit: "count", sourceApp: "Phone", metadata: ["device": "iPhone"])
            }
        }
    }

    static func addsUp(_ store: StagingStore, in fixture: StoreFixture) throws {
        func batch(_ metrics: [HealthMetric]) throws -> StoreImportResult {
            try store.importMetrics(metrics, origin: .receivedSamples(input: "a batch", kindName: "cloudcare"))
        }
        try store.importExport(try fixture.file(Self.export(days: 1..<4, created: "2024-04-01 09:00:00 +0000")))
        var (kept, rebuilt) = try Self.keptAndRebuilt(store)
        #expect(kept.count > 100)
        Self.expectSame(kept, rebuilt, "the export")

        // New hours of a known type (a source of its own), and hours it has.
        #expect(try batch(Self.heartRates(days: 4..<6, offsetMinutes: 10)).new == 48)
        #expect(try batch(Self.heartRates(days: 2..<3, offsetMinutes: 10)).new == 24)
        (kept, rebuilt) = try Self.keptAndRebuilt(store)
        Self.expectSame(kept, rebuilt, "batches of new and known hours")

        // Steps merge across sources: a batch after the last stored step is counted as it comes, one
        // among the stored steps is merged with them.
        #expect(try batch(Self.phoneSteps(days: 4..<5)).new == 24)
        (kept, rebuilt) = try Self.keptAndRebuilt(store)
        Self.expectSame(kept, rebuilt, "a batch of steps after the stored ones")
        #expect(try batch(Self.phoneSteps(days: 2..<3)).new == 24)
        (kept, rebuilt) = try Self.keptAndRebuilt(store)
        Self.expectSame(kept, rebuilt, "a batch of steps among the stored ones")
        #expect(kept.contains { $0.hasPrefix("HKQuantityTypeIdentifierStepCount") && !$0.hasSuffix(" 0 0.0") })

        // The export's own samples sent again: already there, nothing added to the hours.
        let same = try convertDirectly(try fixture.file(Self.export(days: 2..<3, created: "2024-04-01 09:00:00 +0000")))
        #expect(try batch(same).already == same.count)
        (kept, rebuilt) = try Self.keptAndRebuilt(store)
        Self.expectSame(kept, rebuilt, "a batch of the export's samples")

        // A batch's undated rows, then an export that dates them and adds steps beside.
        let undated = try convertDirectly(try fixture.file(Self.export(days: 6..<7, created: nil)))
        #expect(try batch(undated).new == undated.count)
        let dating = try store.importExport(try fixture.file(Self.export(days: 6..<8, created: "2024-04-02 09:00:00 +0000")))
        #expect(dating.stored.already == undated.count)
        (kept, rebuilt) = try Self.keptAndRebuilt(store)
        Self.expectSame(kept, rebuilt, "an export that dates a batch's rows")

        // A push of a moment the export covers: stored, superseded. An export that holds its sample
        // (after a new one of the type, which the import counts) dates the pushed row, which counts
        // from then on: the type's hours are rebuilt.
        let moment = "2024-03-02 05:10:00 +0000"
        let pushed = try HealthAutoExportStoreTests.push(#"""
            {"data":{"metrics":[{"name":"heart_rate","units":"count/min","data":[{"date":"\#(moment)","Min":77,"Avg":77,"Max":77,"source":"Watch"}]}]}}
            """#, into: store)
        #expect(pushed.new == 1 && pushed.superseded == 1)
        let samples = [("2024-03-02 05:30:00 +0000", 66), (moment, 77)].map { date, value in
            " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" creationDate=\"2024-04-01 09:00:00 +0000\" startDate=\"\(date)\" endDate=\"\(date)\" value=\"\(value)\"/>\n"
        }
        let holding = try store.importExport(try fixture.file(Self.export(days: 2..<3, created: "2024-04-01 09:00:00 +0000",
                                                                          extra: samples.joined())))
        #expect(holding.stored.new == 1 && holding.stored.superseded == 0)
        #expect(try StatusQuery(store).counts().superseded == 0)
        (kept, rebuilt) = try Self.keptAndRebuilt(store)
        Self.expectSame(kept, rebuilt, "an export that dates a superseded pushed row")
    }

    @Test func onAStoreFile() throws {
        let fixture = try StoreFixture()
        try Self.addsUp(try fixture.open(), in: fixture)
    }

    @Test(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
    func onPostgreSQL() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let fixture = try StoreFixture()
        try Self.addsUp(try StagingStore.open(postgres: address, owner: "alice", access: .write, configuration: .standard), in: fixture)
    }

    /// A server that row-level security does not hold copies the hours it knows new straight into
    /// the patient's hour partition (`OnlineHourSummary.FreshHours`).
    @Test(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
    func onPostgreSQLAsASuperuser() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try PostgresStagingStoreTests.superusersClinic(cluster)
        let fixture = try StoreFixture()
        try Self.addsUp(try StagingStore.open(postgres: address, owner: "alice", access: .write, configuration: .standard), in: fixture)
    }
}
