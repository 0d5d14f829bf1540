import CloudSyncModel

/// The hour summary of the types an import brings into the store for the first time, counted
/// from the rows as they are inserted: exports list a type's records in start order, so merging
/// needs no second pass. Reading the rows back after the import took 2.2–3 s of the 1 GB
/// export's 18 s; counting them here costs a fraction of that.
///
/// Every type gets a summary (`HourSummaryBuilder.isDense`: `denseCount` samples, 1 unless a test
/// sets more), so that `series`, `compare_periods` and `aggregate` answer any type from its hours.
/// A type's hours are added to `metric_hour` at each commit (their statistics add up, so an hour
/// split by a commit is whole after the next); a type with fewer than `denseCount` samples keeps
/// its hours here until the import moves on to another type.
///
/// A type whose values merge across sources (steps, distances…) and whose rows come out of start
/// order (listed source by source) is left to the rebuild (`HourSummaryBuilder`): merging needs
/// every source in start order. On SQLite, a type new to the store has its counted rows kept in a
/// spill as they come (`MergeSpill`), and is rebuilt from there after the commit (`SpilledHours`);
/// otherwise, and when the spill cannot be written, from its rows in the store. Another type's
/// plain statistics do not need order: when its rows go back in time (the next source), its hours
/// so far are written and it goes on.
/// A type the store already had is counted here too when its summary is current and its values do
/// not merge, or merge but its new rows start after every stored one has ended (a batch of steps
/// after the last); otherwise it is rebuilt, as its new rows may change the merged values of old
/// ones. (Rebuilding every type of every received batch was 12.8% of the PostgreSQL receiver's CPU,
/// issue 34.) Only rows that count are added: a repeat or a superseded row is known as it is
/// inserted (`MetricWriter`), and a type whose older rows stop counting during the import (a
/// bucket pushed again, a pushed row that an export dates) is left to the rebuild.
final class OnlineHourSummary {
    /// What it reads of the store at its first new type (the stored types' states), in that order.
    static var storedTypesReads: [String] { StoredTypes.reads }

    private final class TypeHours {
        let cumulative: Bool
        var lastStart = Int64.min
        var rows = 0, hourCount = 0
        /// Dense: its hours are written at each commit.
        var dense = false
        /// Its counted rows go to the spill too: its values merge and the store had none of it.
        var spilling = false
        /// Its rows went back in time: its hours are counted from the spill after the commit, not here.
        var mergedLater = false
        // Unchecked (one thread imports): their checks were 9 M of the 48 MB export's counting.
        @exclusivity(unchecked) var merger = SourceMerger<HourSummaryBuilder.HourKey>()
        /// Hours since the last commit, in the order the rows came.
        @exclusivity(unchecked) var hours = HourRun()

        init(cumulative: Bool) { self.cumulative = cumulative }

        func addMerged(_ key: HourSummaryBuilder.HourKey, _ value: Double) { hours.addMerged(key, value) }
    }

    private let database: any StoreDatabase
    /// Where the hours are written: upserted into `metric_hour` (those no stored hour can meet by a
    /// statement of their own, `fresh`), or a bulk load's.
    private enum Destination {
        case upsert(any RowBatch, fresh: (hours: FreshHours, rows: any RowBatch)?)
        case bulk(BulkHours)
    }

