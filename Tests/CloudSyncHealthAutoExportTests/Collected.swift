import CloudSyncHealthAutoExport
import CloudSyncModel
import CloudSyncTesting

/// Reading a document into the tests' collecting sink.
enum Collected {
    /// Reads `json` and returns what came out, with the report.
    static func read(_ json: String, aggregation: Aggregation? = nil) throws -> (CollectingSink, HealthAutoExportReport) {
        let collected = CollectingSink()
        let document = HealthAutoExportDocument(bytes: Array(json.utf8), name: "test.json")
        let report = try ReaderRunner.run(HealthAutoExportReader(document: document, options: .init(aggregation: aggregation)), into: collected.sinks)
        return (collected, report)
    }

    static func read(path: String) throws -> (CollectingSink, HealthAutoExportReport) {
        let collected = CollectingSink()
        let report = try ReaderRunner.run(HealthAutoExportReader(document: try HealthAutoExportDocument(path: path)), into: collected.sinks)
        return (collected, report)
    }
}

/// `2025-03-09T14:30:05Z` as seconds since 1970.
func utc(_ text: String) -> Int64 {
    var text = text
    return text.withUTF8 { ExportDateParser.epochSeconds($0) }!
}
