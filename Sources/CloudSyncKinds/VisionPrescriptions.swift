public import CloudSyncExport
public import CloudSyncModel
public import CloudSyncStore
import Foundation

/// Vision prescriptions: export.xml's `VisionPrescription` elements with their `RightEye`, `LeftEye`
/// and `Attachment`s. Kept one row per prescription, as the JSON line `convert` writes, which is also
/// its key: a prescription has no source or time of day to tell two apart, only what it prescribes.
extension VisionPrescriptionKind: ArchiveRecordKind {
    public static func makeReader() -> any KindReader<VisionPrescriptionKind> { VisionPrescriptionReader() }

    public static let tableVersions = ["""
        CREATE TABLE IF NOT EXISTS vision_prescription (
            id INTEGER PRIMARY KEY, date_issued INTEGER NOT NULL, line TEXT NOT NULL UNIQUE,
            import_id INTEGER NOT NULL REFERENCES import_run(id));
        """]

    public static func insert(_ prescription: VisionPrescription, into rows: KindRows) throws -> Bool {
        var line = ByteBuffer(capacity: 1024)
        appendJSONLines(prescription, to: &line)
        let insert = try rows.statement("INSERT INTO vision_prescription(date_issued, line, import_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
        try insert.bind(1, prescription.dateIssued)
        try line.withBytes { try insert.bind(2, bytes: $0.slice(0..<($0.count - 1))) }   // without its newline
        try insert.bind(3, rows.runID)
        try insert.step()
        return rows.database.changes > 0
    }

    static let lines = StoredLines(table: "vision_prescription", dateColumn: "date_issued")

    /// Kept as its JSON line: `export --kind … --format jsonl` writes it as stored.
    public static var storedLines: StoredLines? { lines }

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (VisionPrescription) throws -> Void) throws {
        try rows.forEachRecord(lines, filter: filter, decode: record(line:), body)
    }

    public static func count(in rows: KindRows) throws -> RecordCount { try rows.count(lines) }

    /// A stored line read back.
    static func record(line: String) -> VisionPrescription? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let issued = (object["dateIssued"] as? String)?.epochSeconds,
              let metadata = OrderedJSON.member("metadata", in: line).flatMap(OrderedJSON.stringPairs) else { return nil }
        func eye(_ key: String) -> VisionPrescription.Eye? {
            guard let measures = object[key] as? [String: [String: Any]] else { return nil }
            return .init(measures: measures.compactMapValues { measure in
                (measure["value"] as? NSNumber).map { .init(value: $0.doubleValue, unit: measure["unit"] as? String) }
            })
        }
        return VisionPrescription(type: object["type"] as? String ?? "", dateIssued: issued,
                                  expirationDate: (object["expirationDate"] as? String)?.epochSeconds, brand: object["brand"] as? String,
                                  rightEye: eye("rightEye"), leftEye: eye("leftEye"), attachments: object["attachments"] as? [String] ?? [],
                                  metadata: metadata)
    }
}

/// One run's reading of vision prescriptions.
final class VisionPrescriptionReader: KindReader {
    typealias Kind = VisionPrescriptionKind
    private var unreadable = 0

    var elements: Set<ElementName> { [.visionPrescription] }

    func read(element tree: ElementTree, _ emit: (VisionPrescription) throws -> Void) throws {
        guard case .visionPrescription(let element) = ExportElement(tree), let issued = element.attributes["dateIssued"]?.epochSeconds else {
            unreadable += 1
            return
        }
        try emit(VisionPrescription(type: element.attributes["type"] ?? "", dateIssued: issued,
                                    expirationDate: element.attributes["expirationDate"]?.epochSeconds, brand: element.attributes["brand"],
                                    rightEye: element.rightEye.map(Self.eye), leftEye: element.leftEye.map(Self.eye),
                                    attachments: element.attachments.compactMap { $0["identifier"] },
                                    metadata: element.metadata.map { ($0.key, $0.value) }))
    }

    var notes: [String] {
        unreadable == 0 ? [] : ["\(counted(unreadable, "vision prescription")) without an issue date skipped"]
    }

    /// An eye's measures, each with its unit attribute (`sphereUnit`, …).
    static func eye(_ attributes: Attributes) -> VisionPrescription.Eye {
        var measures: [String: VisionPrescription.Measure] = [:]
        for name in VisionPrescription.Eye.measureNames {
            guard let value = attributes[name].flatMap({ Double($0) }), value.isFinite else { continue }
            measures[name] = .init(value: value, unit: attributes[name + "Unit"])
        }
        return .init(measures: measures)
    }
}
