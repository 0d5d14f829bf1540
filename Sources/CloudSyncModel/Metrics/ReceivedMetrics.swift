#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Samples received already normalised (a CloudCare batch, Flō samples, the steps API's), as bytes:
/// every text of a batch in one buffer, and for each sample its numbers and where its texts are.
/// A received body is read straight into this: a `HealthMetric` a sample (six `String`s and a
/// dictionary), mapped to bytes again for the store, was most of `serve`'s reading of a CloudCare
/// upload (perf, 166,056 metrics: allocation, reference counting and hashing).
///
/// The mapping rule is applied as a sample is added, once: the device is its metadata's `device`
/// (`Unknown` without one), first; then `sourceVersion`; then the other keys in the order of their
/// UTF-8 bytes (a `String`'s order for keys in Unicode's composed form, which JSON senders write); a
/// key written twice keeps its last value; a category sample's category is its `categoryValue`
/// (what `convert` writes). These are the mapper's rules for an export's samples.
public struct ReceivedMetrics: Sendable {
    public typealias Pair = (key: ByteText, value: ByteText)
    typealias Ranges = (key: Range<Int>, value: Range<Int>)

    struct Sample: Sendable {
        var type: Range<Int>, unit: Range<Int>, source: Range<Int>, device: Range<Int>?
        var start: Int64, end: Int64, value: Double
        /// In `pairs`: `sourceVersion` first, then by key.
        var metadata: Range<Int>
        /// The index in `pairs` of `categoryValue`.
        var categoryValue: Int?
    }

    private var text: [UInt8] = []
    private var pairs: [Ranges] = []
    private var samples: [Sample] = []
    /// A sample's metadata as it was written, kept between samples.
    private var written: [Ranges] = []

    public var count: Int { samples.count }

    public init(capacity: Int = 0) {
        samples.reserveCapacity(capacity)
        pairs.reserveCapacity(capacity * 3)
        text.reserveCapacity(capacity * 96)
    }

    public init(_ metrics: [HealthMetric]) {
        self.init(capacity: metrics.count)
        for metric in metrics { append(metric) }
    }

    /// Adds a sample whose metadata is listed as it was written (a key may come twice).
    public mutating func append(type: ByteText, start: Int64, end: Int64, value: Double, unit: ByteText, source: ByteText,
                                metadata: [Pair]) {
        let type = add(type), unit = add(unit), source = add(source)
        written.removeAll(keepingCapacity: true)
        for pair in metadata { written.append((add(pair.key), add(pair.value))) }
        close(type: type, unit: unit, source: source, start: start, end: end, value: value)
    }

    public mutating func append(_ metric: HealthMetric) {
        let type = add(metric.type), unit = add(metric.unit), source = add(metric.sourceApp)
        written.removeAll(keepingCapacity: true)
        for (key, value) in metric.metadata { written.append((add(key), add(value))) }
        close(type: type, unit: unit, source: source, start: metric.startDate, end: metric.endDate, value: metric.value)
    }

    /// The sample at `index` as a `MappedMetric` whose views are valid during `body`; `metadata` is
    /// the caller's list, kept between samples (a list made for each was an allocation a sample).
    public func withMapped<Result>(_ index: Int, _ metadata: inout [Pair], _ body: (MappedMetric) throws -> Result) rethrows -> Result {
        let sample = samples[index]
        return try text.withUnsafeBufferPointer { bytes in
            let view = { (range: Range<Int>) -> ByteText in range.isEmpty ? .empty : ByteText(rebasing: bytes[range]) }
            var mapped = MappedMetric()
            mapped.type = view(sample.type)
            mapped.unit = view(sample.unit)
            mapped.writtenUnit = mapped.unit
            mapped.sourceApp = view(sample.source)
            mapped.device = sample.device.map(view) ?? ByteText(literal: "Unknown")
            mapped.startDate = sample.start
            mapped.endDate = sample.end
            mapped.value = sample.value
            metadata.removeAll(keepingCapacity: true)
            metadata.append((ByteText(literal: "device"), mapped.device))
            for index in sample.metadata { metadata.append((view(pairs[index].key), view(pairs[index].value))) }
            if let category = sample.categoryValue { mapped.categoryValue = view(pairs[category].value) }
            mapped.metadata = metadata
            metadata = []   // held by `mapped` alone while `body` runs
            defer { metadata = mapped.metadata }
            return try body(mapped)
        }
    }

    /// The sample at `index` as a `HealthMetric` (for tests and the cold paths).
    public func healthMetric(_ index: Int) -> HealthMetric {
        var metadata: [Pair] = []
        return withMapped(index, &metadata) { HealthMetric($0) }
    }

    // MARK: Adding

    private mutating func add(_ bytes: ByteText) -> Range<Int> {
        let start = text.count
        text.append(contentsOf: bytes)
        return start..<text.count
    }

    private mutating func add(_ string: String) -> Range<Int> {
        let start = text.count
        text.append(contentsOf: string.utf8)
        return start..<text.count
    }

    /// Applies the mapping rule to `written` and keeps the sample.
    private mutating func close(type: Range<Int>, unit: Range<Int>, source: Range<Int>, start: Int64, end: Int64, value: Double) {
        var sample = Sample(type: type, unit: unit, source: source, device: nil, start: start, end: end, value: value,
                            metadata: pairs.count..<pairs.count, categoryValue: nil)
        var written = self.written, pairs = self.pairs
        (self.written, self.pairs) = ([], [])   // each held once, so that it is changed in place
        defer { (self.written, self.pairs) = (written, pairs) }
        text.withUnsafeBufferPointer { bytes in
            func key(_ index: Int) -> ByteText { ByteText(rebasing: bytes[written[index].key]) }
            // By key, then as written (stable), so that of a key written twice the last comes last.
            // An insertion sort for a real sample's two to five keys; a body may hold one with a
            // million, half a trillion comparisons for an insertion sort.
            if written.count <= Self.insertionSortLimit {
                for index in written.indices.dropFirst() {
                    let moved = written[index]
                    var to = index
                    while to > 0, Self.order(ByteText(rebasing: bytes[moved.key]), key(to - 1)) < 0 {
                        written[to] = written[to - 1]
                        to -= 1
                    }
                    written[to] = moved
                }
            } else {
                written = written.indices.sorted { a, b in
                    let compared = Self.order(key(a), key(b))
                    return compared != 0 ? compared < 0 : a < b
                }.map { written[$0] }
            }
            var sourceVersion: Ranges?
            let first = pairs.count
            for index in written.indices {
                // Of a key written twice, the last.
                if index + 1 < written.count, Self.order(key(index), key(index + 1)) == 0 { continue }
                let name = key(index)
                if name.equals("device") { sample.device = written[index].value; continue }
                if name.equals("sourceVersion") { sourceVersion = written[index]; continue }
                if name.equals("categoryValue") { sample.categoryValue = pairs.count }
                pairs.append(written[index])
            }
            if let sourceVersion {
                pairs.insert(sourceVersion, at: first)
                if let category = sample.categoryValue { sample.categoryValue = category + 1 }
            }
            sample.metadata = first..<pairs.count
        }
        samples.append(sample)
    }

    private static let insertionSortLimit = 16

    /// The order of two keys by their bytes: negative, zero or positive.
    private static func order(_ a: ByteText, _ b: ByteText) -> Int {
        let shared = min(a.count, b.count)
        if shared > 0, let x = a.baseAddress, let y = b.baseAddress {
            let compared = memcmp(x, y, shared)
            if compared != 0 { return Int(compared) }
        }
        return a.count - b.count
    }
}
