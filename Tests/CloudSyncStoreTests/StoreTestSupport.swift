import CloudSyncExport
import CloudSyncModel
import CloudSyncKinds
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

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

/// Converts an input with the core (no store), for comparisons.
func convertDirectly(_ path: String) throws -> [HealthMetric] {
    let sink = CollectingSink()
    try ReaderRunner.run(ExportConverter(input: path), into: ReaderSinks(metrics: sink, records: CountingRecordSink()))
    return sink.metrics
}

/// Makes a current store what schema 9 and 10 left (before one definition of what counts, schema
/// 11, and the always-on tables of 12): no `origin`, no views or trigger, `metric_summary` counting every row with its repeats, the
/// types with superseded rows in `superseded_type`; then `version`.
func downgradeBeforeCountedRows(_ database: SQLiteDatabase, to version: Int) throws {
    try database.execute("""
        DROP TABLE forwarding;
        DROP TABLE watched_file;
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
