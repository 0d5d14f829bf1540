import CloudSyncModel
public import Foundation

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

/// The nights of sleep, one rule for every reader: the MCP `sleep` tool, `aggregate`'s sleep rows
/// (and so the `daily` view) and the report (docs/aggregation.md, "Sleep: a night counted once").
///
/// Sleep arrives in two forms. Segments (the export's records, the app's with "Summarize Data" off)
/// say when each stage was: within a night, each stage's minutes are the union of its segments'
/// spans across sources, and "asleep" the union of every asleep stage, so a night recorded by a
/// Watch, an iPhone and a third app counts once. A summarised night (the app's default) says how
/// many minutes each stage had within a window: its minutes are read, never its span, and none is
/// more than the window it was measured in (`SleepNightRule`). A sample belongs to the night of the
/// evening before it when it starts before noon local time, else to that evening's night.
public struct SleepQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

    /// One night: per stage (`inBed`, `asleep`, `core`, `deep`, `rem`, `awake`), its minutes and
    /// where they lie.
    struct Night {
        /// The evening's local date, as days since 1970.
        var day: Int64
        var stages: [String: SleepNightRule.StageTime]

        func minutes(_ stage: String) -> Double { stages[stage]?.minutes ?? 0 }

        var summary: SleepNight {
            SleepNight(night: String(UTCDateFormatter.string(day * 86_400).prefix(10)), inBed: minutes("inBed"), asleep: minutes("asleep"),
                       core: minutes("core"), deep: minutes("deep"), rem: minutes("rem"), awake: minutes("awake"))
        }
    }

    /// The nights whose evening is in the local dates from `since` to before `until` (instants; in
    /// `zone`, UTC when nil), oldest first.
    public func nights(since: Int64? = nil, until: Int64? = nil, zone: TimeZone? = nil) throws -> [SleepNight] {
        try storeErrors { try mergedNights(since: since, until: until, zone: zone).map(\.summary) }
    }

    /// The samples of a night began up to 12 hours after its evening: they are read 12 hours either
    /// side of the range, and a night is kept when its evening's date is in the range.
    func mergedNights(since: Int64?, until: Int64?, zone: TimeZone?) throws -> [Night] {
        func localDay(_ instant: Int64) -> Int64 {
            let local = instant + Int64(zone?.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))) ?? 0)
            return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        }
        let first = since.map(localDay), last = until.map(localDay)
        return try nightsOfSamples(since: since.map { $0 - 12 * 3600 }, until: until.map { $0 + 12 * 3600 }, zone: zone).filter { night in
            (first.map { night.day >= $0 } ?? true) && (last.map { night.day < $0 } ?? true)
        }
    }

    /// The nights of the samples that count starting in [since, until).
    private func nightsOfSamples(since: Int64?, until: Int64?, zone: TimeZone?) throws -> [Night] {
        var conditions = MetricConditions(.all) { _ in [] }
        conditions.add("m.type_id = (SELECT id FROM metric_type WHERE name = 'HKCategoryTypeIdentifierSleepAnalysis')")
        if let since { conditions.add("m.start_date >= ?", .int(since)) }
        if let until { conditions.add("m.start_date < ?", .int(until)) }
        // A summarised night's value is minutes (the unit every sleep sample is stored in, `minutes`
        // or `min`); `totalSleep` is the night's own total asleep, where the phone gave one.
        let dialect = database.dialect
        let rows = try database.prepare("""
            SELECT m.start_date, m.end_date, \(dialect.metadataMember("m.extra", "category")), m.summary, m.value,
                   m.source_id, \(dialect.real(dialect.metadataMember("m.extra", "totalSleep")))
            FROM \(CountedRows.view) m \(conditions.whereClause) ORDER BY m.start_date, m.id
            """)
        try rows.bind(conditions.arguments)
        var nights: [Int64: SleepNightRule] = [:]
        while try rows.step() {
            let start = rows.int64(0), end = rows.int64(1)
            let offset = Int64(zone?.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(start))) ?? 0)
            let local = start + offset - 12 * 3600
            let night = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
            let stage = rows.text(2) ?? "asleep"
            if rows.int64(3) == 1 {
                nights[night, default: SleepNightRule()].addMeasured(stage: stage, start: start, end: end, minutes: rows.double(4),
                                                                     source: rows.int64(5), totalSleep: rows.optionalDouble(6))
            } else {
                nights[night, default: SleepNightRule()].addSegment(stage: stage, start: start, end: end)
            }
        }
        return nights.keys.sorted().map { day in Night(day: day, stages: nights[day]!.stages()) }
    }
}