    /// How a writer on PostgreSQL whose connection may copy straight into the patient's hour
    /// partition (`OwnerPartitions.straightCopyTargets`) tells the hours that no stored hour can
    /// meet: those of a type after the hour of its latest stored row's start (and after those this
    /// import wrote before). They are copied there, not upserted through a temporary table:
    /// PostgreSQL checks each upserted row against the key before it inserts it, and the 166,056
    /// received metrics' 44,281 hours took 1.1–1.2 s of its CPU upserted, 0.4–0.5 s copied
    /// (docs/performance.md, "Issue 34", eleventh session). One that meets a stored hour after all
    /// (the store changed under the import) is refused by the key, and its chunk is upserted.
    /// The owner deployment upserts every hour: inserted plainly apart from the others, the new
    /// ones took a temporary table's `COPY` and emptying more, about what the plain insert saved.
    struct FreshHours {
        /// The latest start of the type's stored rows; nil when none is stored.
        let latestStoredStart: (Int64) throws -> Int64?
        /// The patient's hour partition, quoted.
        let straightInto: String
    }
    /// `metric_hour`'s columns one by one, as a straight copy names them: split once, not each batch.
    private static let hourColumnNames = HourSummaryBuilder.HourStatistics.columns.split(separator: ",").map { String($0.filter { $0 != " " }) }
    /// Per type, the latest hour this import wrote: a later write's hours up to it meet those.
    private var writtenThrough: [Int64: Int64] = [:]
    private let destination: Destination
    /// The stored types' summary states and last ends, read once for the types the import meets
    /// (one statement each, not one a type: a received batch is an import of its own, and these
    /// were 3,200 of a 166,056-metric upload's 25,000 statements on PostgreSQL). Read again after
    /// each commit: between two commits of a long import others may write.
    private var stored: StoredTypes?
    private enum Fate {
        case counted(TypeHours)
        /// Left to the rebuild from the rows.
        case rebuilt
        /// Small or sparse: no summary.
        case without
    }
    private var types: [Int64: Fate] = [:]
    /// The hours handed on since the last commit, merged by (type, unit, hour) and written by one
    /// statement at the commit: a type's hours were written each time its rows went back in time
    /// (5,730 statements for the 100 MB export, 1.8 s of PostgreSQL's time), and PostgreSQL's upsert
    /// refuses one key twice in a statement.
    private var pending: [PendingHour: HourSummaryBuilder.HourStatistics] = [:]
    private struct PendingHour: Hashable, Comparable {
        var type, unit, hour: Int64
        static func < (a: Self, b: Self) -> Bool { (a.type, a.unit, a.hour) < (b.type, b.unit, b.hour) }
    }
    /// Hours opened since the hours were last written: at `heldLimit` they are written before the
    /// commit. Held to the commit, a commit's hours of 35 types (and `pending`) were 22 MiB of the
    /// 1 GB import's peak (heaptrack), which went from 93 to 107 MiB over the 96 MiB goal.
    private var held = 0
    private static let heldLimit = 8192
    private var currentID: Int64 = -1
    private var current: TypeHours?
    /// The merged types' rows (see `MergeSpill`), made when the first such type comes; nil on
    /// PostgreSQL and for a bulk load, whose rebuilds read the rows where they are.
    private var spill: MergeSpill?
    private let spills: Bool
    /// Makes the spill (a test's may be unwritable).
    var makeSpill = { MergeSpill() }

    private let denseCount: Int

    /// A bulk load's: the hours go to its hour table (`BulkHours`), attached at `finish`.
    private let bulk: BulkLoad?

    /// `spills`: the merged types' rows may be kept in a spill (an export's import, in chunks).
    /// `fresh`: on PostgreSQL, how to tell the hours no stored hour can meet, to copy them (`FreshHours`).
    init(database: any StoreDatabase, denseCount: Int, bulk: BulkLoad? = nil, spills: Bool = true, fresh: FreshHours? = nil) throws {
        self.database = database
        self.denseCount = denseCount
        self.bulk = bulk
        // Only where another connection's commit can be seen (`othersCommits`): one after the
        // import's would make the spill miss rows (`SpilledHours`).
        self.spills = try spills && bulk == nil && database.othersCommits() != nil
        // `WHERE true`: SQLite's parser needs it between a SELECT and its ON CONFLICT.
        if let bulk {
            destination = .bulk(try bulk.hourRows(HourSummaryBuilder.HourStatistics.cellTypes, columns: HourSummaryBuilder.HourStatistics.columns))
        } else {
            let upsert = """
                INSERT INTO metric_hour AS h(\(HourSummaryBuilder.HourStatistics.columns))
                SELECT \(HourSummaryBuilder.HourStatistics.cells) FROM {rows} WHERE true
                \(Self.addedToStored(database.dialect))
                """
            var freshRows: (FreshHours, any RowBatch)?
            if let fresh, let postgres = database as? PostgresDatabase {
                freshRows = (fresh, PostgresRowBatch(database: postgres, columns: HourSummaryBuilder.HourStatistics.cellTypes, sql: upsert,
                                                     straightInto: (fresh.straightInto, Self.hourColumnNames), rowsPerChunk: 4096))
            }
            destination = .upsert(try database.rowBatch(HourSummaryBuilder.HourStatistics.cellTypes, sql: upsert), fresh: freshRows)
        }
    }

    /// What an hour's statistics add to the same hour's stored ones. The columns are named with their
    /// table's (`AS h`): PostgreSQL reads a bare `count` as `excluded`'s or the table's.
    static func addedToStored(_ dialect: SQLDialect) -> String {
        """
        ON CONFLICT(\(dialect.conflictTarget("type_id, unit_id, hour"))) DO UPDATE SET
            count = h.count + excluded.count, sum = h.sum + excluded.sum,
            minimum = \(dialect.least("h.minimum", "excluded.minimum")),
            maximum = \(dialect.greatest("h.maximum", "excluded.maximum")),
            merged_count = h.merged_count + excluded.merged_count, merged_sum = h.merged_sum + excluded.merged_sum,
            merged_minimum = \(dialect.least("h.merged_minimum", "excluded.merged_minimum")),
            merged_maximum = \(dialect.greatest("h.merged_maximum", "excluded.merged_maximum"))
        """
    }

