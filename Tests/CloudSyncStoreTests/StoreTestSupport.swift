import CloudSyncExport
import CloudSyncModel
import CloudSyncKinds
import CloudSyncSources
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

enum StorePaths {
    static let repository = Paths.repository
    static let sampleZip = Paths.sampleZip
    static let corpus = Paths.corpus
    static var corpusExists: Bool { Paths.corpusExists }

    /// A fresh directory and a store path inside it, per test.
    static func newStore(_ name: String = #function) throws -> String {
        try makeTemporaryDirectory(name).appendingPathComponent("staging.sqlite").path
    }

    static func write(_ text: String, _ name: String = "export.xml") throws -> String {
        try writeFile(text, named: name)
    }
}

/// An export of `days` days of step records (one every hour) from `firstDay`, Watch and iPhone.
func stepsExport(firstDay: Int, days: Int) -> String {
    var body = ""
    for day in firstDay..<(firstDay + days) {
        for hour in 0..<24 {
            let date = String(format: "2024-03-%02d %02d:00:00 +0000", day, hour)
            let end = String(format: "2024-03-%02d %02d:10:00 +0000", day, hour)
            body += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Watch\" sourceVersion=\"10.1\" device=\"&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, model:Watch&gt;\" unit=\"count\" startDate=\"\(date)\" endDate=\"\(end)\" value=\"\(100 + hour)\"/>\n"
        }
    }
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-04-01 10:00:00 +0000\"/>\n\(body)</HealthData>\n"
}

/// Collects metrics written by the store's export.
final class Collector: MetricSink {
    var metrics: [HealthMetric] = []
    var lines: [String] = []
    func write(_ metric: MappedMetric) throws {
        var buffer = ByteBuffer(capacity: 512)
        MetricJSON.append(metric, to: &buffer)
        let line = buffer.withBytes { $0.string }
        lines.append(line)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        metrics.append(HealthMetric(type: object["type"] as! String, startDate: metric.startDate, endDate: metric.endDate,
                                    value: metric.value, unit: object["unit"] as! String, sourceApp: object["sourceApp"] as! String,
                                    metadata: object["metadata"] as! [String: String]))
    }
    func finish() throws {}
    func abandon() throws {}
}

/// Converts an input with the core (no store), for comparisons.
func convertDirectly(_ path: String) throws -> [HealthMetric] {
    final class Sink: MetricSink {
        var metrics: [HealthMetric] = []
        func write(_ metric: MappedMetric) throws { metrics.append(HealthMetric(metric)) }
        func finish() throws {}
        func abandon() throws {}
    }
    let sink = Sink()
    try SourceRunner.run(ExportConverter(input: path), into: SourceSinks(metrics: sink, records: CountingRecordSink()))
    return sink.metrics
}

/// Makes a current store what schema 9 and 10 left (before one definition of what counts, schema
/// 11): no `origin`, no views or trigger, `metric_summary` counting every row with its repeats, the
/// types with superseded rows in `superseded_type`; then `version`.
func downgradeBeforeCountedRows(_ database: SQLiteDatabase, to version: Int) throws {
    try database.execute("""
        DROP TRIGGER metric_counting;
        DROP VIEW counted_metric;
        DROP VIEW counted_metric_with_repeats;
        DROP INDEX metric_pushed;
        ALTER TABLE metric DROP COLUMN origin;
        DROP TABLE metric_summary;
        CREATE TABLE metric_summary (
            type_id INTEGER NOT NULL, unit_id INTEGER NOT NULL, source_id INTEGER NOT NULL, count INTEGER NOT NULL,
            repeats INTEGER NOT NULL, first_start INTEGER NOT NULL, last_end INTEGER NOT NULL,
            PRIMARY KEY (type_id, unit_id, source_id)) WITHOUT ROWID;
        INSERT INTO metric_summary SELECT type_id, unit_id, source_id, count(*), sum(is_repeat), min(start_date), max(end_date)
            FROM metric GROUP BY type_id, unit_id, source_id;
        CREATE TABLE superseded_type (type_id INTEGER PRIMARY KEY);
        INSERT INTO superseded_type SELECT DISTINCT type_id FROM metric WHERE superseded != 0;
        PRAGMA user_version = \(version)
        """)
}
