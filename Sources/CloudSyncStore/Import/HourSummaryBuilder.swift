
/// Computes the hour summary's dirty hours from the rows (see StagingStore+HourSummary): for the
/// types an import could not count as it inserted them (`OnlineHourSummary`).
struct HourSummaryBuilder {
    let database: any StoreDatabase
    /// See `isDense`.
    var denseCount = Self.denseCount
    /// The types whose rows an import kept in its spill: their hours are counted from there.
    var spilled: SpilledHours?

    struct DirtyType {
        /// `uncounted`: its repeats and superseded rows, which the summary leaves out; `rows`: all.
        var id: Int64, name: String, longest: Int64, from: Int64, to: Int64, summarised: Bool, uncounted: Int64, rows: Int64
    }

    /// A push rebuilds a type that was never summarised only up to this many rows: more are an
    /// export's, whose import counts them itself (it may be running beside the push right now; a
    /// push rebuilding 200,000 step counts made each push take half a second of the import's write
    /// lock and doubled the import's time, Benchmarks/always_on_bench.py), or finishes them at its end.
    static let largestRebuiltByAPush: Int64 = 20_000

    struct HourKey: Hashable { var unit: Int64, hour: Int64 }

    /// One hour of one unit: its samples' statistics, plain and merged.
    struct HourStatistics {
        var count = 0, sum = 0.0, minimum = Double.infinity, maximum = -Double.infinity
        var mergedCount = 0, mergedSum = 0.0, mergedMinimum = Double.infinity, mergedMaximum = -Double.infinity

        mutating func add(_ value: Double) {
            count += 1
            sum += value
            minimum = Swift.min(minimum, value)
            maximum = Swift.max(maximum, value)
        }

        /// Adds another part of the same hour (its statistics add up).
        mutating func merge(_ other: Self) {
            count += other.count
            sum += other.sum
            minimum = Swift.min(minimum, other.minimum)
            maximum = Swift.max(maximum, other.maximum)
            mergedCount += other.mergedCount
            mergedSum += other.mergedSum
            mergedMinimum = Swift.min(mergedMinimum, other.mergedMinimum)
            mergedMaximum = Swift.max(mergedMaximum, other.mergedMaximum)
        }

        mutating func addMerged(_ value: Double) {
            mergedCount += 1
            mergedSum += value
            mergedMinimum = Swift.min(mergedMinimum, value)
            mergedMaximum = Swift.max(mergedMaximum, value)
        }

        /// Adds a `metric_hour` row (type, unit, hour, then these: the 11 columns of `HourStatistics.columns`)
        /// to `rows`; extremes of no sample are NULL.
        func add(to rows: any RowBatch, typeID: Int64, key: HourKey) throws {
            rows.add(typeID)
            rows.add(key.unit)
            rows.add(key.hour)
            rows.add(Int64(count))
            rows.add(sum)
            rows.add(count > 0 ? minimum : nil)
            rows.add(count > 0 ? maximum : nil)
            rows.add(Int64(mergedCount))
            rows.add(mergedSum)
            rows.add(mergedCount > 0 ? mergedMinimum : nil)
            rows.add(mergedCount > 0 ? mergedMaximum : nil)
            try rows.endRow()
        }

        /// `metric_hour`'s columns in the order `add(to:typeID:key:)` writes them.
        static let columns = """
            type_id, unit_id, hour, count, sum, minimum, maximum, merged_count, merged_sum, merged_minimum, merged_maximum
            """
        static let cells = "c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10"
        static let cellTypes: [RowBatchColumn] = [.integer, .integer, .integer, .integer, .real, .real, .real, .integer, .real, .real, .real]
    }

    /// What replaces a type's summary from `first` to `last` (inclusive hours); `dense` false: the
    /// type gets none (its hours are all removed).
    struct TypeHours {
        var typeID: Int64, first: Int64, last: Int64
        var hours: [(key: HourKey, statistics: HourStatistics)]
        var dense = true
    }

    /// A type has a summary when it has at least `denseCount` samples: every type (tests set more).
    /// Only dense types (10,000 samples, two per hour) had one, and a series of another type read
    /// its rows. With every type's (1.23 million hours for the 3 GB export's 7.25 million samples),
    /// `series`, `compare_periods` and `aggregate` over all years answer any type in at most 64 ms
    /// (p95, `Benchmarks/series_bench.py`).
    static let denseCount = 1

