/// Counts metrics and keeps none: the metrics side of a run that wants only routes or ECGs.
public final class DiscardingSink: MetricSink {
    public private(set) var count = 0
    public init() {}
    public func write(_ metric: MappedMetric) throws { count += 1 }
    public func finish() throws {}
    public func abandon() throws {}
}
