import CloudSyncModel
import CloudSyncStore
import Foundation

/// What the report draws, read from the store through the same queries as `aggregate`, `status`
/// and the MCP tools (no second implementation of a number): daily and monthly aggregates with
/// iPhone and Watch merged, sleep nights, workouts, routes and ECGs.
struct ReportData {
    struct Options {
        var since: Int64?
        var until: Int64?
        var zone: TimeZone?
        /// The report's time: the limit of what is drawn when the store has no export date.
        var now: Int64
    }

    /// One day's (or month's) statistics of a type, by its label in the report's zone.
    struct Point { var label: String; var value: Double; var minimum: Double; var maximum: Double; var count: Int }

    var overview: StoreOverview
    /// Set when `--since` or `--until` is: what the range holds.
    var range: RangeSummary?
    /// Samples dated after the export, left out of everything drawn.
    var late: LateSamples
    /// Every day from the first to the last with steps, in order (0 for a day without any).
    var dailySteps: [(day: String, value: Double)] = []
    var dailyEnergy: [String: Double] = [:]
    var dailyExercise: [String: Double] = [:]
    /// ActivitySummary's goals per day: active energy (kcal) and exercise (min).
    var energyGoal: [String: Double] = [:]
    var exerciseGoal: [String: Double] = [:]
    /// Monthly statistics per heart type (short name).
    var heart: [String: [Point]] = [:]
    /// Daily statistics per body type (short name).
    var body: [String: [Point]] = [:]
    var nights: [SleepNight] = []
    var workouts: [WorkoutSummary] = []
    var routes = RouteTally()
    var ecgs: [ECGSummary] = []
    /// The medication doses of the range, per drug and per drug and week.
    var medications = MedicationAdherence()

    static let heartTypes = ["restingHeartRate", "heartRateVariabilitySDNN", "walkingHeartRateAverage", "vo2Max"]
    static let bodyTypes = ["bodyMass", "bodyFatPercentage"]
    /// At most this many ECGs are drawn (the most recent), to keep the page small.
    static let maxECGs = 10

    static func load(_ store: StagingStore, _ options: Options) throws -> ReportData {
        let overview = try OverviewQuery(store).overview()
        let late = try LateSamples.find(store, overview: overview, now: options.now, since: options.since, until: options.until,
                                        zone: options.zone)
        var data = ReportData(overview: overview, late: late)
        // What is drawn: the range, without the samples dated after the export.
        var drawn = options
        drawn.until = min(options.until ?? .max, late.until)
        func aggregate(_ types: [String], _ bucket: AggregateBucket, merge: Bool) throws -> [AggregateRow] {
            try AggregateQuery(store).aggregate(AggregateOptions(bucket: bucket, filter: MetricFilter(types: types, since: drawn.since, until: drawn.until),
                                                 timeZone: drawn.zone, mergeSources: merge))
        }
        let steps = try aggregate(["stepCount"], .day, merge: true)
        data.dailySteps = everyDay(steps.map { ($0.bucket, $0.sum) })
        data.dailyEnergy = Dictionary(try aggregate(["activeEnergyBurned"], .day, merge: true).map { ($0.bucket, $0.sum) }) { a, _ in a }
        data.dailyExercise = Dictionary(try aggregate(["appleExerciseTime"], .day, merge: true).map { ($0.bucket, $0.sum) }) { a, _ in a }
        try data.loadGoals(store, drawn)
        for row in try aggregate(heartTypes, .month, merge: false) {
            data.heart[MetricFilter.shortName(row.type), default: []].append(Point(row))
        }
        for row in try aggregate(bodyTypes, .day, merge: false) {
            data.body[MetricFilter.shortName(row.type), default: []].append(Point(row))
        }
        data.nights = try SleepQuery(store).nights(since: drawn.since, until: drawn.until, zone: drawn.zone)
        data.workouts = try WorkoutQuery(store).workouts(since: drawn.since, until: drawn.until, limit: 1_000_000).workouts
        data.routes = try RouteTally.load(store, since: options.since, until: options.until, late: late, workouts: data.workouts)
        for summary in try ECGQuery(store).ecgs(since: drawn.since, until: drawn.until).suffix(maxECGs) {
            if let at = epochSeconds(summary.recordedAt), let recording = try ECGQuery(store).ecg(recordedAt: at, maxSamples: 5000) {
                data.ecgs.append(recording)
            }
        }
        data.medications = MedicationQuery.adherence(try MedicationQuery(store).doses(since: drawn.since, until: drawn.until), zone: drawn.zone)
        if options.since != nil || options.until != nil {
            data.range = try RangeSummary.load(store, since: options.since, until: options.until, zone: options.zone, routes: data.routes.total)
        }
        return data
    }

    /// The goals of each day's ActivitySummary (stored as its metadata).
    private mutating func loadGoals(_ store: StagingStore, _ options: Options) throws {
        var after: SampleQuery.Cursor?
        repeat {
            after = try SampleQuery(store).samples(filter: MetricFilter(types: ["activitySummary"], since: options.since, until: options.until),
                                                   after: after, limit: 1000) { sample in
                let day = String(UTCDateFormatter.string(sample.startDate).prefix(10))
                let json = sample.metadataJSON.map { Data($0) } ?? Data()
                let metadata = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:]
                if let goal = Self.number(metadata["activeEnergyBurnedGoal"]) { energyGoal[day] = goal }
                if let goal = Self.number(metadata["appleExerciseTimeGoal"]) { exerciseGoal[day] = goal }
            }
        } while after != nil
    }

    private static func number(_ value: Any?) -> Double? {
        if let number = value as? NSNumber { return number.doubleValue }
        return (value as? String).flatMap(Double.init)
    }

    /// The days from the first to the last label, each with its value or 0.
    static func everyDay(_ values: [(String, Double)]) -> [(day: String, value: Double)] {
        let byDay = Dictionary(values) { a, _ in a }
        guard let first = values.map(\.0).min(), let last = values.map(\.0).max(),
              let from = dayNumber(first), let to = dayNumber(last) else { return [] }
        return (from...to).map { number in
            let day = String(UTCDateFormatter.string(Int64(number) * 86_400).prefix(10))
            return (day, byDay[day] ?? 0)
        }
    }

    static func dayNumber(_ day: String) -> Int? {
        let parts = day.prefix(10).split(separator: "-").compactMap { Int($0) }
        return parts.count == 3 ? Int(ExportDateParser.daysFromCivil(year: parts[0], month: parts[1], day: parts[2])) : nil
    }

    /// `2024-11-02T07:30:00Z` as seconds since 1970.
    static func epochSeconds(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { ExportDateParser.epochSeconds($0) }
    }
}

extension ReportData.Point {
    init(_ row: AggregateRow) {
        self.init(label: row.bucket, value: row.average, minimum: row.minimum, maximum: row.maximum, count: row.count)
    }
}