    static func isDense(rows: Int, hours: Int, denseCount: Int = denseCount) -> Bool { rows >= max(denseCount, 1) }

    static func hour(of instant: Int64) -> Int64 { instant >= 0 ? instant / 3600 : (instant - 3599) / 3600 }

    /// Rebuilds the dirty hours of every type from the rows: after an import's commit, and after
    /// rows changed what they count (a push, an export that supersedes pushed rows). A type at a
    /// time, a summarised type's hours a window at a time (`refreshInTurns`), each turn in its own
    /// transaction, with the writers that wait let in between two turns.
    /// `pushed`: a push's types, the only ones it refreshes (the others are an import's beside it,
    /// or current), and of them not a large type never summarised: an export's import counts it
    /// (readers read its rows meanwhile, with the same numbers).
    /// A push beside an export's import leaves every type to the import, which rebuilds what is
    /// dirty at its end, pushes' types included: rebuilding the import's hours of a type (the
    /// export's step counts so far) in the push's answer made a push wait 3.7 s.
    /// `firstTurnHours`: the window of a type's first turn (the turns after are sized by their time).
    /// `spilled`: an import's types whose rows it kept in its spill (right after its commit).
    static func refresh(_ database: any StoreDatabase, denseCount: Int, pushed: Set<Int64>? = nil, firstTurnHours: Int64 = 24 * 30,
                        spilled: SpilledHours? = nil) throws {
        if pushed != nil, database.writersRoom?.someoneImports == true { return }
        let builder = HourSummaryBuilder(database: database, denseCount: denseCount, spilled: spilled)
        var turns = WriteTurns(database: database)
        // An import's rebuild looks again once it is through: a push beside it may have left a type dirty.
        for _ in 0..<(pushed == nil ? 3 : 1) {
            var rebuilt = 0
            for type in try builder.dirtyTypes() {
                if let pushed, !pushed.contains(type.id) || (!type.summarised && type.rows > largestRebuiltByAPush) { continue }
                try builder.refreshInTurns(type.id, turns: &turns, firstHours: firstTurnHours)
                rebuilt += 1
            }
            if rebuilt == 0 { break }
        }
        try cleanTypesWithoutSummary(database)
    }

    /// Types without a summary (small or sparse) need no rebuild: their dirty range goes (in a
    /// transaction, with its commit, planned once a connection: `executeWithNext`).
    private static func cleanTypesWithoutSummary(_ database: any StoreDatabase) throws {
        try database.executeWithNext("UPDATE metric_hour_state SET dirty_from = NULL, dirty_to = NULL WHERE summarised < 0 AND dirty_from IS NOT NULL", [])
    }

    /// A whole import's (a push's, a received batch's) dirty hours rebuilt in its own transaction,
    /// before its commit, when they are few: a type never summarised with at most
    /// `largestRebuiltByAPush` rows, a summarised one whose dirty hours fit in one first turn. In
    /// turns after the commit, each type was a transaction of its own: 15 commits and 150
    /// statements a CloudCare batch of 1,000 on PostgreSQL (issue 34, the receiver). True when no type
    /// is left dirty (then the rebuild after the commit has nothing to do).
    static func refreshBeforeCommit(_ database: any StoreDatabase, denseCount: Int, pushed: Set<Int64>?,
                                    firstTurnHours: Int64 = 24 * 30) throws -> Bool {
        if pushed != nil, database.writersRoom?.someoneImports == true { return false }
        let builder = HourSummaryBuilder(database: database, denseCount: denseCount)
        var clean = true
        for type in try builder.dirtyTypes() {
            let few = type.summarised
                ? hour(of: max(type.to, type.from)) - hour(of: type.from - type.longest) < firstTurnHours
                : type.rows <= largestRebuiltByAPush
            guard few, pushed?.contains(type.id) ?? true else {
                clean = false
                continue
            }
            try store(try builder.hours(of: type), in: database)
        }
        try cleanTypesWithoutSummary(database)
        return clean
    }

