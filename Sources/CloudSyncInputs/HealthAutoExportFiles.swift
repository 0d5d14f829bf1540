public import CloudSyncHealthAutoExport
public import CloudSyncModel

/// Health Auto Export's files (one, or a folder of them) as one reader: each document in name order
/// into the same sinks, whose metrics are finished once, after the last. What `convert` and
/// `inspect` read; `import` imports each document in a transaction of its own instead.
public final class HealthAutoExportFiles: RecordReader {
    public let files: [String]
    public var name: String { files.count == 1 ? files[0] : "\(files.count) files" }

    public init(_ files: [String]) { self.files = files }

    /// A report per document, in order. A document that cannot be read or is refused stops the run
    /// (`HealthAutoExportError`, naming the file and the JSON path); the sinks hold the documents before it.
    public func read(into sinks: ReaderSinks, control: RunControl) throws -> [HealthAutoExportReport] {
        let metrics = MetricsFinishedOnce(sinks.metrics)
        var reports: [HealthAutoExportReport] = []
        do {
            for file in files {
                let reader = HealthAutoExportReader(document: try HealthAutoExportDocument(path: file))
                reports.append(try reader.read(into: ReaderSinks(metrics: metrics, records: sinks.records), control: control))
            }
        } catch {
            try? sinks.metrics.abandon()
            throw error
        }
        try sinks.metrics.finish()
        return reports
    }
}

/// Passes metrics on, and leaves finishing them to the caller: each document says its metrics are
/// complete, the files' are complete after the last document.
private final class MetricsFinishedOnce: MetricSink {
    private let sink: any MetricSink
    init(_ sink: any MetricSink) { self.sink = sink }
    func write(_ metric: MappedMetric) throws { try sink.write(metric) }
    func finish() throws {}
    func abandon() throws {}
}
