public import CloudSyncExport
public import CloudSyncModel
public import CloudSyncStore
import Foundation

/// Audiograms: export.xml's `Audiogram` elements with their `SensitivityPoint`s. Kept one row per
/// audiogram, as the JSON line `convert` writes; the key is its type, dates and source.
extension AudiogramKind: ArchiveRecordKind {
    public static func makeReader() -> any KindReader<AudiogramKind> { AudiogramReader() }

    public static let tableVersions = ["""
        CREATE TABLE IF NOT EXISTS audiogram (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, start_date INTEGER NOT NULL, point_count INTEGER NOT NULL,
            line TEXT NOT NULL, import_id INTEGER NOT NULL REFERENCES import_run(id));
        """]

    public static func insert(_ audiogram: Audiogram, into rows: KindRows) throws -> Bool {
        var line = ByteBuffer(capacity: 1024)
        appendJSONLines(audiogram, to: &line)
        return try rows.insertLine(line, key: "\(audiogram.type)|\(audiogram.startDate)|\(audiogram.endDate)|\(audiogram.sourceApp)",
                                   date: audiogram.startDate, parts: audiogram.points.count, into: lines)
    }

    static let lines = StoredLines(table: "audiogram", dateColumn: "start_date", partsColumn: "point_count")

    /// Kept as its JSON line: `export --kind … --format jsonl` writes it as stored.
    public static var storedLines: StoredLines? { lines }

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (Audiogram) throws -> Void) throws {
        try rows.forEachRecord(lines, filter: filter, decode: record(line:), body)
    }

    public static func count(in rows: KindRows) throws -> RecordCount { try rows.count(lines) }

    /// A stored line read back (the metadata's order kept).
    static func record(line: String) -> Audiogram? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let start = (object["startDate"] as? String)?.epochSeconds, let end = (object["endDate"] as? String)?.epochSeconds,
              let points = object["points"] as? [[String: Any]],
              let metadata = OrderedJSON.member("metadata", in: line).flatMap(OrderedJSON.stringPairs) else { return nil }
        func number(_ point: [String: Any], _ key: String) -> Double? { (point[key] as? NSNumber)?.doubleValue }
        func flag(_ point: [String: Any], _ key: String) -> Bool? { (point[key] as? NSNumber)?.boolValue }
        return Audiogram(type: object["type"] as? String ?? "", startDate: start, endDate: end, sourceApp: object["sourceApp"] as? String ?? "",
                         metadata: metadata, points: points.map { point in
                             .init(frequencyHz: number(point, "frequencyHz") ?? 0, leftEar: number(point, "leftEarDBHL"),
                                   rightEar: number(point, "rightEarDBHL"), leftEarMasked: flag(point, "leftEarMasked"),
                                   rightEarMasked: flag(point, "rightEarMasked"),
                                   leftEarClampingLower: number(point, "leftEarClampingLower"),
                                   leftEarClampingUpper: number(point, "leftEarClampingUpper"),
                                   rightEarClampingLower: number(point, "rightEarClampingLower"),
                                   rightEarClampingUpper: number(point, "rightEarClampingUpper"))
                         })
    }
}

/// One run's reading of audiograms.
final class AudiogramReader: KindReader {
    typealias Kind = AudiogramKind
    private var unreadable = 0

    var elements: Set<ElementName> { [.audiogram] }

    func read(element tree: ElementTree, _ emit: (Audiogram) throws -> Void) throws {
        guard case .audiogram(let element) = ExportElement(tree), let start = element.attributes["startDate"]?.epochSeconds else {
            unreadable += 1
            return
        }
        var metadata: [(key: String, value: String)] = []
        for key in ["device", "sourceVersion"] { if let value = element.attributes[key] { metadata.append((key, value)) } }
        metadata += element.metadata.map { ($0.key, $0.value) }
        let points = element.sensitivityPoints.compactMap(Self.point)
        try emit(Audiogram(type: element.attributes["type"] ?? "", startDate: start,
                           endDate: element.attributes["endDate"]?.epochSeconds ?? start,
                           sourceApp: element.attributes["sourceName"] ?? element.attributes["source"] ?? "",
                           metadata: metadata, points: points))
    }

    var notes: [String] {
        unreadable == 0 ? [] : ["\(counted(unreadable, "audiogram")) without a start date skipped"]
    }

    /// A point with its frequency in Hz (`kHz` is converted) and its thresholds in dBHL.
    static func point(_ attributes: Attributes) -> Audiogram.SensitivityPoint? {
        func number(_ key: String) -> Double? { attributes[key].flatMap { Double($0) }.flatMap { $0.isFinite ? $0 : nil } }
        func flag(_ key: String) -> Bool? {
            switch attributes[key]?.lowercased() {
            case "1", "true", "yes": return true
            case "0", "false", "no": return false
            default: return nil
            }
        }
        guard let frequency = number("frequencyValue") else { return nil }
        let scale = attributes["frequencyUnit"]?.lowercased() == "khz" ? 1000.0 : 1
        return .init(frequencyHz: frequency * scale, leftEar: number("leftEarValue"), rightEar: number("rightEarValue"),
                     leftEarMasked: flag("leftEarMasked"), rightEarMasked: flag("rightEarMasked"),
                     leftEarClampingLower: number("leftEarClampingRangeLowerBound"), leftEarClampingUpper: number("leftEarClampingRangeUpperBound"),
                     rightEarClampingLower: number("rightEarClampingRangeLowerBound"), rightEarClampingUpper: number("rightEarClampingRangeUpperBound"))
    }
}
