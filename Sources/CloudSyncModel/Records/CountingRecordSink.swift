/// Counts routes and ECGs and keeps none (`inspect`).
public final class CountingRecordSink: RecordSink {
    public private(set) var routes = 0
    public private(set) var ecgs = 0
    public init() {}
    public func write(_ route: Route) throws { routes += 1 }
    public func write(_ ecg: ECGRecording) throws { ecgs += 1 }
}
