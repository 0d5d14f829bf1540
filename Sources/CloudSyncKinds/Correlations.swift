public import CloudSyncExport
public import CloudSyncModel
public import CloudSyncStore
import Foundation

/// Correlations: export.xml's `Correlation`s (blood pressure pairs, food entries) with their members'
/// values. Kept one row per correlation, as the JSON line `convert` writes; the key is the type,
/// dates, source and members.
extension CorrelationKind: ArchiveRecordKind {
    public static func makeReader() -> any KindReader<CorrelationKind> { CorrelationReader() }

    public static let tableVersions = ["""
        CREATE TABLE IF NOT EXISTS correlation (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, type TEXT NOT NULL, start_date INTEGER NOT NULL,
            end_date INTEGER NOT NULL, source_app TEXT NOT NULL, line TEXT NOT NULL, import_id INTEGER NOT NULL REFERENCES import_run(id));
        """]

    public static func insert(_ correlation: CorrelationRecord, into rows: KindRows) throws -> Bool {
        var line = ByteBuffer(capacity: 1024)
        appendJSONLines(correlation, to: &line)
        let members = correlation.members.map { "\($0.type)=\($0.value)\($0.unit)" }.joined(separator: ",")
        let insert = try rows.statement("""
            INSERT INTO correlation(key, type, start_date, end_date, source_app, line, import_id) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """)
        try insert.bind(1, "\(correlation.type)|\(correlation.startDate)|\(correlation.endDate)|\(correlation.sourceApp)|\(members)")
        try insert.bind(2, correlation.type)
        try insert.bind(3, correlation.startDate)
        try insert.bind(4, correlation.endDate)
        try insert.bind(5, correlation.sourceApp)
        try line.withBytes { try insert.bind(6, bytes: $0.slice(0..<($0.count - 1))) }   // without its newline
        try insert.bind(7, rows.runID)
        try insert.step()
        return rows.database.changes > 0
    }

    /// Kept as its JSON line: `export --kind … --format jsonl` writes it as stored.
    static let lines = StoredLines(table: "correlation", dateColumn: "start_date")
    public static var storedLines: StoredLines? { lines }

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (CorrelationRecord) throws -> Void) throws {
        try rows.forEachRecord(lines, filter: filter, decode: record(line:), body)
    }

    public static func count(in rows: KindRows) throws -> RecordCount {
        // The members are in each stored line (`"members":[…]`), as `inspect` and `convert` count them.
        let count = try rows.statement("SELECT count(*), coalesce(sum(\(rows.database.dialect.jsonArrayLength("line", key: "members"))), 0) FROM correlation")
        _ = try count.step()
        return RecordCount(records: Int(count.int64(0)), parts: Int(count.int64(1)))
    }

    /// A stored line read back (the members' order and the metadata's are kept).
    static func record(line: String) -> CorrelationRecord? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let type = object["type"] as? String, let start = (object["startDate"] as? String)?.epochSeconds,
              let end = (object["endDate"] as? String)?.epochSeconds, let members = object["members"] as? [[String: Any]],
              let metadataText = OrderedJSON.member("metadata", in: line), let metadata = OrderedJSON.stringPairs(metadataText) else { return nil }
        return CorrelationRecord(type: type, startDate: start, endDate: end, sourceApp: object["sourceApp"] as? String ?? "",
                                 metadata: metadata, members: members.map {
                                     .init(type: $0["type"] as? String ?? "", value: ($0["value"] as? NSNumber)?.doubleValue ?? .nan,
                                           unit: $0["unit"] as? String ?? "")
                                 })
    }
}

/// One run's reading of correlations.
final class CorrelationReader: KindReader {
    typealias Kind = CorrelationKind
    private var withoutMembers = 0

    var elements: Set<ElementName> { [.correlation] }

    func read(element tree: ElementTree, _ emit: (CorrelationRecord) throws -> Void) throws {
        guard case .correlation(let element) = ExportElement(tree) else { return }
        guard let correlation = CorrelationMembers.record(element) else {
            withoutMembers += 1
            return
        }
        try emit(correlation)
    }

    var notes: [String] {
        withoutMembers == 0 ? [] : ["\(counted(withoutMembers, "correlation")) without a member with a value skipped"]
    }
}