    /// A new row of the type (`typeName` is read only the first time the type is seen).
    func add(typeID: Int64, typeName: @autoclosure () -> ByteText, unit: Int64, source: Int64, start: Int64, end: Int64,
             value: Double, rank: @autoclosure () throws -> Int64) throws {
        if typeID != currentID {
            // Moving on from a type not yet judged: judged now.
            if let previous = current, !previous.dense { judge(currentID, previous) }
            currentID = typeID
            switch types[typeID] {
            case .counted(let type): current = type
            case .rebuilt, .without: current = nil
            case nil:
                // Counted here if the store has no row of it yet, or if its summary is current and
                // its hours' statistics add up: its values do not merge across sources, or its new
                // rows begin after every stored row that counts ends (no stored sample overlaps
                // them: the merge of the new rows alone is theirs; a batch of steps after the last).
                let cumulative = CumulativeTypes.contains(typeName())
                if stored == nil { stored = try StoredTypes(database) }
                if let state = stored!.states[typeID] {
                    if state.summarised == 1 && state.clean && (!cumulative || start >= stored!.end(of: typeID)) {
                        current = TypeHours(cumulative: cumulative)
                        current?.dense = true
                    } else {
                        current = nil
                    }
                } else {
                    current = TypeHours(cumulative: cumulative)
                    current?.spilling = cumulative && spills
                }
                types[typeID] = current.map { .counted($0) } ?? .rebuilt
            }
        }
        guard let type = current else { return }
        // Asked once: a device's name is looked up for it.
        let rowRank = type.cumulative ? try rank() : 0
        if type.spilling {
            try spillRow(typeID, type, MergeSpill.Row(start: start, end: end, source: source, value: value, unit: unit, rank: rowRank))
        }
        if type.mergedLater { return }
        if start < type.lastStart {
            if type.cumulative {
                guard type.spilling else { return leave(typeID) }
                // Counted from the spill after the commit: what was counted here is dropped.
                type.mergedLater = true
                type.hours.hours.removeAll()
                return
            }
            // Written now: the hours to come go back in time, where a search from the end would be slow.
            if type.dense { try write(typeID, type) }
        }
        type.lastStart = start
        let key = HourSummaryBuilder.HourKey(unit: unit, hour: HourSummaryBuilder.hour(of: start))
        if type.hours.add(key, value) {
            type.hourCount += 1
            held += 1
            if held >= Self.heldLimit { try write(waiting: false) }
        }
        type.rows += 1
        if !type.dense && type.rows >= denseCount { type.dense = true }
        if type.cumulative { type.merger.add(start: start, end: end, rank: rowRank, value: value, payload: key, emit: type.addMerged) }
    }

    /// Keeps a counted row of a merged type in the spill. A spill that cannot be written (a full
    /// temporary folder) or a type with too many runs leaves the types it would have counted to the rebuild from
    /// their rows: nothing is lost, the import goes on.
    private func spillRow(_ typeID: Int64, _ type: TypeHours, _ row: MergeSpill.Row) throws {
        do {
            if spill == nil { spill = makeSpill() }
            if try spill!.append(type: typeID, row) { return }
            type.spilling = false
            if type.mergedLater { leave(typeID) }
        } catch is MergeSpill.SpillError {
            spill = nil
            for case let (id, .counted(counted)) in types where counted.spilling {
                counted.spilling = false
                if counted.mergedLater { leave(id) }
            }
        }
    }

    /// The types whose hours are to be counted from the spill after the commit, and the spill; nil
    /// when there are none. Asked once the rows are all in (`finish`).
    var spilledHours: (spill: MergeSpill, types: Set<Int64>)? {
        guard let spill else { return nil }
        let types = Set(types.compactMap { id, fate in if case .counted(let type) = fate, type.mergedLater { id } else { nil } })
        return types.isEmpty ? nil : (spill, types)
    }

