/// Where converted metrics go: JSONL, CloudCare batches, a counter, later the staging store.
public protocol MetricSink: AnyObject {
    /// `metric`'s views are valid only during the call.
    func write(_ metric: MappedMetric) throws
    /// Called once after the last metric when the input was read completely.
    func finish() throws
    /// Called instead of `finish` when the conversion stops early: keep what is complete.
    func abandon() throws
    /// After `abandon()`, what the output holds, said to the user (nil: nothing worth saying).
    func abandonedOutput(metrics: Int) -> String?
    /// Called before the first metric when the reader knows the size of the document its metrics
    /// come from (export.xml's size as the zip declares it, a file's size): a sink may size its
    /// memory by it rather than by the largest export.
    func expect(metricBytes: Int64)
}

extension MetricSink {
    public func abandonedOutput(metrics: Int) -> String? { nil }
    public func expect(metricBytes: Int64) {}
}

/// One HealthMetric per line (`--format jsonl`).
public final class JSONLinesSink: MetricSink {
    private let output: OutputFile

    public init(output: OutputFile) { self.output = output }

    public func write(_ metric: MappedMetric) throws {
        MetricJSON.append(metric, to: &output.buffer)
        output.buffer.append(UInt8(ascii: "\n"))
        try output.flushIfFull()
    }

    public func finish() throws { try output.finish() }

    /// Every line in the buffer is complete: write them (a file keeps them as NAME.partial).
    public func abandon() throws { output.abandon() }

    public func abandonedOutput(metrics: Int) -> String? {
        guard metrics > 0, let place = output.abandonedPlace else { return nil }
        return "the \(counted(metrics, "metric")) read before it are written to \(place), each on a complete line"
    }
}
