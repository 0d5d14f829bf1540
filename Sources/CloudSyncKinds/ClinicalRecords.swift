public import CloudSyncExport
public import CloudSyncModel
public import CloudSyncStore
import Foundation

/// Clinical records: export.xml's `ClinicalRecord`s joined to the FHIR resource files of
/// `clinical-records/` they name. Every record comes out once: with its resource, else with the
/// problem (its file missing or damaged); a file no record names comes out with its resource alone.
/// Kept one row per record, as the JSON line `convert` writes (the resource in it unchanged); the key
/// is the file, else the type and identifier.
extension ClinicalKind: ArchiveRecordKind {
    public static func makeReader() -> any KindReader<ClinicalKind> { ClinicalReader() }

    public static let tableVersions = ["""
        CREATE TABLE IF NOT EXISTS clinical_record (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, type TEXT, received_date INTEGER, file TEXT,
            has_resource INTEGER NOT NULL, line TEXT NOT NULL, import_id INTEGER NOT NULL REFERENCES import_run(id));
        """]

    public static func insert(_ clinical: ClinicalResource, into rows: KindRows) throws -> Bool {
        var line = ByteBuffer(capacity: 1024)
        appendJSONLines(clinical, to: &line)
        let insert = try rows.statement("""
            INSERT INTO clinical_record(key, type, received_date, file, has_resource, line, import_id) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """)
        try insert.bind(1, clinical.key)
        try insert.bind(2, clinical.type)
        try insert.bind(3, clinical.receivedDate)
        try insert.bind(4, clinical.file)
        try insert.bind(5, Int64(clinical.resource == nil ? 0 : 1))
        try line.withBytes { try insert.bind(6, bytes: $0.slice(0..<($0.count - 1))) }   // without its newline
        try insert.bind(7, rows.runID)
        try insert.step()
        return rows.database.changes > 0
    }

    /// A record without a received date is always given.
    /// Kept as its JSON line: `export --kind … --format jsonl` writes it as stored.
    static let lines = StoredLines(table: "clinical_record", dateColumn: "received_date", keepsUndated: true)
    public static var storedLines: StoredLines? { lines }

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (ClinicalResource) throws -> Void) throws {
        try rows.forEachRecord(lines, filter: filter, decode: record(line:), body)
    }

    public static func count(in rows: KindRows) throws -> RecordCount { try rows.count(lines) }

    /// A stored line read back, the resource as the file wrote it.
    static func record(line: String) -> ClinicalResource? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        let resource = OrderedJSON.member("resource", in: line).flatMap { $0 == "null" ? nil : Array($0.utf8) }
        return ClinicalResource(type: object["type"] as? String, identifier: object["identifier"] as? String,
                                sourceName: object["sourceName"] as? String, sourceURL: object["sourceURL"] as? String,
                                fhirVersion: object["fhirVersion"] as? String, receivedDate: (object["receivedDate"] as? String)?.epochSeconds,
                                file: object["file"] as? String, resource: resource, problem: object["problem"] as? String)
    }
}

/// One run's reading of clinical records: export.xml's records, then each resource file joined to
/// those that name it, then the records whose file never came.
final class ClinicalReader: KindReader {
    typealias Kind = ClinicalKind
    private static let fhir = ArchiveFiles(folder: "clinical-records/", suffix: ".json")
    private let index = ClinicalIndex(files: ClinicalReader.fhir)
    private var withoutResource = 0

    var elements: Set<ElementName> { [.clinicalRecord] }

    func read(element tree: ElementTree, _ emit: (ClinicalResource) throws -> Void) throws {
        guard case .clinicalRecord(let element) = ExportElement(tree) else { return }
        index.add(element)
    }

    var files: ArchiveFiles? { Self.fhir }
    func fileReader() -> any EntryReader<ClinicalResource> { ClinicalResourceReader() }

    func link(_ resource: ClinicalResource, _ emit: (ClinicalResource) throws -> Void) throws {
        for record in index.link(resource) { try emit(record) }
    }

    func damaged(_ damage: EntryDamage) { index.damaged(path: damage.entry, problem: damage.problem) }

    func finish(_ emit: (ClinicalResource) throws -> Void) throws {
        for record in index.unlinked() {
            withoutResource += 1
            try emit(record)
        }
    }

    var notes: [String] {
        withoutResource == 0 ? [] : ["\(counted(withoutResource, "clinical record")) without their FHIR resource: the file is missing or damaged; listed with the problem"]
    }

    func spill(_ clinical: ClinicalResource, into writer: inout SpillWriter) {
        writer.put(clinical.file)
        writer.put(bytes: clinical.resource)
    }

    func unspill(from reader: inout SpillReader) -> ClinicalResource {
        let file = reader.string()
        return ClinicalResource(file: file, resource: reader.byteArray())
    }
}
