/// Samples that arrive already normalised, one `HealthMetric` each: a CloudCare batch, Flō samples,
/// the steps API's samples (`serve` receives them). A source like an export, so that they go into a
/// store through its one door and count under the same identity as the export's and the phone's:
/// a sample that arrives as a batch and again in a push or an export is counted once.
///
/// They carry no creation date, so each is "already there" when the store holds a sample alike but
/// for it, and an export's dated sample later dates the row (docs/store.md). The category of a
/// category sample is its metadata's `categoryValue` (what `convert` writes); the device is its
/// metadata's `device` (`Unknown` without one), first, then `sourceVersion`, then the other keys in
/// their order by name, as the mapper orders an export's.
public final class HealthMetricsReader: RecordReader {
    public struct Report: Sendable {
        public var metrics: Int
    }

    public let name: String
    private let metrics: [HealthMetric]

    public init(_ metrics: [HealthMetric], name: String) {
        self.metrics = metrics
        self.name = name
    }

    public func read(into sinks: ReaderSinks, control: RunControl) throws -> Report {
        do {
            var buffers = MappingBuffers()
            for metric in metrics {
                if control.shouldStop() { throw ConversionError.interrupted }
                try Self.withMapped(metric, &buffers) { try sinks.metrics.write($0) }
            }
        } catch {
            try? sinks.metrics.abandon()
            throw error
        }
        try sinks.metrics.finish()
        return Report(metrics: metrics.count)
    }

    /// What `withMapped` fills for each metric, kept from one metric to the next: made afresh for
    /// each, they were four to seven allocations a metric, and the mapping 13% of `serve`'s CPU on a
    /// CloudCare upload (perf, 166,056 metrics).
    struct MappingBuffers {
        var arena: [UInt8] = []
        var ranges: [Range<Int>] = []
        var keys: [String] = []
        var metadata: [(key: ByteText, value: ByteText)] = []
    }

    /// `metric` as a `MappedMetric` whose views are valid during `body`.
    static func withMapped(_ metric: HealthMetric, _ buffers: inout MappingBuffers, _ body: (MappedMetric) throws -> Void) throws {
        var keys = buffers.keys, arena = buffers.arena, ranges = buffers.ranges, metadata = buffers.metadata
        buffers = MappingBuffers()   // each buffer held once, so that it is filled in place
        defer { (buffers.keys, buffers.arena, buffers.ranges, buffers.metadata) = (keys, arena, ranges, metadata) }
        keys.removeAll(keepingCapacity: true)
        for key in metric.metadata.keys where key != "device" && key != "sourceVersion" { keys.append(key) }
        keys.sort()
        if metric.metadata["sourceVersion"] != nil { keys.insert("sourceVersion", at: 0) }
        // Every text of the metric in one arena, viewed once it is complete.
        arena.removeAll(keepingCapacity: true)
        ranges.removeAll(keepingCapacity: true)
        func add(_ text: String) {
            let start = arena.count
            arena.append(contentsOf: text.utf8)
            ranges.append(start..<arena.count)
        }
        add(metric.type)
        add(metric.unit)
        add(metric.sourceApp)
        add(metric.metadata["device"] ?? "Unknown")
        for key in keys {
            add(key)
            add(metric.metadata[key] ?? "")
        }
        let categoryValue = metric.metadata["categoryValue"]
        try arena.withUnsafeBufferPointer { bytes in
            let view = { (index: Int) -> ByteText in
                ranges[index].isEmpty ? .empty : ByteText(rebasing: bytes[ranges[index]])
            }
            var mapped = MappedMetric()
            mapped.type = view(0)
            mapped.unit = view(1)
            mapped.writtenUnit = mapped.unit
            mapped.sourceApp = view(2)
            mapped.device = view(3)
            mapped.startDate = metric.startDate
            mapped.endDate = metric.endDate
            mapped.value = metric.value
            metadata.removeAll(keepingCapacity: true)
            metadata.append((ByteText(literal: "device"), mapped.device))
            for index in keys.indices {
                let (key, value) = (view(4 + 2 * index), view(5 + 2 * index))
                metadata.append((key, value))
                if categoryValue != nil, keys[index] == "categoryValue" { mapped.categoryValue = value }
            }
            mapped.metadata = metadata
            metadata = []   // held by `mapped` alone while `body` runs
            defer { metadata = mapped.metadata }
            try body(mapped)
        }
    }
}
