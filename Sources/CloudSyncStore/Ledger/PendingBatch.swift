public import CloudSyncModel

/// One batch of pending metrics, as an upload sends it: each metric's bytes copied once from its
/// stored row (`StoredMetricRows`) into the batch's own buffer, and handed to the contracts' body
/// writers as `MappedMetric` views of that buffer. No `String` per field on the way from the store to
/// the wire (before, a metric went bytes → `String` → bytes).
public struct PendingBatch: Sendable {
    private struct Entry: Sendable {
        var id: Int64
        var startDate: Int64, endDate: Int64, value: Double
        var type, unit, source, device, metadata: Range<Int>
        var category: Range<Int>?
    }

    private var bytes: [UInt8] = []
    private var entries: [Entry] = []

    public init() {}

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    /// The metrics' ids, for the acknowledgements.
    public var ids: [Int64] { entries.map(\.id) }
    public var firstStart: Int64? { entries.map(\.startDate).min() }
    public var lastEnd: Int64? { entries.map(\.endDate).max() }

    mutating func append(id: Int64, _ metric: MappedMetric) {
        func copy(_ text: ByteText) -> Range<Int> {
            let start = bytes.count
            bytes.append(contentsOf: text)
            return start..<bytes.count
        }
        entries.append(Entry(id: id, startDate: metric.startDate, endDate: metric.endDate, value: metric.value, type: copy(metric.type),
                             unit: copy(metric.unit), source: copy(metric.sourceApp), device: copy(metric.device),
                             metadata: copy(metric.metadataJSON ?? .empty), category: metric.categoryValue.map(copy)))
    }

    /// Each metric in order, as a view of the batch's bytes valid during the call: the fields a
    /// stored metric has, its metadata object encoded (`metadataJSON`), a category sample's category.
    public func forEach(_ body: (MappedMetric) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { all in
            var metric = MappedMetric()
            for entry in entries {
                metric.type = all.slice(entry.type)
                metric.startDate = entry.startDate
                metric.endDate = entry.endDate
                metric.value = entry.value
                metric.unit = all.slice(entry.unit)
                metric.sourceApp = all.slice(entry.source)
                metric.device = all.slice(entry.device)
                metric.metadataJSON = all.slice(entry.metadata)
                metric.categoryValue = entry.category.map { all.slice($0) }
                try body(metric)
            }
        }
    }

    /// How many metrics of each type the batch holds (a `String` per type, not per metric).
    public func countByType() -> [String: Int] {
        var counts: [[UInt8]: Int] = [:]
        for entry in entries { counts[Array(bytes[entry.type]), default: 0] += 1 }
        return Dictionary(uniqueKeysWithValues: counts.map { (String(decoding: $0.key, as: UTF8.self), $0.value) })
    }
}
