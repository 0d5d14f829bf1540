/// `--types`, `--since` and `--until` in front of any sinks, for a reader that does not filter as it
/// reads (Health Auto Export's JSON; the export filters in its mapping stage, where a type it does
/// not want is never mapped). What is left out is counted.
public enum Filtering {
    /// `sinks` behind `filter`.
    public static func sinks(_ filter: MetricFilter, _ sinks: ReaderSinks) -> (sinks: ReaderSinks, metrics: FilteredMetrics) {
        let metrics = FilteredMetrics(filter, sinks.metrics)
        return (ReaderSinks(metrics: metrics, records: FilteredRecords(filter, sinks.records), facts: sinks.facts), metrics)
    }
}

/// The metrics `filter` keeps, passed on.
public final class FilteredMetrics: MetricSink {
    private let filter: MetricFilter
    private let sink: any MetricSink
    private var types = TypeFilterCache()
    public private(set) var filteredOut = 0

    init(_ filter: MetricFilter, _ sink: any MetricSink) {
        self.filter = filter
        self.sink = sink
    }

    public func write(_ metric: MappedMetric) throws {
        guard types.accepts(metric.type, filter), filter.acceptsDate(metric.startDate) else {
            filteredOut += 1
            return
        }
        try sink.write(metric)
    }

    public func finish() throws { try sink.finish() }
    public func abandon() throws { try sink.abandon() }
    public func abandonedOutput(metrics: Int) -> String? { sink.abandonedOutput(metrics: metrics) }
    public func expect(metricBytes: Int64) { sink.expect(metricBytes: metricBytes) }
}

/// The records whose date `filter` keeps (a record without a date is always kept), passed on.
final class FilteredRecords: RecordSink {
    private let filter: MetricFilter
    private let sink: any RecordSink

    init(_ filter: MetricFilter, _ sink: any RecordSink) {
        self.filter = filter
        self.sink = sink
    }

    func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        if let date = Kind.date(of: record), !filter.acceptsDate(date) { return }
        try sink.write(record, as: kind)
    }

    func finish() throws { try sink.finish() }
}
