import CloudSyncModel
/// Builds each `MappedMetric` of the mapping and hands it to the sink: one reused metric, its
/// metadata pointing into the input or the arena (no allocation per point on the hot path).
final class MetricEmitter {
    private(set) var metric = MappedMetric()
    private let sink: any MetricSink
    private let arena: TextArena
    private var scratch = ByteBuffer(capacity: 64)
    private(set) var written = 0

    init(sink: any MetricSink, arena: TextArena) {
        self.sink = sink
        self.arena = arena
    }

    /// Starts a metric: dates, unit, source, the offset as its time zone and, for a summary, its bucket.
    func begin(type: ByteText, start: Int64, end: Int64, unit: HealthAutoExportUnits.Resolved, source: SourceNames,
               offset: Int64, bucket: String?) {
        metric.type = type
        metric.startDate = start
        metric.endDate = end
        metric.unit = unit.canonical
        metric.writtenUnit = unit.written
        metric.unitRecognised = unit.isRecognised
        metric.sourceApp = source.first
        metric.device = ByteText(literal: source.device)
        metric.valueText = nil
        metric.categoryValue = nil
        metric.isSummary = bucket != nil
        metric.metadata.removeAll(keepingCapacity: true)
        metric.metadata.append((ByteText(literal: "device"), metric.device))
        if let all = source.all { add("sources", all) }
        add("HKTimeZone", timeZone(offset))
        if let bucket { add("aggregation", arena.copy(bucket)) }
    }

    func add(_ key: StaticString, _ value: ByteText) {
        metric.metadata.append((ByteText(literal: key), value))
    }

    func add(_ key: StaticString, number: Double) {
        scratch.removeAll()
        NumberFormatting.append(number, to: &scratch)
        let text = scratch.withBytes { arena.copy($0) }
        add(key, text)
    }

    /// For the sources of a sleep night, which the night names in its own members.
    var arenaForSources: TextArena { arena }

    func setCategory(_ value: ByteText) { metric.categoryValue = value }

    func emit(type: ByteText? = nil, value: Double) throws {
        if let type { metric.type = type }
        metric.value = value
        try sink.write(metric)
        written += 1
    }

    /// `GMT-08:00`: the offset as a time zone that Foundation's `TimeZone(identifier:)` reads.
    private func timeZone(_ offset: Int64) -> ByteText {
        arena.write(upTo: 9) { out in
            let minutes = abs(offset) / 60
            let digits: [UInt8] = [UInt8(ascii: "G"), UInt8(ascii: "M"), UInt8(ascii: "T"), offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"),
                                   UInt8(48 + minutes / 600), UInt8(48 + minutes / 60 % 10), UInt8(ascii: ":"),
                                   UInt8(48 + minutes % 60 / 10), UInt8(48 + minutes % 10)]
            for (i, byte) in digits.enumerated() { out[i] = byte }
            return 9
        }
    }
}
