import CloudSyncInputs
import CloudSyncModel
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// The merged types' spill (`MergeSpill`): an import keeps the counted rows of a type whose values
/// merge across sources and which the store did not have, and when its rows go back in time (the
/// export lists it source by source) its hours are counted from there after the commit, to the same
/// bits as a rebuild from the rows.
@Suite struct MergeSpillTests {
    static func row(_ start: Int64, _ end: Int64, source: Int64 = 1, value: Double = 1, unit: Int64 = 1) -> MergeSpill.Row {
        MergeSpill.Row(start: start, end: end, source: source, value: value, unit: unit, rank: source)
    }

    static func merged(_ spill: MergeSpill, type: Int64) throws -> [MergeSpill.Row] {
        var rows = try spill.rows(of: type)
        var read: [MergeSpill.Row] = []
        while let row = try rows.next() { read.append(row) }
        return read
    }

    static func key(_ row: MergeSpill.Row) -> [Double] {
        [Double(row.start), Double(row.end), Double(row.source), row.value, Double(row.unit)]
    }

    @Test func aTypesRunsAreReadBackInTheIdentityIndexsOrder() throws {
        let spill = MergeSpill()
        // Two sources of type 7 listed one after the other, a type 8 between them, and rows alike but
        // for their end, source, value or unit (the index's later columns decide their order).
        var added: [MergeSpill.Row] = []
        for start in stride(from: Int64(0), to: 3_000, by: 10) {
            added.append(Self.row(start, start + 20, source: 2, value: Double(start % 7)))
        }
        for row in added { #expect(try spill.append(type: 7, row)) }
        #expect(try spill.append(type: 8, Self.row(5, 6)))
        var second: [MergeSpill.Row] = []
        for start in stride(from: Int64(0), to: 3_000, by: 15) {
            second.append(Self.row(start, start + 20, source: 1, value: 3))
            second.append(Self.row(start, start + 20, source: 1, value: 3, unit: 2))
            second.append(Self.row(start, start + 25, source: 1, value: 1))
        }
        // Type 7's second run: its starts tie with the first run's every 30 s (the source decides).
        for row in second { #expect(try spill.append(type: 7, row)) }
        let read = try Self.merged(spill, type: 7)
        #expect(read.count == added.count + second.count)
        #expect(read.map(Self.key) == (added + second).map(Self.key).sorted { $0.lexicographicallyPrecedes($1) })
        #expect(try Self.merged(spill, type: 8).map(Self.key) == [Self.key(Self.row(5, 6))])
        #expect(try Self.merged(spill, type: 9).isEmpty)
    }

    /// A type listed in order but for thousands of rows that go back in time (the 1 GB export's
    /// active energy): as many runs, each through a smaller buffer.
    @Test func thousandsOfRunsAreMergedInOrder() throws {
        let spill = MergeSpill()
        var added: [MergeSpill.Row] = []
        for block in 0..<3_000 {
            // Each block starts before the last block's rows: a run of its own.
            for row in 0..<5 { added.append(Self.row(Int64(block * 3 + row * 7), Int64(block * 3 + row * 7 + 60), value: Double(block % 4))) }
        }
        for row in added { #expect(try spill.append(type: 9, row)) }
        let read = try Self.merged(spill, type: 9)
        #expect(read.count == added.count)
        #expect(read.map(Self.key) == added.map(Self.key).sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test func aTypeWithMoreRunsThanAreMergedIsLeftToItsRows() throws {
        let spill = MergeSpill()
        for run in 0..<MergeSpill.mostRuns {
            #expect(try spill.append(type: 7, Self.row(Int64(MergeSpill.mostRuns - run), 200)))
        }
        #expect(try !spill.append(type: 7, Self.row(0, 200)))
        #expect(try spill.append(type: 8, Self.row(1, 200)))
    }

    /// Steps and distances of a watch, then of a phone that overlaps them in part, listed source by
    /// source as exports list them (the phone's rows go back in time); heart rates between.
    static func export() -> String {
        var watch = "", phone = "", heart = ""
        func record(_ type: String, _ source: String, _ device: String, _ unit: String, _ start: Int, _ length: Int, _ value: Double) -> String {
            func date(_ minutes: Int) -> String {
                String(format: "2024-03-%02d %02d:%02d:00 +0000", 1 + minutes / 1440, minutes / 60 % 24, minutes % 60)
            }
            return " <Record type=\"HKQuantityTypeIdentifier\(type)\" sourceName=\"\(source)\" device=\"&lt;&lt;HKDevice: 0x1&gt;, name:\(device)&gt;\" unit=\"\(unit)\" creationDate=\"2024-04-01 09:00:00 +0000\" startDate=\"\(date(start))\" endDate=\"\(date(start + length))\" value=\"\(value)\"/>\n"
        }
        for slot in 0..<(3 * 24 * 4) {
            let minutes = slot * 15
            watch += record("StepCount", "Watch", "Apple Watch", "count", minutes, 7, Double(10 + slot % 13))
            watch += record("DistanceWalkingRunning", "Watch", "Apple Watch", "km", minutes, 7, Double(slot % 5) / 10)
            // Starts 3 minutes into the watch's sample, or with it: covered in part, ties on the start.
            let offset = slot % 3 == 0 ? 0 : 3
            phone += record("StepCount", "Phone", "iPhone", "count", minutes + offset, 9, Double(7 + slot % 11))
            phone += record("DistanceWalkingRunning", "Phone", "iPhone", "km", minutes + offset, 9, Double(slot % 7) / 10)
            heart += record("HeartRate", "Watch", "Apple Watch", "count/min", minutes, 0, Double(60 + slot % 40))
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-04-01 10:00:00 +0000\"/>\n\(watch)\(heart)\(phone)</HealthData>\n"
    }

    @Test func typesListedSourceBySourceAreCountedFromTheSpillAsFromTheirRows() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let imported = try store.importExport(try fixture.file(Self.export()))
        #expect(imported.stored.new == 3 * 24 * 4 * 5)
        let (kept, rebuilt) = try HourSummaryAddsUpTests.keptAndRebuilt(store)
        #expect(kept.count == 3 * 24 * 3)
        HourSummaryAddsUpTests.expectSame(kept, rebuilt, "steps and distances of two sources listed one after the other")
        // The merge counted the phone's uncovered part: neither every sample whole nor the watch's alone.
        let merged = try store.database.scalarInt("""
            SELECT count(*) FROM metric_hour h JOIN metric_type t ON t.id = h.type_id
            WHERE t.name = 'HKQuantityTypeIdentifierStepCount' AND h.merged_sum > 0 AND h.merged_sum < h.sum
            """)
        #expect(merged == 72)   // every hour of the three days
    }

    @Test func aMergedTypeGoingBackInTimeIsHandedToTheSpillAndAnotherTypeIsNot() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.database.transaction {
            let summary = try OnlineHourSummary(database: store.database, denseCount: 1)
            func add(_ type: Int64, _ name: StaticString, source: Int64, start: Int64) throws {
                try summary.add(typeID: type, typeName: ByteText(literal: name), unit: 1, source: source, start: start, end: start + 60,
                                value: 5, rank: source)
            }
            for source: Int64 in [1, 2] {
                for start in stride(from: Int64(0), to: 7_200, by: 300) {
                    try add(1, "HKQuantityTypeIdentifierStepCount", source: source, start: start)
                    try add(2, "HKQuantityTypeIdentifierHeartRate", source: source, start: start + 1)
                }
            }
            // One source only: merged as it came.
            for start in stride(from: Int64(0), to: 7_200, by: 300) { try add(3, "HKQuantityTypeIdentifierDistanceWalkingRunning", source: 1, start: start) }
            #expect(summary.spilledHours?.types == [1])
            #expect(try MergeSpillTests.merged(summary.spilledHours!.spill, type: 1).count == 48)
        }
    }

    @Test func aCommitOfAnotherConnectionSendsTheSpilledTypesBackToTheirRows() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let spill = MergeSpill()
        #expect(try spill.append(type: 1, Self.row(0, 60)))
        let spilled = SpilledHours(spill: spill, types: [1], asCommitted: try #require(try store.database.othersCommits()))
        #expect(try spilled.rows(of: 1, in: store.database) != nil)
        #expect(try spilled.rows(of: 2, in: store.database) == nil)
        let other = try fixture.open()
        try other.database.execute("INSERT INTO identity(key, value) VALUES ('another', 'connection')")
        #expect(try spilled.rows(of: 1, in: store.database) == nil)
    }
}

extension MergeSpillTests {
    @Test func aSpillThatCannotBeWrittenLeavesItsTypesToTheirRows() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.database.transaction {
            let summary = try OnlineHourSummary(database: store.database, denseCount: 1)
            // A full disk: the first write of the buffer fails.
            summary.makeSpill = { MergeSpill(makeFile: { fopen("/dev/full", "w+") }) }
            // Two sources of steps, one after the other, more rows than the spill buffers.
            for source: Int64 in [1, 2] {
                for start in stride(from: Int64(0), to: 1_000 * 60, by: 60) {
                    try summary.add(typeID: 1, typeName: ByteText(literal: "HKQuantityTypeIdentifierStepCount"), unit: 1, source: source,
                                    start: start, end: start + 30, value: 5, rank: source)
                }
            }
            #expect(summary.spilledHours == nil)
            // Left to the rebuild from its rows: not marked current, its dirty range kept.
            try store.database.execute("INSERT INTO metric_hour_state(type_id, longest, summarised, dirty_from, dirty_to) VALUES (1, 30, 0, 0, 60000)")
            try summary.finish()
            #expect(try store.database.scalarInt("SELECT summarised FROM metric_hour_state WHERE type_id = 1") == 0)
        }
    }
}
