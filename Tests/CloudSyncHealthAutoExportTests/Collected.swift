import CloudSyncHealthAutoExport
import CloudSyncModel

/// The metrics and routes a reader gave, as plain values.
final class Collected: MetricSink, RecordSink {
    var metrics: [HealthMetric] = []
    var routes: [Route] = []
    var finished = false

    func write(_ metric: MappedMetric) throws { metrics.append(HealthMetric(metric)) }
    func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        if let route = record as? Route { routes.append(route) }
    }
    func finish() throws { finished = true }
    func abandon() throws {}

    func of(_ type: String) -> [HealthMetric] { metrics.filter { $0.type == type } }

    /// Reads `json` (or the file at `path`) and returns what came out, with the report.
    static func read(_ json: String, aggregation: Aggregation? = nil) throws -> (Collected, HealthAutoExportReport) {
        let collected = Collected()
        let document = HealthAutoExportDocument(bytes: Array(json.utf8), name: "test.json")
        let report = try HealthAutoExportReader(document: document, options: .init(aggregation: aggregation), metrics: collected,
                                                records: collected).run()
        return (collected, report)
    }

    static func read(path: String) throws -> (Collected, HealthAutoExportReport) {
        let collected = Collected()
        let report = try HealthAutoExportReader(document: try HealthAutoExportDocument(path: path), metrics: collected, records: collected).run()
        return (collected, report)
    }
}

/// `2025-03-09T14:30:05Z` as seconds since 1970.
func utc(_ text: String) -> Int64 {
    var text = text
    return text.withUTF8 { ExportDateParser.epochSeconds($0) }!
}
