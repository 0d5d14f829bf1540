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

    public static func insert(_ entry: StateOfMind, into rows: KindRows) throws -> Bool {
        var line = ByteBuffer(capacity: 512)
        appendJSONLines(entry, to: &line)
        let insert = try rows.statement("INSERT OR IGNORE INTO state_of_mind(key, start_date, line, import_id) VALUES (?, ?, ?, ?)")
        try insert.bind(1, entry.key)
        try insert.bind(2, entry.start)
        try line.withBytes { try insert.bind(3, bytes: $0.slice(0..<($0.count - 1))) }   // without its newline
        try insert.bind(4, rows.runID)
        try insert.step()
        return rows.database.changes > 0
    }

    /// Kept as its JSON line: `export --kind … --format jsonl` writes it as stored.
    public static let storedLines: StoredLines? = StoredLines(table: "state_of_mind", dateColumn: "start_date")

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (StateOfMind) throws -> Void) throws {
        let select = try rows.statement("SELECT start_date, line FROM state_of_mind ORDER BY id")
        while try select.step() {
            guard filter.acceptsDate(select.int64(0)), let entry = record(line: select.text(1) ?? "") else { continue }
            try body(entry)
        }
    }

    public static func count(in rows: KindRows) throws -> RecordCount {
        let count = try rows.statement("SELECT count(*) FROM state_of_mind")
        _ = try count.step()
        return RecordCount(records: Int(count.int64(0)), parts: 0)
    }

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