    /// A row counted here as new turned out not to count (a bulk load's row decided written twice or
    /// a repeat when the rows were in): taken out of its hour, when its type's values do not merge.
    /// Its twin, which counts, is the same sample in the same hour, so the hour's extremes stay;
    /// its count and sum lose it. False when the type is left to the rebuild instead: its merged
    /// values depend on its neighbours. (The 1 GB export's 11 repeats of heart rate made its 742,039
    /// rows be read again to rebuild its hours: 0.8–0.9 s.)
    func uncount(type typeID: Int64, unit: Int64, start: Int64, value: Double) -> Bool {
        guard case .counted(let type) = types[typeID], !type.cumulative else { return false }
        type.hours.remove(HourSummaryBuilder.HourKey(unit: unit, hour: HourSummaryBuilder.hour(of: start)), value)
        return true
    }

    /// The import committed: what is stored is read again when next asked.
    func committed() { stored = nil }

    /// Leaves the type to the rebuild from its rows (its dirty range stays, and it was never marked
    /// summarised, so the rebuild replaces every hour written here).
    func leave(_ typeID: Int64) {
        types[typeID] = .rebuilt
        if typeID == currentID { current = nil }
    }

    /// Decides whether a type is dense; one that is not gets no summary.
    private func judge(_ typeID: Int64, _ type: TypeHours) {
        // Judged by the rebuild from all its rows: only its first run's are counted here.
        guard !type.mergedLater else { return }
        type.dense = HourSummaryBuilder.isDense(rows: type.rows, hours: type.hourCount, denseCount: denseCount)
        if !type.dense {
            types[typeID] = .without
            if typeID == currentID { current = nil }
        }
    }

    /// Adds the hours counted since the last commit to `metric_hour`, in the open transaction.
    /// `waiting: false` (held hours written between two commits): PostgreSQL adds them while the
    /// import maps its next rows. Waited for here, the mapping stopped for the metric chunk in
    /// flight and then the hours' statement, and PostgreSQL stood idle while it went on (the 1 GB
    /// upload: PostgreSQL busy 0.7 of its time, the import 0.4 of two cores).
    func write(waiting: Bool = true) throws {
        held = 0
        for case let (typeID, .counted(type)) in types where type.dense { try write(typeID, type) }   // others wait for the judgement
        // In the table's order.
        var freshAfter: [Int64: Int64] = [:], latest: [Int64: Int64] = [:]
        for key in pending.keys.sorted() {
            let rows: any RowBatch
            switch destination {
            case .upsert(let upsert, nil): rows = upsert
            case .upsert(let upsert, let fresh?):
                rows = try isFresh(key, fresh.hours, &freshAfter) ? fresh.rows : upsert
                latest[key.type] = max(latest[key.type] ?? .min, key.hour)
            case .bulk(let hours): rows = hours.rows(type: key.type, unit: key.unit, hour: key.hour)
            }
            try pending[key]!.add(to: rows, typeID: key.type, key: HourSummaryBuilder.HourKey(unit: key.unit, hour: key.hour))
        }
        writtenThrough.merge(latest, uniquingKeysWith: max)
        switch destination {
        case .upsert(let upsert, let fresh):
            for rows in [fresh?.rows, upsert].compactMap({ $0 }) { if waiting { try rows.flush() } else { try rows.send() } }
        case .bulk(let hours): try hours.flush(waiting: waiting)
        }
        // Its capacity kept: about `heldLimit` hours (some 1 MB), and growing it afresh after
        // each write was 34 M of the mapping thread's 3,363 M instructions on the 100 MB import.
        pending.removeAll(keepingCapacity: true)
    }

    /// Whether no stored hour, nor one this import wrote before, can be `key`'s (`FreshHours`). The
    /// bound of each type is asked once a write (`freshAfter`).
    private func isFresh(_ key: PendingHour, _ fresh: FreshHours, _ freshAfter: inout [Int64: Int64]) throws -> Bool {
        if freshAfter[key.type] == nil {
            let stored = try fresh.latestStoredStart(key.type).map(HourSummaryBuilder.hour(of:)) ?? .min
            freshAfter[key.type] = max(stored, writtenThrough[key.type] ?? .min)
        }
        return key.hour > freshAfter[key.type]!
    }

    /// Hands the type's hours on to the commit's statement.
    private func write(_ typeID: Int64, _ type: TypeHours) throws {
        for (key, hour) in type.hours.hours {
            pending[PendingHour(type: typeID, unit: key.unit, hour: key.hour), default: HourSummaryBuilder.HourStatistics()].merge(hour)
        }
        // Not keeping the capacity: 35 types' buffers of a commit's hours held 46 MB.
        type.hours.hours.removeAll()
    }

