import CloudSyncModel

/// Each moment counted once between the two sources (docs/store.md, "Two sources"):
/// - an export is the truth for every moment before its `ExportDate`: a pushed row that starts
///   before the latest export's date is kept, marked superseded (1), and not counted;
/// - after it, pushed individual samples count;
/// - a pushed summary (a bucket, `metric.summary`) counts only where no counted individual sample of
///   its type starts in its interval (2), and only its latest push counts when the same bucket comes
///   again with another value, as a day in progress does (3).
///
/// Applied to the rows an import adds, in its transaction, and to all pushed rows when an export
/// moves the date. Queries leave out `superseded != 0` with the repeats (`MetricConditions.countedOnce`).
struct SupersedeRule {
    let database: SQLiteDatabase

    /// The latest ExportDate of the exports imported, as seconds (nil: no export yet).
    func exportDate() throws -> Int64? {
        let dates = try database.prepare("SELECT DISTINCT export_date FROM import_run WHERE outcome = 'ok' AND export_date IS NOT NULL")
        var latest: Int64?
        while try dates.step() {
            if let text = dates.text(0), let date = ImportSession.instant(text) { latest = max(latest ?? date, date) }
        }
        return latest
    }

    /// An individual sample that counts, of the summary's type, starting in its interval.
    private static let covered = """
        EXISTS (SELECT 1 FROM metric s WHERE s.type_id = metric.type_id AND s.start_date >= metric.start_date
                AND s.start_date < metric.end_date AND s.summary = 0 AND s.is_repeat = 0 AND s.superseded = 0)
        """

    /// Applies the rule to the rows above `storedBefore` (this import's) and to the older
    /// summaries they affect. Returns how many of this import's rows do not count.
    @discardableResult
    func apply(after storedBefore: Int64, rows: PushedRows, exportDate: Int64?) throws -> Int {
        var changed = Set<Int64>()
        func collect(_ statement: SQLiteStatement) throws {
            while try statement.step() { changed.insert(statement.int64(0)) }
            statement.reset()
        }
        let markSummary = try database.prepare("UPDATE metric SET summary = 1 WHERE id = ?")
        for id in rows.summaryIDs { try markSummary.run([.int(id)]) }
        var superseded = 0
        if let exportDate {
            let before = try database.prepare("UPDATE metric SET superseded = 1 WHERE id > ? AND start_date < ? RETURNING type_id")
            try before.bind([.int(storedBefore), .int(exportDate)])
            while try before.step() {
                changed.insert(before.int64(0))
                superseded += 1
            }
        }
        // Each new summary: an older push of the same bucket (type, source, interval, category) no
        // longer counts; the new one counts unless an individual sample falls in it.
        let replaced = try database.prepare("""
            UPDATE metric SET superseded = 3 WHERE superseded IN (0, 2) AND id IN (
                SELECT o.id FROM metric n JOIN metric o
                  ON o.type_id = n.type_id AND o.start_date = n.start_date AND o.summary = 1 AND o.end_date = n.end_date
                 AND o.source_id = n.source_id AND o.category_id = n.category_id AND o.id < n.id
                WHERE n.id = ?1)
            RETURNING type_id
            """)
        let coveredSummary = try database.prepare("UPDATE metric SET superseded = 2 WHERE id = ? AND superseded = 0 AND \(Self.covered) RETURNING type_id")
        for id in rows.summaryIDs {
            try replaced.bind([.int(id)])
            try collect(replaced)
            try coveredSummary.bind([.int(id)])
            while try coveredSummary.step() {
                changed.insert(coveredSummary.int64(0))
                superseded += 1
            }
            coveredSummary.reset()
        }
        // Older summaries around this import's individual samples.
        rows.finishSpans()
        let olderSummaries = try database.prepare("""
            UPDATE metric SET superseded = 2
            WHERE type_id = ?1 AND summary = 1 AND start_date > ?2 - \(Self.longestBucket) AND start_date <= ?3 AND end_date > ?2
              AND id <= ?4 AND superseded = 0 AND \(Self.covered)
            RETURNING type_id
            """)
        for (type, span) in rows.sampleSpans {
            guard let typeID = try database.scalarInt("SELECT id FROM metric_type WHERE name = ?", [.text(type)]) else { continue }
            try olderSummaries.bind([.int(typeID), .int(span.first), .int(span.last), .int(storedBefore)])
            try collect(olderSummaries)
        }
        try remember(changed)
        return superseded
    }

    /// After an export import: the pushed rows before its date no longer count.
    func applyExportDate() throws {
        guard let exportDate = try exportDate() else { return }
        try database.transaction {
            var pushes: [(Int64, Int64)] = []
            let ranges = try database.prepare("SELECT first_metric_id, last_metric_id FROM hae_push WHERE first_metric_id IS NOT NULL")
            while try ranges.step() { pushes.append((ranges.int64(0), ranges.int64(1))) }
            let before = try database.prepare("""
                UPDATE metric SET superseded = 1 WHERE id BETWEEN ? AND ? AND start_date < ? AND superseded != 1 RETURNING type_id
                """)
            var types = Set<Int64>()
            for (first, last) in pushes {
                try before.bind([.int(first), .int(last), .int(exportDate)])
                while try before.step() { types.insert(before.int64(0)) }
                before.reset()
            }
            try remember(types)
        }
        try leaveHourSummaryOfSupersededTypes()
    }

    /// The longest bucket (a year and a day): how far before an instant a summary covering it may start.
    static let longestBucket: Int64 = 367 * 86_400

    private func remember(_ types: Set<Int64>) throws {
        let insert = try database.prepare("INSERT OR IGNORE INTO superseded_type(type_id) VALUES (?)")
        for type in types { try insert.run([.int(type)]) }
    }

    /// The hour summary counts every row of a type without repeats from the index alone
    /// (`HourSummaryBuilder`); a type with rows that do not count is read from its rows instead,
    /// which know what counts. Idempotent; run after every import's commit.
    func leaveHourSummaryOfSupersededTypes() throws {
        try database.transaction {
            try database.execute("""
                UPDATE metric_hour_state SET summarised = -1, dirty_from = NULL, dirty_to = NULL
                    WHERE type_id IN (SELECT type_id FROM superseded_type) AND summarised != -1;
                DELETE FROM metric_hour WHERE type_id IN (SELECT type_id FROM superseded_type);
                """)
        }
    }
}
