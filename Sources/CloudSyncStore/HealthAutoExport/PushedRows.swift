import CloudSyncModel

/// Between the reader and the store's metric sink during a Health Auto Export import: notes what
/// the supersede rule needs of the rows as they are added, so that no row is read back or written
/// twice: the ids of the new summaries (the reader marks a bucket with metadata `aggregation`), and
/// per type the span of the new individual samples that count (those after the export's date).
final class PushedRows: MetricSink {
    private let inner: StoreImportSink
    private let database: SQLiteDatabase
    private let exportDate: Int64
    private(set) var summaryIDs: [Int64] = []
    /// Type name → first and last start of the new individual samples after the export's date.
    private(set) var sampleSpans: [String: (first: Int64, last: Int64)] = [:]
    /// Per type: samples added, and samples the store already had (the push's reply gives them by name).
    private(set) var byType: [String: (new: Int, already: Int)] = [:]
    private var counting: (type: [UInt8], new: Int, already: Int)?
    /// Metrics come grouped by type: the current type's span, flushed when the type changes.
    private var current: (type: [UInt8], first: Int64, last: Int64)?

    init(inner: StoreImportSink, database: SQLiteDatabase, exportDate: Int64?) {
        self.inner = inner
        self.database = database
        self.exportDate = exportDate ?? .min
    }

    func write(_ metric: MappedMetric) throws {
        let before = inner.newCount
        try inner.write(metric)
        let isNew = inner.newCount > before
        if let open = counting, open.type.elementsEqual(metric.type) {
            counting = (open.type, open.new + (isNew ? 1 : 0), open.already + (isNew ? 0 : 1))
        } else {
            flushCounts()
            counting = (Array(metric.type), isNew ? 1 : 0, isNew ? 0 : 1)
        }
        guard isNew else { return }
        if metric.metadata.contains(where: { $0.key.equals("aggregation") }) {
            // The row just inserted (the sink's other inserts go to WITHOUT ROWID tables or name
            // tables it had already filled for this metric).
            summaryIDs.append(database.lastInsertRowID)
        } else if metric.startDate >= exportDate {
            if let open = current, open.type.elementsEqual(metric.type) {
                current = (open.type, min(open.first, metric.startDate), max(open.last, metric.startDate))
            } else {
                flush()
                current = (Array(metric.type), metric.startDate, metric.startDate)
            }
        }
    }

    private func flush() {
        guard let open = current else { return }
        let name = String(decoding: open.type, as: UTF8.self)
        let span = sampleSpans[name]
        sampleSpans[name] = (min(span?.first ?? open.first, open.first), max(span?.last ?? open.last, open.last))
        current = nil
    }

    private func flushCounts() {
        guard let open = counting else { return }
        let name = String(decoding: open.type, as: UTF8.self)
        let counts = byType[name] ?? (0, 0)
        byType[name] = (counts.new + open.new, counts.already + open.already)
        counting = nil
    }

    /// The spans and counts, complete.
    func finishSpans() {
        flush()
        flushCounts()
    }

    func finish() throws {}
    func abandon() throws {}
}
