import CloudSyncExport
import CloudSyncModel
import Foundation

/// One night of sleep, in minutes per stage. A night is named by the evening it began.
public struct SleepNight: Sendable, Codable, Equatable {
    public var night: String
    public var inBed: Double
    /// Asleep in any stage: core, deep, REM, or asleep without a stage (older watches, other apps).
    public var asleep: Double
    public var core: Double
    public var deep: Double
    public var rem: Double
    public var awake: Double
}

extension StoreQueries {
    /// The nights of `SleepAnalysis` samples starting in [since, until), in `zone` (UTC when nil).
    ///
    /// A sample belongs to the night of the evening before it when it starts before noon local time,
    /// else to that evening's night. Within a night, each stage's minutes are the union of its
    /// samples' spans, so the iPhone and the Watch recording the same sleep count it once.
    public func sleepNights(since: Int64? = nil, until: Int64? = nil, zone: TimeZone? = nil) throws -> [SleepNight] {
        try storeErrors {
            var conditions = MetricConditions(.all) { _ in [] }
            conditions.add(MetricConditions.countedOnce)
            conditions.add("m.type_id = (SELECT id FROM metric_type WHERE name = 'HKCategoryTypeIdentifierSleepAnalysis')")
            if let since { conditions.add("m.start_date >= ?", .int(since)) }
            if let until { conditions.add("m.start_date < ?", .int(until)) }
            let rows = try database.prepare("""
                SELECT m.start_date, m.end_date, json_extract('{' || ifnull(m.extra, '') || '}', '$.category')
                FROM metric m \(conditions.whereClause) ORDER BY m.start_date
                """)
            try rows.bind(conditions.arguments)
            var spans: [Int64: [String: [(Int64, Int64)]]] = [:]
            while try rows.step() {
                let start = rows.int64(0), end = rows.int64(1)
                let offset = Int64(zone?.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(start))) ?? 0)
                let local = start + offset - 12 * 3600
                let night = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
                let stage = rows.text(2) ?? "asleep"
                spans[night, default: [:]][stage, default: []].append((start, end))
                if ["asleep", "core", "deep", "rem"].contains(stage) {
                    spans[night, default: [:]]["(any)", default: []].append((start, end))
                }
            }
            return spans.keys.sorted().map { night in
                let stages = spans[night]!
                func minutes(_ stage: String) -> Double { Double(Self.unionLength(stages[stage] ?? [])) / 60 }
                return SleepNight(night: String(UTCDateFormatter.string(night * 86_400).prefix(10)), inBed: minutes("inBed"),
                                  asleep: minutes("(any)"), core: minutes("core"), deep: minutes("deep"), rem: minutes("rem"),
                                  awake: minutes("awake"))
            }
        }
    }

    /// Seconds covered by the union of the spans.
    static func unionLength(_ spans: [(Int64, Int64)]) -> Int64 {
        var total: Int64 = 0
        var reach = Int64.min
        for (start, end) in spans.sorted(by: { $0.0 < $1.0 }) where end > reach {
            total += end - Swift.max(start, reach)
            reach = end
        }
        return total
    }
}
