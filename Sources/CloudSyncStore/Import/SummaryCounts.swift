/// What an import's new rows add to `metric_summary` (per type, unit and source: the rows that
/// count, the repeats, the superseded ones, and the range of those not superseded) and to the hour
/// summary's dirty ranges, counted in memory as the rows are inserted and written at each commit in
/// the transaction that adds them. A row's state is decided when it is inserted, so this is the
/// only place its counts are added; a row whose flags change later is moved by the schema's
/// trigger (`metric_counting`, docs/store.md "What counts").
struct SummaryCounts {
    enum RowState { case counted, repeated, superseded }

    private struct Key: Hashable { var type, unit, source: Int64 }

    private struct Entry {
        var counted: Int64 = 0, repeats: Int64 = 0, superseded: Int64 = 0
        /// The range of the rows not superseded (what counts, and its repeats).
        var first = Int64.max, last = Int64.min
        /// Every new row's span, and the longest: the hours these rows may change.
        var spanFirst = Int64.max, spanLast = Int64.min, longest: Int64 = 0

        mutating func add(_ state: RowState, start: Int64, end: Int64) {
            switch state {
            case .counted: counted += 1
            case .repeated: repeats += 1
            case .superseded: superseded += 1
            }
            if state != .superseded {
                first = min(first, start)
                last = max(last, end)
            }
            spanFirst = min(spanFirst, start)
            spanLast = max(spanLast, end)
            longest = max(longest, end - start)
        }

        mutating func merge(_ other: Entry) {
            counted += other.counted
            repeats += other.repeats
            superseded += other.superseded
            first = min(first, other.first)
            last = max(last, other.last)
            spanFirst = min(spanFirst, other.spanFirst)
            spanLast = max(spanLast, other.spanLast)
            longest = max(longest, other.longest)
        }
    }

    /// Records come grouped by type and source: the current key's entry is kept apart, and the
    /// dictionary touched when the key changes, not once per row.
    private var current: (key: Key, entry: Entry)?
    private var entries: [Key: Entry] = [:]

    mutating func add(type: Int64, unit: Int64, source: Int64, _ state: RowState, start: Int64, end: Int64) {
        let key = Key(type: type, unit: unit, source: source)
        if current?.key != key {
            flushCurrent()
            current = (key, Entry())
        }
        current!.entry.add(state, start: start, end: end)
    }

    private mutating func flushCurrent() {
        guard let (key, entry) = current else { return }
        entries[key, default: Entry()].merge(entry)
        current = nil
    }

    /// Adds the counts to `metric_summary` and widens the types' dirty hours, in the open transaction.
    mutating func write(using statements: Statements) throws {
        flushCurrent()
        var dirty: [Int64: Entry] = [:]
        for (key, entry) in entries {
            try statements.addToSummary.run([.int(key.type), .int(key.unit), .int(key.source), .int(entry.counted), .int(entry.repeats),
                                             .int(entry.superseded), entry.first == .max ? .null : .int(entry.first),
                                             entry.last == .min ? .null : .int(entry.last)])
            dirty[key.type, default: Entry()].merge(entry)
        }
        for (type, entry) in dirty {
            try statements.markHoursDirty.run([.int(type), .int(entry.longest), .int(entry.spanFirst), .int(entry.spanLast)])
        }
        entries.removeAll(keepingCapacity: true)
    }

    /// The counts since the last commit are gone with the rolled-back transaction.
    mutating func discard() {
        current = nil
        entries.removeAll()
    }

    /// The same statements on either engine; where the engines' words differ, `SQLDialect` says them.
    struct Statements {
        let addToSummary, markHoursDirty: any StoreStatement

        init(_ database: some StoreDatabase) throws {
            let sql = database.dialect
            addToSummary = try database.prepare("""
                INSERT INTO metric_summary(type_id, unit_id, source_id, count, repeats, superseded, first_start, last_end)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                ON CONFLICT(\(sql.conflictTarget("type_id, unit_id, source_id"))) DO UPDATE SET
                    count = metric_summary.count + excluded.count, repeats = metric_summary.repeats + excluded.repeats,
                    superseded = metric_summary.superseded + excluded.superseded,
                    first_start = \(sql.least("metric_summary.first_start", "excluded.first_start")),
                    last_end = \(sql.greatest("metric_summary.last_end", "excluded.last_end"))
                """)
            markHoursDirty = try database.prepare("""
                INSERT INTO metric_hour_state(type_id, longest, dirty_from, dirty_to) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT(\(sql.conflictTarget("type_id"))) DO UPDATE SET
                    longest = \(sql.greatest("metric_hour_state.longest", "excluded.longest")),
                    dirty_from = \(sql.least("metric_hour_state.dirty_from", "excluded.dirty_from")),
                    dirty_to = \(sql.greatest("metric_hour_state.dirty_to", "excluded.dirty_to"))
                """)
        }
    }
}
