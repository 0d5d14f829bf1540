import CloudSyncModel

/// Each moment counted once between the two sources (docs/store.md, "Two sources"):
/// - an export is the truth for every moment before its `ExportDate`: a pushed row that starts
///   before the latest export's date is kept, marked superseded (1), and not counted;
/// - after it, pushed individual samples count;
/// - a pushed summary (a bucket, `metric.summary`) counts only where no counted individual sample of
///   its type starts in its interval (2), and only its latest push counts when the same bucket comes
///   again with another value, as a day in progress does (3).
/// - a summarised night of sleep is not a bucket of amounts that samples add up to: it is one more
///   measure of a night, which the night's rule weighs against the others (`SleepNightRule`: the
///   larger counts). Segments of sleep inside it do not supersede it (2); it is superseded only by an
///   export (1) and by the same night pushed again (3).
///
/// A pushed row gets its flag when it is inserted (`state(ofPushed:…)`); what it changes of older
/// rows (a bucket pushed again, summaries with this push's samples in them) is written in the same
/// transaction, and an export moves the pushed rows before its date once it is committed
/// (`applyExportDate`, only when the store has pushed rows). The counts follow the flags through
/// the schema's trigger; readers see only `counted_metric` (docs/store.md, "What counts").
final class SupersedeRule {
    private let database: any StoreDatabase
    /// The latest export's date when the import began (nil: no export yet).
    let exportDate: Int64?
    private let replaceBucket, isCovered, coverOlderSummaries: any StoreStatement
    /// Per type: the first and last start of the counted individual samples this import added.
    private var sampleSpans: [Int64: (first: Int64, last: Int64)] = [:]
    private var currentSpan: (type: Int64, first: Int64, last: Int64)?

    /// The type whose summaries are nights, not buckets (`SleepNightRule` weighs them).
    static let sleepType: StaticString = "HKCategoryTypeIdentifierSleepAnalysis"

    /// The longest bucket (a year and a day): how far before an instant a summary covering it may start.
    static let longestBucket: Int64 = 367 * 86_400

    /// An individual sample that counts, of the summary's type, starting in its interval.
    private static let covered = """
        EXISTS (SELECT 1 FROM counted_metric s WHERE s.type_id = metric.type_id AND s.start_date >= metric.start_date
                AND s.start_date < metric.end_date AND s.summary = 0)
        """

    init(database: any StoreDatabase) throws {
        self.database = database
        exportDate = try Self.exportDate(in: database)
        replaceBucket = try database.prepare("""
            UPDATE metric SET superseded = 3
            WHERE type_id = ?1 AND start_date = ?2 AND summary = 1 AND end_date = ?3 AND source_id = ?4 AND category_id = ?5
              AND superseded IN (0, 2)
            RETURNING type_id
            """)
        isCovered = try database.prepare("""
            SELECT 1 FROM counted_metric s WHERE s.type_id = ?1 AND s.start_date >= ?2 AND s.start_date < ?3 AND s.summary = 0 LIMIT 1
            """)
        coverOlderSummaries = try database.prepare("""
            UPDATE metric SET superseded = 2
            WHERE type_id = ?1 AND summary = 1 AND start_date > ?2 - \(Self.longestBucket) AND start_date <= ?3 AND end_date > ?2
              AND superseded = 0 AND \(Self.covered)
            RETURNING id
            """)
    }

    /// The latest ExportDate of the exports imported, as seconds (nil: no export yet).
    static func exportDate(in database: any StoreDatabase) throws -> Int64? {
        let dates = try database.prepare("SELECT DISTINCT export_date FROM import_run WHERE outcome = 'ok' AND export_date IS NOT NULL")
        var latest: Int64?
        while try dates.step() {
            if let date = InputFacts(exportDate: dates.text(0)).exportInstant { latest = max(latest ?? date, date) }
        }
        return latest
    }

    /// Why a pushed row about to be inserted does not count (0: it counts). A summary first makes
    /// an older push of the same bucket stop counting (3); `changed` is told the types of rows
    /// whose flags changed.
    func state(ofPushed metric: MappedMetric, type: Int64, source: Int64, category: Int64, changed: (Int64) -> Void) throws -> Int64 {
        if let exportDate, metric.startDate < exportDate { return 1 }
        let isSleep = metric.type.equals(Self.sleepType)
        guard metric.isSummary else {
            if !isSleep { noteSample(type: type, start: metric.startDate) }
            return 0
        }
        try replaceBucket.bind([.int(type), .int(metric.startDate), .int(metric.endDate), .int(source), .int(category)])
        while try replaceBucket.step() { changed(replaceBucket.int64(0)) }
        replaceBucket.reset()
        if isSleep { return 0 }
        defer { isCovered.reset() }
        try isCovered.bind([.int(type), .int(metric.startDate), .int(metric.endDate)])
        return try isCovered.step() ? 2 : 0
    }

    /// A counted individual sample: older summaries of its type around it stop counting at the end.
    private func noteSample(type: Int64, start: Int64) {
        if let span = currentSpan, span.type == type {
            currentSpan = (type, min(span.first, start), max(span.last, start))
            return
        }
        flushSpan()
        currentSpan = (type, start, start)
    }

    private func flushSpan() {
        guard let span = currentSpan else { return }
        let known = sampleSpans[span.type] ?? (span.first, span.last)
        sampleSpans[span.type] = (min(known.first, span.first), max(known.last, span.last))
        currentSpan = nil
    }

    /// The summaries (older ones, and this import's own that came before its samples) in which a
    /// sample of this import now counts: marked 2, in the open transaction. Returns how many of
    /// them are rows above `storedBefore` (this import's).
    func coverSummaries(storedBefore: Int64) throws -> Int {
        flushSpan()
        var ownRows = 0
        for (type, span) in sampleSpans {
            try coverOlderSummaries.bind([.int(type), .int(span.first), .int(span.last)])
            while try coverOlderSummaries.step() {
                if coverOlderSummaries.int64(0) > storedBefore { ownRows += 1 }
            }
            coverOlderSummaries.reset()
        }
        sampleSpans.removeAll()
        return ownRows
    }

    /// After an export import, when the store has pushed rows: those before the latest export's date
    /// no longer count. One transaction; the trigger moves their counts and marks their hours.
    /// Whether there were pushed rows to look at (false: nothing changed).
    @discardableResult
    static func applyExportDate(in database: any StoreDatabase) throws -> Bool {
        guard try database.scalarInt("SELECT EXISTS (SELECT 1 FROM metric WHERE origin = 1)") == 1,
              let exportDate = try exportDate(in: database) else { return false }
        try database.transaction {
            try database.prepare("UPDATE metric SET superseded = 1 WHERE origin = 1 AND start_date < ? AND superseded != 1")
                .run([.int(exportDate)])
            try CountedRows.refreshStaleRanges(in: database)
        }
        return true
    }
}