    /// A type's dirty hours, oldest first: a summarised type's a window of hours per turn, the
    /// window sized so that a turn takes about `WriteTurns.aim`, and the dirty range left shrinks
    /// with each (readers read the type's rows until it is clean; a push between two turns widens it
    /// again, and the next turn starts there). A type never summarised is judged whole, in one turn.
    func refreshInTurns(_ typeID: Int64, turns: inout WriteTurns, firstHours: Int64) throws {
        var hoursPerTurn = max(1, firstHours)
        while true {
            var started = ContinuousClock.now
            let finished = try turns.take { () throws -> Bool in
                // The turn's own time, not the wait for the lock or for the writers let in before it.
                started = .now
                // Read again in the turn's transaction: another writer may have changed it.
                guard let type = try dirtyTypes(typeID).first else { return true }
                guard type.summarised else {
                    try Self.store(try hours(of: type), in: database)
                    return true
                }
                let range = (first: Self.hour(of: type.from - type.longest), last: Self.hour(of: max(type.to, type.from)))
                let last = range.last - range.first >= hoursPerTurn ? range.first + hoursPerTurn - 1 : range.last
                let window = TypeHours(typeID: type.id, first: range.first, last: last,
                                       hours: try statistics(of: type, hours: (range.first, last)))
                // The next turn's first hour is `last + 1`: its samples start there, its first hour
                // is taken `longest` before them.
                let rest = last < range.last ? (last + 1) * 3600 + type.longest : nil
                try Self.store(window, in: database, dirtyFrom: rest)
                return rest == nil
            }
            if finished { return }
            let took = max(started.duration(to: .now), .microseconds(100))
            hoursPerTurn = max(1, Int64(Double(hoursPerTurn) * min(4, WriteTurns.aim / took)))
        }
    }

    /// The dirty types, or the type `id` if it is dirty.
    func dirtyTypes(_ id: Int64? = nil) throws -> [DirtyType] {
        let dirty = try database.prepare("""
            SELECT h.type_id, t.name, h.longest, h.dirty_from, h.dirty_to, h.summarised,
                   (SELECT coalesce(sum(repeats + superseded), 0) FROM metric_summary s WHERE s.type_id = h.type_id),
                   (SELECT coalesce(sum(count + repeats + superseded), 0) FROM metric_summary s WHERE s.type_id = h.type_id)
            FROM metric_hour_state h JOIN metric_type t ON t.id = h.type_id
            WHERE h.dirty_from IS NOT NULL AND h.summarised >= 0 \(id == nil ? "" : "AND h.type_id = ?")
            """)
        if let id { try dirty.bind(1, id) }
        var types: [DirtyType] = []
        while try dirty.step() {
            types.append(DirtyType(id: dirty.int64(0), name: dirty.text(1) ?? "", longest: dirty.int64(2), from: dirty.int64(3),
                                   to: dirty.int64(4), summarised: dirty.int64(5) != 0, uncounted: dirty.int64(6),
                                   rows: dirty.int64(7)))
        }
        return types
    }

    /// Replaces the type's summary over the hours computed and marks it current, in the caller's
    /// transaction; with `dirtyFrom`, its samples from there on are still to do.
    static func store(_ computed: TypeHours, in database: any StoreDatabase, dirtyFrom: Int64? = nil) throws {
        try database.prepare("DELETE FROM metric_hour WHERE type_id = ? AND hour BETWEEN ? AND ?")
            .run([.int(computed.typeID), .int(computed.first), .int(computed.last)])
        let insert = try database.rowBatch(HourStatistics.cellTypes, sql: """
            INSERT INTO metric_hour(\(HourStatistics.columns)) SELECT \(HourStatistics.cells) FROM {rows}
            """)
        for (key, hour) in computed.hours { try hour.add(to: insert, typeID: computed.typeID, key: key) }
        try insert.flush()
        if let dirtyFrom {
            try database.prepare("UPDATE metric_hour_state SET dirty_from = ? WHERE type_id = ?").run([.int(dirtyFrom), .int(computed.typeID)])
        } else {
            try database.prepare("UPDATE metric_hour_state SET summarised = ?, dirty_from = NULL, dirty_to = NULL WHERE type_id = ?")
                .run([.int(computed.dense ? 1 : -1), .int(computed.typeID)])
        }
    }

