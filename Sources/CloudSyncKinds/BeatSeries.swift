public import CloudSyncExport
public import CloudSyncModel
public import CloudSyncStore

/// Beat series: the beat-to-beat lists of export.xml's HRV records. Kept one row per series, the
/// beats as little-endian pairs of int64 milliseconds and int64 bpm; the key is the record's type,
/// dates and source.
extension BeatSeriesKind: ArchiveRecordKind {
    public static func makeReader() -> any KindReader<BeatSeriesKind> { BeatSeriesReader() }

    public static let tableVersions = ["""
        CREATE TABLE IF NOT EXISTS beat_series (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, type TEXT NOT NULL, start_date INTEGER NOT NULL,
            end_date INTEGER NOT NULL, source_app TEXT NOT NULL, value REAL, beat_count INTEGER NOT NULL, beats BLOB NOT NULL,
            import_id INTEGER NOT NULL REFERENCES import_run(id));
        """]

    public static func insert(_ series: BeatSeries, into rows: KindRows) throws -> Bool {
        let insert = try rows.statement("""
            INSERT INTO beat_series(key, type, start_date, end_date, source_app, value, beat_count, beats, import_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """)
        try insert.bind(1, "\(series.type)|\(series.startDate)|\(series.endDate)|\(series.sourceApp)")
        try insert.bind(2, series.type)
        try insert.bind(3, series.startDate)
        try insert.bind(4, series.endDate)
        try insert.bind(5, series.sourceApp)
        try insert.bind(6, series.value)
        try insert.bind(7, Int64(series.beats.count))
        try StoredWords.encoded(count: series.beats.count * 2, word: { i in
            let beat = series.beats[i / 2]
            return i % 2 == 0 ? UInt64(bitPattern: beat.time) : UInt64(beat.bpm)
        }) { try insert.bind(8, blob: $0) }
        try insert.bind(9, rows.runID)
        try insert.step()
        return rows.database.changes > 0
    }

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (BeatSeries) throws -> Void) throws {
        let select = try rows.statement("SELECT type, start_date, end_date, source_app, value, beats FROM beat_series ORDER BY id")
        while try select.step() {
            guard filter.acceptsDate(select.int64(1)) else { continue }
            let words = StoredWords.decoded(select.blob(5))
            let beats = stride(from: 0, to: words.count - 1, by: 2).map { Beat(time: Int64(bitPattern: words[$0]), bpm: Int(words[$0 + 1])) }
            try body(BeatSeries(type: select.text(0) ?? "", startDate: select.int64(1), endDate: select.int64(2),
                                sourceApp: select.text(3) ?? "", value: select.optionalDouble(4), beats: beats))
        }
    }

    public static func count(in rows: KindRows) throws -> RecordCount {
        let count = try rows.statement("SELECT count(*), coalesce(sum(beat_count), 0) FROM beat_series")
        _ = try count.step()
        return RecordCount(records: Int(count.int64(0)), parts: Int(count.int64(1)))
    }
}

/// One run's reading of beat series: the HRV records that hold a beat list.
final class BeatSeriesReader: KindReader {
    typealias Kind = BeatSeriesKind
    private var skipped = 0

    var elements: Set<ElementName> { [.record] }

    func read(element tree: ElementTree, _ emit: (BeatSeries) throws -> Void) throws {
        // Cheap first: only a record with a beat list becomes a series (export.xml has millions of records).
        guard tree.nodes.count > 1, tree.nodes.contains(where: { $0.name == .heartRateVariabilityMetadataList }),
              let (series, skippedBeats) = BeatTimes.series(tree) else { return }
        skipped += skippedBeats
        try emit(series)
    }

    var notes: [String] {
        skipped == 0 ? [] : ["\(counted(skipped, "beat")) skipped: a time or bpm that does not parse"]
    }
}
