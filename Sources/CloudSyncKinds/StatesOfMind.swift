public import CloudSyncExport
public import CloudSyncModel
public import CloudSyncStore
import Foundation

/// State of Mind: Health Auto Export's `stateOfMind` array. export.xml holds none (Apple's exporter
/// writes no `HKStateOfMind`, through iOS 26). Kept one row per entry as the JSON line `convert`
/// writes; the key is the app's id (else the kind and moment).
extension StateOfMindKind: ArchiveRecordKind {
    public static func makeReader() -> any KindReader<StateOfMindKind> { NoArchiveRecords() }

    public static let tableVersions = ["""
        CREATE TABLE IF NOT EXISTS state_of_mind (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, start_date INTEGER NOT NULL, line TEXT NOT NULL,
            import_id INTEGER NOT NULL REFERENCES import_run(id));
        """]

    static let lines = StoredLines(table: "state_of_mind", dateColumn: "start_date")

    public static func insert(_ entry: StateOfMind, into rows: KindRows) throws -> Bool {
        var line = ByteBuffer(capacity: 512)
        appendJSONLines(entry, to: &line)
        return try rows.insertLine(line, key: entry.key, date: entry.start, into: lines)
    }

    /// Kept as its JSON line: `export --kind … --format jsonl` writes it as stored.
    public static var storedLines: StoredLines? { lines }

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (StateOfMind) throws -> Void) throws {
        try rows.forEachRecord(lines, filter: filter, decode: record(line:), body)
    }

    public static func count(in rows: KindRows) throws -> RecordCount { try rows.count(lines) }

    /// A stored line read back (the metadata's order kept).
    static func record(line: String) -> StateOfMind? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let start = (object["start"] as? String)?.epochSeconds,
              let metadata = OrderedJSON.member("metadata", in: line).flatMap(OrderedJSON.stringPairs) else { return nil }
        return StateOfMind(id: object["id"] as? String, start: start, end: (object["end"] as? String)?.epochSeconds,
                           kind: object["kind"] as? String, valence: (object["valence"] as? NSNumber)?.doubleValue,
                           classification: object["classification"] as? String, labels: object["labels"] as? [String] ?? [],
                           associations: object["associations"] as? [String] ?? [], metadata: metadata)
    }
}
