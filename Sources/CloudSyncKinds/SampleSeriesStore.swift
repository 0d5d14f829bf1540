public import CloudSyncExport
public import CloudSyncModel
public import CloudSyncStore
import Foundation

/// Sample series kept with what they belong to: Health Auto Export's workout series and the heart
/// rates of its heart-rate notifications. export.xml holds none (its workouts' samples are records of
/// their own). Kept one row per series as the JSON line `convert` writes, unless the same samples are
/// in the store: a series whose every moment has a counted sample of its type (not a summary) already
/// repeats them (a file with "Summarize Data" off), and is not kept again (docs/mapping.md, "Workout
/// series"). Its document's own metrics are written before it (the reader hands series over last).
extension SampleSeriesKind: ArchiveRecordKind {
    public static func makeReader() -> any KindReader<SampleSeriesKind> { NoArchiveRecords() }

    public static let tableVersions = ["""
        CREATE TABLE IF NOT EXISTS sample_series (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, owner_start INTEGER NOT NULL, point_count INTEGER NOT NULL,
            line TEXT NOT NULL, import_id INTEGER NOT NULL REFERENCES import_run(id));
        """]

    public static func insert(_ series: SampleSeries, into rows: KindRows) throws -> Bool {
        if try repeatsStoredSamples(series, in: rows) { return false }
        var line = ByteBuffer(capacity: 256 + 64 * series.points.count)
        appendJSONLines(series, to: &line)
        return try rows.insertLine(line, key: series.key, date: series.ownerStart, parts: series.points.count, into: lines)
    }

    static let lines = StoredLines(table: "sample_series", dateColumn: "owner_start", partsColumn: "point_count")

    /// Whether every point's moment has a counted individual sample of the series' type.
    static func repeatsStoredSamples(_ series: SampleSeries, in rows: KindRows) throws -> Bool {
        guard let type = series.type, !series.points.isEmpty else { return false }
        let typeID = try rows.statement("SELECT id FROM metric_type WHERE name = ?")
        try typeID.bind(1, type)
        guard try typeID.step() else { return false }
        let id = typeID.int64(0)
        typeID.reset()
        let sample = try rows.statement("SELECT 1 FROM counted_metric WHERE type_id = ? AND start_date = ? AND summary = 0 LIMIT 1")
        defer { sample.reset() }
        for point in series.points {
            sample.reset()
            try sample.bind(1, id)
            try sample.bind(2, point.time)
            guard try sample.step() else { return false }
        }
        return true
    }

    /// Kept as its JSON line: `export --kind … --format jsonl` writes it as stored.
    public static var storedLines: StoredLines? { lines }

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (SampleSeries) throws -> Void) throws {
        try rows.forEachRecord(lines, filter: filter, decode: record(line:), body)
    }

    public static func count(in rows: KindRows) throws -> RecordCount { try rows.count(lines) }

    /// A stored line read back.
    static func record(line: String) -> SampleSeries? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let owner = object["owner"] as? String, let name = object["name"] as? String,
              let start = (object["ownerStart"] as? String)?.epochSeconds, let end = (object["ownerEnd"] as? String)?.epochSeconds,
              let points = object["points"] as? [[String: Any]] else { return nil }
        return SampleSeries(owner: owner, ownerName: object["ownerName"] as? String, ownerStart: start, ownerEnd: end, name: name,
                            type: object["type"] as? String, unit: object["unit"] as? String, source: object["source"] as? String,
                            points: points.compactMap { point in
                                guard let time = (point["time"] as? String)?.epochSeconds,
                                      let value = (point["value"] as? NSNumber)?.doubleValue else { return nil }
                                return .init(time: time, value: value, minimum: (point["minimum"] as? NSNumber)?.doubleValue,
                                             maximum: (point["maximum"] as? NSNumber)?.doubleValue)
                            })
    }
}
