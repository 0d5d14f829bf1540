/// `--merge-sources`: where several sources recorded the same span (the iPhone and the Watch
/// counting the same walk), the span counts once, for the source of highest priority, as the
/// Health app does. A lower-priority sample keeps the fraction of its duration that no
/// higher-priority sample covers, and its value is prorated by that fraction.
///
/// Priority: Apple Watch, then iPhone, then other devices; among equals, the source first seen by
/// the store.
///
/// Samples arrive in start order. A sample's value is known only once no later sample can cover
/// it, i.e. when a sample starting at or after its end arrives (or at `finish`): a Watch sample
/// starting inside an iPhone sample covers it as much as one that started before. Each sample's
/// merged value is handed to `emit` with its payload (where the caller counts it), at most a few
/// samples late.
struct SourceMerger<Payload> {
    private struct Sample {
        var start: Int64, end: Int64, rank: Int64
        var value: Double
        var payload: Payload
        var pending: Bool
    }

    /// The samples that are pending, or that may still cover a pending one, in start order.
    private var window: [Sample] = []

    static func deviceRank(_ device: String) -> Int64 {
        device.contains("Watch") ? 0 : device.contains("iPhone") ? 1 : 2
    }

    /// The rank of a sample: its device's rank, then its source's id (lower is higher priority).
    static func rank(deviceRank: Int64, sourceID: Int64) -> Int64 { deviceRank << 40 | sourceID }

    mutating func add(start: Int64, end: Int64, rank: Int64, value: Double, payload: Payload,
                      emit: (Payload, Double) -> Void) {
        // Samples that end by this start (instants: that began before it) can no longer be covered.
        settle(before: start, emit: emit)
        window.append(Sample(start: start, end: end, rank: rank, value: value, payload: payload, pending: true))
    }

    /// Hands out every sample still pending (the end of the rows).
    mutating func finish(emit: (Payload, Double) -> Void) {
        settle(before: .max, emit: emit)
        window.removeAll(keepingCapacity: true)
    }

    private mutating func settle(before start: Int64, emit: (Payload, Double) -> Void) {
        var earliestPending = start
        for index in window.indices where window[index].pending {
            let sample = window[index]
            if Swift.max(sample.end, sample.start + 1) <= start {
                emit(sample.payload, sample.value * uncoveredFraction(of: sample))
                window[index].pending = false
            } else {
                earliestPending = Swift.min(earliestPending, sample.start)
            }
        }
        // A settled sample is still needed while it may cover a pending or later one.
        window.removeAll { !$0.pending && $0.end <= earliestPending }
    }

    private func uncoveredFraction(of sample: Sample) -> Double {
        let (start, end) = (sample.start, sample.end)
        var spans: [(Int64, Int64)] = []
        for other in window where other.rank < sample.rank && other.end > start && other.start < Swift.max(end, start + 1) {
            spans.append((Swift.max(other.start, start), Swift.min(other.end, end)))
        }
        guard !spans.isEmpty else { return 1 }
        guard end > start else { return 0 }  // an instant inside a higher-priority span
        // Length of the union of the covering spans, clipped to [start, end].
        spans.sort { $0.0 < $1.0 }
        var covered: Int64 = 0
        var reach = start
        for (from, to) in spans where to > reach {
            covered += to - Swift.max(from, reach)
            reach = to
        }
        return Double(end - start - covered) / Double(end - start)
    }
}
