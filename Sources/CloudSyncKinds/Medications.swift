public import CloudSyncExport
public import CloudSyncModel
public import CloudSyncStore
import Foundation

/// Medication doses: Health Auto Export's `medications` array (HealthKit's dose events). export.xml
/// holds none (its Export Version 14 has no element for them, through iOS 26): the kind reads nothing
/// of the archive. Kept one row per dose as the JSON line `convert` writes; the key is the
/// medication and when the dose was due (else logged), and the dose pushed again later (its status
/// changed: not interacted, then taken) replaces what was kept of it.
extension MedicationKind: ArchiveRecordKind {
    public static func makeReader() -> any KindReader<MedicationKind> { NoArchiveRecords() }

    public static let tableVersions = ["""
        CREATE TABLE IF NOT EXISTS medication_dose (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, name TEXT NOT NULL, date INTEGER NOT NULL, scheduled INTEGER NOT NULL,
            outcome TEXT, line TEXT NOT NULL, import_id INTEGER NOT NULL REFERENCES import_run(id));
        CREATE INDEX IF NOT EXISTS medication_dose_date ON medication_dose(date);
        """]

    public static func insert(_ dose: MedicationDose, into rows: KindRows) throws -> Bool {
        var line = ByteBuffer(capacity: 512)
        appendJSONLines(dose, to: &line)
        let existing = try rows.statement("SELECT line FROM medication_dose WHERE key = ?")
        try existing.bind(1, dose.key)
        let known = try existing.step() ? existing.text(0) : nil
        existing.reset()
        let written = line.withBytes { String(decoding: $0.slice(0..<($0.count - 1)), as: UTF8.self) }   // without its newline
        if known == written { return false }
        let upsert = try rows.statement("""
            INSERT INTO medication_dose(key, name, date, scheduled, outcome, line, import_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT(\(rows.database.dialect.conflictTarget("key"))) DO UPDATE SET outcome = excluded.outcome, line = excluded.line, import_id = excluded.import_id
            """)
        try upsert.bind(1, dose.key)
        try upsert.bind(2, dose.name)
        try upsert.bind(3, dose.date)
        try upsert.bind(4, Int64(dose.scheduledDate == nil ? 0 : 1))
        try upsert.bind(5, dose.outcome?.rawValue)
        try upsert.bind(6, written)
        try upsert.bind(7, rows.runID)
        try upsert.step()
        return known == nil
    }

    static let lines = StoredLines(table: "medication_dose", dateColumn: "date")

    /// Kept as its JSON line: `export --kind … --format jsonl` writes it as stored.
    public static var storedLines: StoredLines? { lines }

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (MedicationDose) throws -> Void) throws {
        try rows.forEachRecord(lines, filter: filter, decode: record(line:), body)
    }

    public static func count(in rows: KindRows) throws -> RecordCount { try rows.count(lines) }

    /// A stored line read back.
    static func record(line: String) -> MedicationDose? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let name = object["name"] as? String, let start = (object["start"] as? String)?.epochSeconds else { return nil }
        let codings = (object["codings"] as? [[String: Any]] ?? []).map {
            MedicationDose.Coding(system: $0["system"] as? String, code: $0["code"] as? String, version: $0["version"] as? String)
        }
        return MedicationDose(name: name, nickname: object["nickname"] as? String, start: start, end: (object["end"] as? String)?.epochSeconds,
                              scheduledDate: (object["scheduledDate"] as? String)?.epochSeconds,
                              scheduledDosage: (object["scheduledDosage"] as? NSNumber)?.doubleValue,
                              dosage: (object["dosage"] as? NSNumber)?.doubleValue, units: object["units"] as? String,
                              form: object["form"] as? String, status: object["status"] as? String,
                              isArchived: (object["isArchived"] as? NSNumber)?.boolValue, codings: codings, offset: object["offset"] as? String)
    }
}

/// The reader of a kind that the export archive does not hold (it comes from the phone's app only).
final class NoArchiveRecords<Kind: ArchiveKind>: KindReader {}