    /// The rows are all in: the merged values still pending are counted, and the types counted
    /// here are written and marked current, in the open (last) transaction.
    func finish() throws {
        for case let (typeID, .counted(type)) in types where !type.mergedLater {
            type.merger.finish(emit: type.addMerged)
            if !type.dense { judge(typeID, type) }
        }
        try write()
        var rebuilt: [Int64: Bool] = [:]
        if let bulk {
            let left = Set(types.compactMap { id, fate in if case .rebuilt = fate { id } else { nil } })
            try bulk.removeHours(of: left)
            rebuilt = try rebuild(left, into: bulk.rebuiltHours(HourSummaryBuilder.HourStatistics.cellTypes,
                                                                   columns: HourSummaryBuilder.HourStatistics.columns))
            try bulk.attachHours(columns: HourSummaryBuilder.HourStatistics.columns, rebuilt: left)
        }
        var current: [Int64] = [], without: [Int64] = []
        for (typeID, fate) in types {
            switch fate {
            case .counted(let type) where type.mergedLater: break   // left dirty: counted from the spill
            case .counted(let type) where type.dense: current.append(typeID)
            case .counted, .without: without.append(typeID)
            case .rebuilt:
                if let dense = rebuilt[typeID] { dense ? current.append(typeID) : without.append(typeID) }
            }
        }
        try mark(current, summarised: 1)
        try mark(without, summarised: -1)
    }

    /// A bulk load's types left to the rebuild from the rows (merged values of sources listed one
    /// after the other, rows decided repeats when the rows were in) are rebuilt now, in its
    /// transaction, from its rows (attached by now: read by their index), into its hour table in
    /// place of what was counted of them here (`hours`). Rebuilt after the commit, a transaction a
    /// type, their hours were deleted and inserted again into the shared table, its key kept up to
    /// date row by row: the 1 GB export's heart rate, steps, distance and active energy, 5.5 s of
    /// the upload's 39 s. Whether each is dense, by type.
    private func rebuild(_ left: Set<Int64>, into hours: any RowBatch) throws -> [Int64: Bool] {
        guard !left.isEmpty else { return [:] }
        let builder = HourSummaryBuilder(database: database, denseCount: denseCount)
        var dense: [Int64: Bool] = [:]
        for type in try builder.dirtyTypes() where left.contains(type.id) {
            let computed = try builder.hours(of: type)
            for (key, hour) in computed.hours { try hour.add(to: hours, typeID: type.id, key: key) }
            dense[type.id] = computed.dense
        }
        try hours.flush()
        return dense
    }

    /// One statement for the types (their ids written in it: integers), not one a type, sent with
    /// the next (`executeWithNext`); on PostgreSQL the ids are an array parameter of a statement
    /// planned once a connection (written in, it was parsed and planned at every received batch).
    private func mark(_ typeIDs: [Int64], summarised: Int) throws {
        if database.dialect == .postgres {
            guard !typeIDs.isEmpty else { return }
            try database.executeWithNext("""
                UPDATE metric_hour_state SET summarised = ?, dirty_from = NULL, dirty_to = NULL WHERE type_id = ANY(?::bigint[])
                """, [.int(Int64(summarised)), .integerArray(typeIDs.sorted())])
            return
        }
        for part in stride(from: 0, to: typeIDs.count, by: 500) {
            let ids = typeIDs[part..<min(part + 500, typeIDs.count)].sorted().map(String.init).joined(separator: ", ")
            try database.executeWithNext("""
                UPDATE metric_hour_state SET summarised = \(summarised), dirty_from = NULL, dirty_to = NULL WHERE type_id IN (\(ids))
                """)
        }
    }
}

/// The stored types' hour summary states (`metric_hour_state`) and the end of each type's last
/// stored sample that counts or repeats one (`metric_summary`), as of one moment of the import.
private struct StoredTypes {
    struct State { var summarised: Int64, clean: Bool }
    var states: [Int64: State] = [:]
    private var ends: [Int64: Int64] = [:]

    /// What `init` reads, in its order.
    static let reads = [
        "SELECT type_id, summarised, CASE WHEN dirty_from IS NULL THEN 1 ELSE 0 END FROM metric_hour_state",
        "SELECT type_id, max(last_end) FROM metric_summary GROUP BY type_id",
    ]

    init(_ database: any StoreDatabase) throws {
        let state = try database.prepare(Self.reads[0])
        while try state.step() { states[state.int64(0)] = State(summarised: state.int64(1), clean: state.int64(2) == 1) }
        let last = try database.prepare(Self.reads[1])
        while try last.step() { ends[last.int64(0)] = last.isNull(1) ? .min : last.int64(1) }
    }

    /// `Int64.min` when the type has no summary row or none has an end: no stored sample that counts
    /// or repeats one overlaps what comes (as the per-type `max(last_end)` answered, one row always).
    func end(of typeID: Int64) -> Int64 { ends[typeID] ?? .min }
}
