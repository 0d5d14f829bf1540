/// One night's rule (docs/aggregation.md, "Sleep: a night counted once"): from the night's samples
/// that count, its minutes per stage, and where they lie.
///
/// - **Segments** say when each stage was. A stage's minutes are the union of its segments' spans,
///   whoever recorded them; asleep is the union of every asleep stage (core, deep, REM, asleep
///   without a stage).
/// - **A summarised night** (Health Auto Export with "Summarize Data" on) says how many minutes each
///   stage had within the window it was measured in: its minutes are read, never its span, and none
///   counts for more than its window. Its asleep is the night's `totalSleep` where the phone gave
///   one, else core + deep + REM + asleep; in bed is its `inBed`.
/// - **Two measures of one night** (segments and a summary, or summaries from two sources, or a night
///   pushed again as it went on) measured the same night: per stage the larger is kept, never their
///   sum, which is the double count this rule exists to prevent.
struct SleepNightRule {
    /// A stage's minutes in a night, and where they lie: pieces over which they are spread evenly (a
    /// segment's minutes fill it; a summary's are spread over its window).
    struct StageTime {
        var minutes: Double
        var pieces: [(start: Int64, end: Int64, minutes: Double)]
    }

    static let asleepStages: Set<String> = ["asleep", "core", "deep", "rem"]

    /// Segments per stage (and `asleep`: every asleep stage's).
    private var segments: [String: [(Int64, Int64)]] = [:]
    /// Summarised nights by source and window, in the order they were stored.
    private var measured: [MeasuredKey: Measured] = [:]
    /// The in-bed windows of summarised nights.
    private var inBed: [(start: Int64, end: Int64, minutes: Double, source: Int64, totalSleep: Double?)] = []

    private struct MeasuredKey: Hashable {
        var source: Int64
        var start: Int64
        var end: Int64
    }

    private struct Measured {
        var stages: [String: Double] = [:]
        /// The latest stored sample's: a night pushed again says its total anew.
        var totalSleep: Double?
    }

    mutating func addSegment(stage: String, start: Int64, end: Int64) {
        if stage != "asleep" { segments[stage, default: []].append((start, end)) }
        if Self.asleepStages.contains(stage) { segments["asleep", default: []].append((start, end)) }
    }

    /// A sample of a summarised night, in the order stored.
    mutating func addMeasured(stage: String, start: Int64, end: Int64, minutes: Double, source: Int64, totalSleep: Double?) {
        if stage == "inBed" {
            inBed.append((start, end, minutes, source, totalSleep))
            return
        }
        let key = MeasuredKey(source: source, start: start, end: end)
        var night = measured[key] ?? Measured()
        night.stages[stage, default: 0] += minutes
        if let totalSleep { night.totalSleep = totalSleep }
        measured[key] = night
    }

    /// The night's stages: `inBed`, `asleep`, `core`, `deep`, `rem`, `awake` (those with time).
    func stages() -> [String: StageTime] {
        var stages: [String: StageTime] = [:]
        for (stage, spans) in segments {
            let union = Self.union(spans)
            stages[stage] = StageTime(minutes: Double(union.reduce(0) { $0 + $1.end - $1.start }) / 60,
                                      pieces: union.map { ($0.start, $0.end, Double($0.end - $0.start) / 60) })
        }
        func keepLarger(_ stage: String, _ minutes: Double, over window: (start: Int64, end: Int64)) {
            let capped = min(minutes, Double(window.end - window.start) / 60)
            guard capped > 0, capped > stages[stage]?.minutes ?? 0 else { return }
            stages[stage] = StageTime(minutes: capped, pieces: [(window.start, window.end, capped)])
        }
        var sourcesWithAsleep = Set<Int64>()
        for (key, night) in measured {
            let window = (key.start, key.end)
            for (stage, minutes) in night.stages where stage != "asleep" { keepLarger(stage, minutes, over: window) }
            let asleep = night.totalSleep ?? Self.asleepStages.reduce(0) { $0 + (night.stages[$1] ?? 0) }
            keepLarger("asleep", asleep, over: window)
            sourcesWithAsleep.insert(key.source)
        }
        for bed in inBed {
            keepLarger("inBed", bed.minutes, over: (bed.start, bed.end))
            // A night that gave only its time in bed and its total: the total is measured in bed.
            if let total = bed.totalSleep, !sourcesWithAsleep.contains(bed.source) { keepLarger("asleep", total, over: (bed.start, bed.end)) }
        }
        return stages
    }

    /// The union of the spans, as disjoint spans in order.
    static func union(_ spans: [(Int64, Int64)]) -> [(start: Int64, end: Int64)] {
        var merged: [(start: Int64, end: Int64)] = []
        for (start, end) in spans.sorted(by: { $0.0 < $1.0 }) {
            if let last = merged.last, start <= last.end {
                merged[merged.count - 1].end = max(last.end, end)
            } else {
                merged.append((start, end))
            }
        }
        return merged
    }
}
