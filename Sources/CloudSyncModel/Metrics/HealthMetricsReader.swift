/// Samples that arrive already normalised, one `HealthMetric` each: a CloudCare batch, Flō samples,
/// the steps API's samples (`serve` receives them). A source like an export, so that they go into a
/// store through its one door and count under the same identity as the export's and the phone's:
/// a sample that arrives as a batch and again in a push or an export is counted once.
///
/// They carry no creation date, so each is "already there" when the store holds a sample alike but
/// for it, and an export's dated sample later dates the row (docs/store.md). Their mapping (the
/// device, the metadata's order, the category) is `ReceivedMetrics`'s.
public final class HealthMetricsReader: RecordReader {
    public struct Report: Sendable {
        public var metrics: Int
    }

    public let name: String
    private let metrics: ReceivedMetrics

    public init(_ metrics: ReceivedMetrics, name: String) {
        self.metrics = metrics
        self.name = name
    }

    public convenience init(_ metrics: [HealthMetric], name: String) {
        self.init(ReceivedMetrics(metrics), name: name)
    }

    public func read(into sinks: ReaderSinks, control: RunControl) throws -> Report {
        do {
            var metadata: [ReceivedMetrics.Pair] = []
            for index in 0..<metrics.count {
                if control.shouldStop() { throw ConversionError.interrupted }
                try metrics.withMapped(index, &metadata) { try sinks.metrics.write($0) }
            }
        } catch {
            try? sinks.metrics.abandon()
            throw error
        }
        try sinks.metrics.finish()
        return Report(metrics: metrics.count)
    }
}
