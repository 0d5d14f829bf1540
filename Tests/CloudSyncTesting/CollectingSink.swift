public import CloudSyncModel
import Foundation

/// The one collecting sink of the tests: what a source (or the store's export) gave, as plain values.
/// Metrics as `HealthMetric`s and as the JSON line `convert` writes; records by kind. A real sink: it
/// takes what the sources' contract gives, finished or abandoned.
public final class CollectingSink: MetricSink, RecordSink {
    public private(set) var metrics: [HealthMetric] = []
    public private(set) var jsonLines: [String] = []
    private var records: [String: [Any]] = [:]
    /// `finish()` was called (the metrics complete, or the input read: the contract says both).
    public private(set) var finished = false
    public private(set) var abandoned = false
    /// Facts the source told.
    public private(set) var facts: InputFacts?
    /// The size the source said its metrics' document has (`expect(metricBytes:)`), and how many
    /// metrics had come when it said it.
    public private(set) var expected: (bytes: Int64, afterMetrics: Int)?

    public init() {}

    /// These sinks, for a source.
    public var sinks: ReaderSinks { ReaderSinks(metrics: self, records: self, facts: { [unowned self] in facts = $0 }) }

    public func write(_ metric: MappedMetric) throws {
        var buffer = ByteBuffer(capacity: 512)
        MetricJSON.append(metric, to: &buffer)
        let line = buffer.withBytes { $0.string }
        jsonLines.append(line)
        if let encoded = metric.metadataJSON {
            // A metric read back from the store carries its metadata encoded.
            let object = try JSONSerialization.jsonObject(with: Data(encoded)) as? [String: String] ?? [:]
            metrics.append(HealthMetric(type: metric.type.string, startDate: metric.startDate, endDate: metric.endDate, value: metric.value,
                                        unit: metric.unit.string, sourceApp: metric.sourceApp.string, metadata: object))
        } else {
            metrics.append(HealthMetric(metric))
        }
    }

    public func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        records[Kind.name, default: []].append(record)
    }

    public func finish() throws { finished = true }
    public func abandon() throws { abandoned = true }
    public func expect(metricBytes: Int64) { expected = (metricBytes, metrics.count) }

    /// The records of `kind` written, in order.
    public func records<Kind: RecordKind>(_ kind: Kind.Type) -> [Kind.Record] {
        (records[Kind.name] ?? []).compactMap { $0 as? Kind.Record }
    }

    public var routes: [Route] { records(RouteKind.self) }
    public var ecgs: [ECGRecording] { records(ECGKind.self) }
    public var series: [BeatSeries] { records(BeatSeriesKind.self) }
    public var correlations: [CorrelationRecord] { records(CorrelationKind.self) }
    public var clinical: [ClinicalResource] { records(ClinicalKind.self) }

    /// The metrics of one type.
    public func of(_ type: String) -> [HealthMetric] { metrics.filter { $0.type == type } }
}