    /// The hours the type's new rows may have changed: their own, and those of the samples they
    /// overlap (which start at most `longest` before them); all of them for a type never summarised.
    func hours(of type: DirtyType) throws -> TypeHours {
        let all = (first: Int64(-1) << 40, last: Int64(1) << 40)
        guard type.summarised else {
            // Never summarised (left by an import, or a store from before summaries): judged now.
            let hours = try spilledStatistics(of: type, hours: all) ?? statistics(of: type, hours: all)
            let dense = Self.isDense(rows: hours.reduce(0) { $0 + $1.statistics.count }, hours: hours.count, denseCount: denseCount)
            return TypeHours(typeID: type.id, first: all.first, last: all.last, hours: dense ? hours : [], dense: dense)
        }
        let range = (first: Self.hour(of: type.from - type.longest), last: Self.hour(of: max(type.to, type.from)))
        return TypeHours(typeID: type.id, first: range.first, last: range.last, hours: try statistics(of: type, hours: range))
    }

    /// The statistics of `hours` from the rows an import spilled (`SpilledHours`); nil when they are
    /// to be read from the store, also when the spill cannot be read back (the rows are there).
    private func spilledStatistics(of type: DirtyType, hours: (first: Int64, last: Int64)) throws -> [(key: HourKey, statistics: HourStatistics)]? {
        do {
            guard var rows = try spilled?.rows(of: type.id, in: database) else { return nil }
            return try Self.statistics(hours: hours, cumulative: CumulativeTypes.contains(type.name), rows: &rows)
        } catch is MergeSpill.SpillError {
            return nil
        }
    }

    /// The statistics of `hours` (inclusive) from the rows. The rows read reach `longest` beyond on
    /// both sides, so that merging sees every sample overlapping those hours.
    private func statistics(of type: DirtyType, hours: (first: Int64, last: Int64)) throws -> [(key: HourKey, statistics: HourStatistics)] {
        let cumulative = CumulativeTypes.contains(type.name)
        // Without rows that do not count, a type that does not merge reads the identity index alone
        // (its rows are not visited: heart rate's 742,000 rows in about half the time).
        let indexOnly = !cumulative && type.uncounted == 0
        let sql = """
            SELECT m.unit_id, m.start_date, m.end_date, m.value, m.source_id, \(indexOnly ? "0" : "m.device_id")
            FROM \(indexOnly ? "metric" : CountedRows.view) m
            WHERE m.type_id = ? AND m.start_date >= ? AND m.start_date < ?
            ORDER BY m.type_id, m.start_date
            """
        let bounds: [StoreValue] = [.int(type.id), .int(hours.first * 3600 - type.longest), .int((hours.last + 1) * 3600 + type.longest)]
        let ranks = SourceRanks(deviceNames: try database.names("device"))
        func read<Statement: StoreStatement>(_ statement: Statement) throws -> [(key: HourKey, statistics: HourStatistics)] {
            try statement.bind(bounds)
            var rows = StatementRows(statement: statement, ranks: ranks)
            return try Self.statistics(hours: hours, cumulative: cumulative, rows: &rows)
        }
        // Read by code specialised for SQLite's statement: through the protocol, a call per column.
        if let sqlite = database as? SQLiteDatabase { return try read(try sqlite.prepare(sql)) }
        return try read(try database.prepare(sql))
    }

    /// The statistics of `hours` (inclusive) from a type's rows in the identity index's order: read
    /// from the store, or merged from an import's spill (`SpilledHours`).
    static func statistics<Rows: TypeRows>(hours: (first: Int64, last: Int64), cumulative: Bool,
                                           rows: inout Rows) throws -> [(key: HourKey, statistics: HourStatistics)] {
        var statistics = HourRun()
        var merger = SourceMerger<HourKey>()
        func addMerged(_ key: HourKey, _ value: Double) {
            if key.hour >= hours.first && key.hour <= hours.last { statistics.addMerged(key, value) }
        }
        var units: Set<Int64> = []
        while try rows.step() {
            let start = rows.start, value = rows.value
            let key = HourKey(unit: rows.unit, hour: Self.hour(of: start))
            if key.hour >= hours.first && key.hour <= hours.last && statistics.add(key, value) { units.insert(key.unit) }
            if cumulative { merger.add(start: start, end: rows.end, rank: rows.rank(), value: value, payload: key, emit: addMerged) }
        }
        merger.finish(emit: addMerged)
        // Written in the table's order.
        if units.count > 1 { statistics.hours.sort { ($0.key.unit, $0.key.hour) < ($1.key.unit, $1.key.hour) } }
        return statistics.hours
    }
}

