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

    /// A row added as counted turned out a repeat (`.repeated`), or a sample that was there (nil):
    /// its count moves. Its range stays: a row alike with the same dates is kept.
    mutating func recount(type: Int64, unit: Int64, source: Int64, as state: RowState?) {
        flushCurrent()
        let key = Key(type: type, unit: unit, source: source)
        entries[key, default: Entry()].counted -= 1
        if state == .repeated { entries[key, default: Entry()].repeats += 1 }
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
        var summaryRows: [[Int64?]] = []
        for (key, entry) in entries {
            summaryRows.append([key.type, key.unit, key.source, entry.counted, entry.repeats, entry.superseded,
                                entry.first == .max ? nil : entry.first, entry.last == .min ? nil : entry.last])
            dirty[key.type, default: Entry()].merge(entry)
        }
        try statements.addToSummary(summaryRows)
        try statements.markHoursDirty(dirty.map { [$0.key, $0.value.longest, $0.value.spanFirst, $0.value.spanLast] })
        entries.removeAll(keepingCapacity: true)
    }

    /// The counts since the last commit are gone with the rolled-back transaction.
    mutating func discard() {
        current = nil
        entries.removeAll()
    }

    /// The same statements on either engine; where the engines' words differ, `SQLDialect` says them.
    /// Each writes all its rows at once, their values (integers) written in it: a statement a row
    /// was a round trip a row on PostgreSQL, where a received batch of 1,000 metrics is an import
    /// of its own (31 statements a batch, 5,200 of a 166,056-metric upload's 25,000). Nothing is read
    /// back: they go with the transaction's next statement (`executeWithNext`).
    struct Statements {
        private let database: any StoreDatabase
        private let summary, hoursDirty: (head: String, tail: String)

        init(_ database: some StoreDatabase) throws {
            self.database = database
            let sql = database.dialect
            summary = ("INSERT INTO metric_summary(type_id, unit_id, source_id, count, repeats, superseded, first_start, last_end) VALUES", """
                ON CONFLICT(\(sql.conflictTarget("type_id, unit_id, source_id"))) DO UPDATE SET
                    count = metric_summary.count + excluded.count, repeats = metric_summary.repeats + excluded.repeats,
                    superseded = metric_summary.superseded + excluded.superseded,
                    first_start = \(sql.least("metric_summary.first_start", "excluded.first_start")),
                    last_end = \(sql.greatest("metric_summary.last_end", "excluded.last_end"))
                """)
            hoursDirty = ("INSERT INTO metric_hour_state(type_id, longest, dirty_from, dirty_to) VALUES", """
                ON CONFLICT(\(sql.conflictTarget("type_id"))) DO UPDATE SET
                    longest = \(sql.greatest("metric_hour_state.longest", "excluded.longest")),
                    dirty_from = \(sql.least("metric_hour_state.dirty_from", "excluded.dirty_from")),
                    dirty_to = \(sql.greatest("metric_hour_state.dirty_to", "excluded.dirty_to"))
                """)
        }

        func addToSummary(_ rows: [[Int64?]]) throws { try run(summary, rows) }
        func markHoursDirty(_ rows: [[Int64?]]) throws { try run(hoursDirty, rows) }

        /// One key appears once among the rows (PostgreSQL's upsert refuses a key twice in a
        /// statement): they come from a dictionary. On SQLite, `head (…), (…) tail`, 500 rows a
        /// statement at most. On PostgreSQL each column an array (`unnest`) of a statement prepared
        /// once a connection: written in, the two statements were parsed, analysed and planned at
        /// every received batch (95 ms of PostgreSQL's CPU for the 166 batches of
        /// `Benchmarks/receiver-ab.sh`, `log_parser_stats` and `log_planner_stats`).
        private func run(_ statement: (head: String, tail: String), _ rows: [[Int64?]]) throws {
            if database.dialect == .postgres {
                guard let width = rows.first?.count else { return }
                let head = statement.head.dropLast(" VALUES".count)
                let columns = Array(repeating: "?::bigint[]", count: width).joined(separator: ", ")
                try database.executeWithNext("\(head) SELECT * FROM unnest(\(columns))\n\(statement.tail)",
                                             (0..<width).map { column in .integerArray(rows.map { $0[column] }) })
                return
            }
            for part in stride(from: 0, to: rows.count, by: 500) {
                let values = rows[part..<min(part + 500, rows.count)].map { row in
                    "(" + row.map { $0.map(String.init) ?? "NULL" }.joined(separator: ", ") + ")"
                }
                try database.executeWithNext(statement.head + " " + values.joined(separator: ", ") + "\n" + statement.tail)
            }
        }
    }
}