/// A type's rows in the identity index's order (type, start, end, source, value, unit), as the
/// hours are counted from them.
protocol TypeRows {
    /// Moves to the next row; false after the last.
    mutating func step() throws -> Bool
    var unit: Int64 { get }
    var start: Int64 { get }
    var end: Int64 { get }
    var value: Double { get }
    /// The merge rank of the row's device and source.
    mutating func rank() -> Int64
}

/// The rows a statement reads: unit, start, end, value, source, device.
private struct StatementRows<Statement: StoreStatement>: TypeRows {
    let statement: Statement
    var ranks: SourceRanks

    func step() throws -> Bool { try statement.step() }
    var unit: Int64 { statement.int64(0) }
    var start: Int64 { statement.int64(1) }
    var end: Int64 { statement.int64(2) }
    var value: Double { statement.double(3) }
    mutating func rank() -> Int64 { ranks.rank(device: statement.int64(5), source: statement.int64(4)) }
}

/// Hours of one type in the order its rows come (by hour; a few units may share one), for the
/// rebuild and for the import. A merged value comes a few samples late, to an hour near the end.
/// A dictionary cost a third of the rebuild's time.
struct HourRun {
    var hours: [(key: HourSummaryBuilder.HourKey, statistics: HourSummaryBuilder.HourStatistics)] = []

    private func index(of key: HourSummaryBuilder.HourKey) -> Int? {
        var index = hours.count - 1
        while index >= 0 && hours[index].key.hour >= key.hour {
            if hours[index].key == key { return index }
            index -= 1
        }
        return nil
    }

    /// Counts a sample; true when it opened a new hour.
    @discardableResult
    mutating func add(_ key: HourSummaryBuilder.HourKey, _ value: Double) -> Bool {
        if let last = hours.last, last.key == key {
            hours[hours.count - 1].statistics.add(value)
        } else if let index = index(of: key) {
            hours[index].statistics.add(value)
        } else {
            var statistics = HourSummaryBuilder.HourStatistics()
            statistics.add(value)
            hours.append((key, statistics))
            return true
        }
        return false
    }

    /// Takes a sample counted before out of its hour, whose extremes another sample of the same value
    /// keeps (`OnlineHourSummary.uncount`). An hour no longer here (written) gets an entry of −1
    /// sample, which the hours' sum adds to it.
    mutating func remove(_ key: HourSummaryBuilder.HourKey, _ value: Double) {
        if let index = index(of: key) {
            hours[index].statistics.count -= 1
            hours[index].statistics.sum -= value
        } else {
            hours.append((key, HourSummaryBuilder.HourStatistics(count: -1, sum: -value)))
        }
    }

    /// Counts a sample's merged value (0: nothing). An hour no longer here (the import wrote it at a
    /// commit) gets an entry of its merged part, which the upsert adds to it.
    mutating func addMerged(_ key: HourSummaryBuilder.HourKey, _ value: Double) {
        guard value != 0 else { return }
        if let index = index(of: key) {
            hours[index].statistics.addMerged(value)
        } else {
            var statistics = HourSummaryBuilder.HourStatistics()
            statistics.addMerged(value)
            hours.append((key, statistics))
        }
    }
}

/// The merge rank of a row's (device, source), each device's rank computed once from its name.
struct SourceRanks {
    private let deviceNames: [Int64: String]
    private var deviceRanks: [Int64: Int64] = [:]

    init(deviceNames: [Int64: String]) { self.deviceNames = deviceNames }

    mutating func rank(device: Int64, source: Int64) -> Int64 {
        let deviceRank = deviceRanks[device] ?? SourceMerger<Void>.deviceRank(deviceNames[device] ?? "")
        deviceRanks[device] = deviceRank
        return SourceMerger<Void>.rank(deviceRank: deviceRank, sourceID: source)
    }
}
