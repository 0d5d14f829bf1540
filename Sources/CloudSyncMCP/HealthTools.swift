import CloudSyncKinds
import CloudSyncModel
import CloudSyncStore
import Foundation
import Logging
import MCP

/// Answers the tools from the staging store, opened read-only, with the same code as `aggregate`
/// and `status`. One call at a time: the store's connections are not shared between threads.
final class HealthTools: @unchecked Sendable {
    let store: StagingStore
    /// Nil on a clinic's PostgreSQL: the `sql` tool's guard is SQLite's (an authorizer on a
    /// read-only connection), which PostgreSQL's store does not have.
    private let sql: ReadOnlySQL?
    private let lock = NSLock()

    /// `logger` is told each build of the `sql` tool's `daily` view (zone, rows, time): the one
    /// answer whose cost depends on the store's size, so the first to look at when a call is slow.
    init(store address: StoreAddress, logger: Logger) throws {
        store = try address.open(.read, configuration: .standard)
        try store.makeQueryOnly()
        sql = store.isPostgres ? nil : try ReadOnlySQL(store: store) { build in
            logger.info("built the daily view", metadata: [
                "daily.zone": "\(build.zone)", "daily.rows": "\(build.rows)",
                "daily.ms": "\(Int((build.seconds * 1000).rounded()))", "daily.reason": "\(build.reason.rawValue)",
            ])
        }
    }

    /// The structured result and its short text rendering; a `ToolError` for a call it refuses.
    func call(_ name: String, _ arguments: ToolArguments) throws -> (Value, String) {
        lock.lock()
        defer { lock.unlock() }
        switch name {
        case "overview": return try overview()
        case "series": return try series(arguments)
        case "compare_periods": return try comparePeriods(arguments)
        case "sleep": return try sleep(arguments)
        case "workouts": return try workouts(arguments)
        case "workout_route": return try workoutRoute(arguments)
        case "ecg": return try ecg(arguments)
        case "medications": return try medications(arguments)
        case "records": return try records(arguments)
        case "sql": return try runSQL(arguments)
        default: throw ToolError("no tool named \(name); the tools are \(ToolCatalog.tools.map(\.name).joined(separator: ", "))")
        }
    }

    // MARK: overview

    private func overview() throws -> (Value, String) {
        let overview = try OverviewQuery(store).overview()
        var text = "\(counted(overview.metrics, "metric")) of \(counted(overview.types.count, "type")) from \(counted(overview.sources.count, "source"))"
        if overview.repeats > 0 { text += " (and \(counted(overview.repeats, "repeat")), counted once)" }
        let records = RecordKinds.all.compactMap { kind in
            overview.records[kind.name].flatMap { $0 > 0 ? counted($0, kind.noun.singular, kind.noun.plural) : nil }
        }
        text += "; " + ([counted(overview.workouts, "workout")] + records).joined(separator: ", ") + "."
        for type in overview.types.sorted(by: { $0.count > $1.count }).prefix(20) {
            text += "\n\(type.type) (\(type.unit)): \(type.count) from \(type.first.prefix(10)) to \(type.last.prefix(10))"
        }
        return (try Value(overview), text)
    }

    // MARK: series and compare_periods

    struct Bucket: Codable {
        var label: String
        var value: Double
        var count: Int
        var minimum: Double
        var maximum: Double
    }

    struct Series: Codable {
        var type: String
        var unit: String
        var statistic: String
        var buckets: [Bucket]
        var truncated: Bool
        var cursor: String?
        var note: String?

        /// A statistic of this series as a person reads it (`Readable`): the one rounding of its numbers.
        func readable(_ value: Double) -> Double { Readable.statistic(value, unit: unit, isSum: statistic == "sum") }

        /// Built directly: through JSONEncoder and back (`Value(_:)`) it took ~100 ms for 3,000 buckets.
        var value: Value {
            var object: [String: Value] = [
                "type": .string(type), "unit": .string(unit), "statistic": .string(statistic), "truncated": .bool(truncated),
                "buckets": .array(buckets.map { bucket in
                    .object(["label": .string(bucket.label), "value": Self.number(readable(bucket.value)), "count": .int(bucket.count),
                             "minimum": Self.number(readable(bucket.minimum)), "maximum": Self.number(readable(bucket.maximum))])
                }),
            ]
            if let cursor { object["cursor"] = .string(cursor) }
            if let note { object["note"] = .string(note) }
            return .object(object)
        }

        /// Whole numbers as integers, as JSONEncoder writes them.
        static func number(_ value: Double) -> Value {
            value == value.rounded() && abs(value) < 1e15 ? .int(Int(value)) : .double(value)
        }
    }

    /// Buckets per answer: about 30 KB of JSON, 8,000 tokens of an assistant's context. Years of daily
    /// values come a page at a time (`cursor`), each page read from the store for its own range.
    static let bucketsPerPage = 400

    private func series(_ arguments: ToolArguments) throws -> (Value, String) {
        let type = try resolvedType(arguments)
        guard let bucket = AggregateBucket(rawValue: try arguments.requiredString("bucket")) else {
            throw ToolError("bucket must be hour, day, week or month")
        }
        let zone = try arguments.timeZone("timeZone")
        var range = try arguments.range(zone: zone)
        let merge = try arguments.bool("mergeSources", default: true)
        // The page: from the start asked (else the type's first sample) up to 400 buckets on.
        // Pages cover the stored samples only: a start before the first one begins at it, and there is
        // no next page past the last one (nor for a type never recorded).
        var cursor: String?
        if let stored = try OverviewQuery(store).sampleRange(filter: MetricFilter(types: [type])) {
            let first = max(range.since ?? stored.first, stored.first)
            let limit = min(range.until ?? (stored.last + 1), stored.last + 1)
            let pageEnd = PageWindow.end(from: first, buckets: Self.bucketsPerPage, bucket: bucket, zone: zone)
            if pageEnd < limit {
                // From the start of the first sample's bucket when the question starts before it:
                // the same samples, and a range on whole hours, which the hour summary answers.
                let pageStart = (range.since ?? .min) <= stored.first ? PageWindow.end(from: first, buckets: 0, bucket: bucket, zone: zone) : first
                range = (pageStart, pageEnd)
                cursor = UTCDateFormatter.string(pageEnd)
            }
        }
        var series = try aggregate(type: type, bucket: bucket, zone: zone, range: range, merge: merge)
        series.cursor = cursor
        series.truncated = cursor != nil
        var text = series.note ?? SeriesText.render(series, bucket: bucket)
        if let cursor { text += "\n(more: call again with start = \(cursor), or use week or month buckets)" }
        return (series.value, text)
    }

    /// `aggregate`'s rows for one type, as the tool's buckets: the sum for amounts, else the average.
    private func aggregate(type: String, bucket: AggregateBucket, zone: TimeZone?, range: (since: Int64?, until: Int64?),
                           merge: Bool) throws -> Series {
        let filter = MetricFilter(types: [type], since: range.since, until: range.until)
        // Sleep's buckets are its nights' minutes asleep (AggregateQuery+Sleep), an amount like steps.
        let rows = try AggregateQuery(store).aggregate(AggregateOptions(bucket: bucket, filter: filter, timeZone: zone, mergeSources: merge))
            .filter { $0.category == nil || $0.category == "asleep" }
        guard let first = rows.first else {
            return Series(type: type, unit: "", statistic: "", buckets: [], truncated: false, cursor: nil,
                          note: try absence(of: type, range: range))
        }
        let cumulative = CumulativeTypes.contains(first.type) || first.category != nil
        // A type stored in two units (rare) gives the buckets of the unit most samples have.
        let unit = Dictionary(grouping: rows, by: \.unit).max { $0.value.map(\.count).reduce(0, +) < $1.value.map(\.count).reduce(0, +) }!.key
        let buckets = rows.filter { $0.unit == unit }.map {
            Bucket(label: $0.bucket, value: NumberFormatting.roundedAfterConversion(cumulative ? $0.sum : $0.average), count: $0.count,
                   minimum: $0.minimum, maximum: $0.maximum)
        }
        return Series(type: first.type, unit: unit, statistic: cumulative ? "sum" : "average", buckets: buckets, truncated: false)
    }

    /// The `type` argument as the store names it (`steps` → `HKQuantityTypeIdentifierStepCount`); a
    /// real type the store has no samples of by its short name, for `absence` to say so; a name that
    /// is no type is refused with the store's closest names (`TypeResolution`).
    private func resolvedType(_ arguments: ToolArguments) throws -> String {
        let given = try arguments.requiredString("type")
        let stored = try OverviewQuery(store).sampleTypes()
        switch TypeResolution.resolve(given, stored: stored) {
        case .stored(let name), .notRecorded(let name):
            return name
        case .unknown(let suggestions):
            var message = "type '\(given)' is not a type the store holds"
            if !suggestions.isEmpty {
                message += "; did you mean \(suggestions.joined(separator: ", "))?"
            } else if stored.count <= 12 {
                message += "; it holds \(stored.map(MetricFilter.shortName).joined(separator: ", "))"
            }
            throw ToolError(message + " (overview lists \(counted(stored.count, "type")) with their ranges)")
        }
    }

    /// Why a question has no data: the type was never recorded, or not in that range.
    private func absence(of type: String, range: (since: Int64?, until: Int64?)) throws -> String {
        guard let stored = try OverviewQuery(store).sampleRange(filter: MetricFilter(types: [type])) else {
            return "the store has no \(MetricFilter.shortName(type)) samples: that type was never recorded (overview lists the types it has)"
        }
        return "no \(type) samples in that range: the store has them from \(UTCDateFormatter.string(stored.first)) to \(UTCDateFormatter.string(stored.last))"
    }

    struct PeriodStatistic: Codable {
        var start: String
        var end: String
        var value: Double?
        var count: Int
        var minimum: Double?
        var maximum: Double?
        var days: Int
        var dailyAverage: Double?
    }

    struct Comparison: Codable {
        var type: String
        var unit: String
        var statistic: String
        var first: PeriodStatistic
        var second: PeriodStatistic
        var difference: [String: Double?]
        var note: String?
    }

    private func comparePeriods(_ arguments: ToolArguments) throws -> (Value, String) {
        let type = try resolvedType(arguments)
        let zone = try arguments.timeZone("timeZone")
        let merge = try arguments.bool("mergeSources", default: true)
        let periods = try ["first", "second"].map { name -> (start: String, end: String, since: Int64, until: Int64) in
            let period = try arguments.object(name)
            let range = try period.range(zone: zone)
            guard let since = range.since, let until = range.until else { throw ToolError("\(name) needs both start and end") }
            return (try period.requiredString("start"), try period.requiredString("end"), since, until)
        }
        let measured = try periods.map { try aggregate(type: type, bucket: .day, zone: zone, range: ($0.since, $0.until), merge: merge) }
        // Both periods are of one type: its unit and statistic are those of whichever has data.
        let described = measured.first { !$0.unit.isEmpty } ?? measured[0]
        let (unit, statistic) = (described.unit, described.statistic)
        let isSum = statistic == "sum"
        func readable(_ value: Double) -> Double { Readable.statistic(value, unit: unit, isSum: isSum) }
        // Computed unrounded (a period's value from its days' values), rounded once as it is given.
        let values = measured.map { series -> Double? in
            let count = series.buckets.map(\.count).reduce(0, +)
            guard count > 0 else { return nil }
            return isSum ? series.buckets.map(\.value).reduce(0, +)
                : series.buckets.map { $0.value * Double($0.count) }.reduce(0, +) / Double(count)
        }
        let statistics = zip(periods, zip(measured, values)).map { period, result -> PeriodStatistic in
            let (series, value) = result
            // Calendar days in the zone, as the dates name them: a week with a clock change is 7.
            let days = CalendarDays.count(since: period.since, until: period.until, zone: zone)
            return PeriodStatistic(start: period.start, end: period.end, value: value.map(readable), count: series.buckets.map(\.count).reduce(0, +),
                                   minimum: series.buckets.map(\.minimum).min().map(readable),
                                   maximum: series.buckets.map(\.maximum).max().map(readable), days: days,
                                   dailyAverage: isSum ? value.map { Readable.number($0 / Double(days)) } : nil)
        }
        let (a, b) = (statistics[0], statistics[1])
        var difference: [String: Double?] = ["absolute": nil, "relative": nil]
        if let x = values[0], let y = values[1] {
            difference["absolute"] = readable(y - x)
            difference["relative"] = x == 0 ? nil : Readable.number((y - x) / x)
        }
        var notes: [String] = []
        for note in measured.compactMap(\.note) where !notes.contains(note) { notes.append(note) }
        let comparison = Comparison(type: described.type, unit: unit, statistic: statistic, first: a, second: b, difference: difference,
                                    note: notes.isEmpty ? nil : notes.joined(separator: "; "))
        func describe(_ period: PeriodStatistic) -> String {
            guard let value = period.value else { return "no data in \(period.start)…\(period.end)" }
            let perDay = period.dailyAverage.map { ", \(Readable.text($0)) a day" } ?? ""
            return "\(Readable.text(value)) in \(period.start)…\(period.end) (\(counted(period.days, "day"))\(perDay))"
        }
        var text = "\(comparison.type) (\(statistic), \(unit)): \(describe(a)), then \(describe(b))"
        if let relative = difference["relative"] ?? nil { text += String(format: "; %+.1f%%", relative * 100) }
        if let note = comparison.note { text += "\n\(note)" }
        return (try Value(comparison), text)
    }

    // MARK: sleep, workouts, routes, ECGs

    private func sleep(_ arguments: ToolArguments) throws -> (Value, String) {
        let zone = try arguments.timeZone("timeZone")
        let range = try arguments.range(zone: zone)
        // A night is in the range when the evening it began is (SleepQuery: the same nights as
        // `aggregate` and the report).
        let nights = try SleepQuery(store).nights(since: range.since, until: range.until, zone: zone)
        .map { night in
            var readable = night
            for stage in [\SleepNight.inBed, \.asleep, \.core, \.deep, \.rem, \.awake] { readable[keyPath: stage] = Readable.number(night[keyPath: stage]) }
            return readable
        }
        struct Nights: Codable { var nights: [SleepNight]; var note: String? }
        let note = nights.isEmpty ? "no sleep samples in that range" : nil
        var text = note ?? counted(nights.count, "night")
        text += TextList.lines(nights, noun: "night") { night in
            "\(night.night): asleep \(Readable.text(night.asleep)) min (deep \(Readable.text(night.deep)), REM \(Readable.text(night.rem))), "
                + "in bed \(Readable.text(night.inBed))"
        }
        return (try Value(Nights(nights: nights, note: note)), text)
    }

    private func workouts(_ arguments: ToolArguments) throws -> (Value, String) {
        let range = try arguments.range(zone: nil)
        let limit = try arguments.int("limit", default: 100, in: 1...1000)
        let found = try WorkoutQuery(store).workouts(activity: try arguments.string("type"), since: range.since, until: range.until, limit: limit)
        let workouts = found.workouts.map { workout in
            var readable = workout
            readable.duration = Readable.number(workout.duration)
            readable.distance = Readable.number(workout.distance)
            readable.energy = Readable.number(workout.energy)
            readable.averageHeartRate = Readable.number(workout.averageHeartRate)
            return readable
        }
        struct Workouts: Codable { var workouts: [WorkoutSummary]; var truncated: Bool; var note: String? }
        let note = workouts.isEmpty ? "no workouts in that range" : nil
        var text = note ?? "\(counted(workouts.count, "workout"))\(found.truncated ? " (more: narrow the range or raise the limit)" : "")"
        text += TextList.lines(workouts, noun: "workout") { workout in
            "\(workout.start) \(workout.type) \(Readable.text(workout.duration)) min"
                + (workout.distance.map { ", \(Readable.text($0)) km" } ?? "") + (workout.energy.map { ", \(Readable.text($0)) kcal" } ?? "")
        }
        return (try Value(Workouts(workouts: workouts, truncated: found.truncated, note: note)), text)
    }

    private func workoutRoute(_ arguments: ToolArguments) throws -> (Value, String) {
        let start = try ToolArguments.instant(try arguments.requiredString("start"), name: "start", zone: nil, isEnd: false)
        let maxPoints = try arguments.int("maxPoints", default: 500, in: 2...5000)
        guard let route = try RouteQuery(store).route(at: start, maxPoints: maxPoints) else {
            return (.object(["found": false, "note": "no stored route for a workout at that time"]), "No stored route for a workout at that time.")
        }
        var feature = ByteBuffer(capacity: 64 << 10)
        RouteKind.appendFeature(route, to: &feature)
        let geometry = try feature.withBytes { try JSONDecoder().decode(Value.self, from: Data($0)) }
        return (.object(["found": true, "feature": geometry]),
                "Route of the \(route.workoutType ?? "workout") at \(route.workoutStart.map { UTCDateFormatter.string($0) } ?? "?"): \(counted(route.points.count, "point"))")
    }

    private func ecg(_ arguments: ToolArguments) throws -> (Value, String) {
        struct Recordings: Codable { var recordings: [ECGSummary]; var note: String? }
        let zone = try arguments.timeZone("timeZone")
        let maxSamples = try arguments.int("maxSamples", default: 1000, in: 2...20_000)
        func answer(_ recordings: [ECGSummary], note: String?, withSamples: Bool) throws -> (Value, String) {
            let readable = recordings.map { recording in
                var readable = recording
                readable.sampleRateHz = Readable.number(recording.sampleRateHz)
                readable.samplesRateHz = Readable.number(recording.samplesRateHz)
                return readable
            }
            var text = note ?? counted(readable.count, "ECG recording")
            text += TextList.lines(readable, noun: "recording") { recording in
                "\(recording.recordedAt): \(recording.classification ?? "unclassified")"
                    + (withSamples ? ", \(counted(recording.samples?.count ?? 0, "sample"))" : "")
            }
            return (try Value(Recordings(recordings: readable, note: note)), text)
        }
        if let at = try arguments.string("recordedAt") {
            // A date: every recording of that day in the zone, each with its voltages; an answer
            // holds at most 20,000 voltages, shared between them.
            if let day = try ToolArguments.dayRange(at, name: "recordedAt", zone: zone) {
                let count = try ECGQuery(store).ecgs(since: day.since, until: day.until).count
                guard count > 0 else { return try answer([], note: "no ECG recorded on \(at)", withSamples: true) }
                let each = max(2, min(maxSamples, 20_000 / count))
                return try answer(try ECGQuery(store).ecgs(since: day.since, until: day.until, maxSamples: each), note: nil, withSamples: true)
            }
            let instant = try ToolArguments.instant(at, name: "recordedAt", zone: zone, isEnd: false)
            guard let recording = try ECGQuery(store).ecg(recordedAt: instant, maxSamples: maxSamples) else {
                return try answer([], note: "no ECG recorded at \(at) (a date, 2024-10-21, gives every ECG of that day)", withSamples: true)
            }
            return try answer([recording], note: nil, withSamples: true)
        }
        let range = try arguments.range(zone: zone)
        let recordings = try ECGQuery(store).ecgs(since: range.since, until: range.until)
        return try answer(recordings, note: recordings.isEmpty ? "no ECG recordings in that range" : nil, withSamples: false)
    }

    // MARK: records and sql

    private func records(_ arguments: ToolArguments) throws -> (Value, String) {
        let type = try resolvedType(arguments)
        let range = try arguments.range(zone: nil)
        let limit = try arguments.int("limit", default: 100, in: 1...1000)
        var after: SampleQuery.Cursor?
        if let cursor = try arguments.string("cursor") {
            let parts = cursor.split(separator: ":").compactMap { Int64($0) }
            guard parts.count == 2 else { throw ToolError("cursor '\(cursor)' is not one this tool gave") }
            after = SampleQuery.Cursor(start: parts[0], id: parts[1])
        }
        // Built directly from the stored rows' bytes: through JSONEncoder and back (`Value(_:)`) a
        // page of 100 took ~60 ms.
        var records: [Value] = []
        var lines: [String] = []
        let next = try SampleQuery(store).samples(filter: MetricFilter(types: [type], since: range.since, until: range.until),
                                                  after: after, limit: limit) { sample in
            let start = UTCDateFormatter.string(sample.startDate), unit = sample.unit.string, source = sample.sourceApp.string
            records.append(.object(["type": .string(sample.type.string), "start": .string(start),
                                    "end": .string(UTCDateFormatter.string(sample.endDate)), "value": Series.number(sample.value),
                                    "unit": .string(unit), "source": .string(source), "device": .string(sample.device.string),
                                    "metadata": .string((sample.metadataJSON ?? .empty).string)]))
            // Raw samples: their values as stored.
            lines.append("\(start) \(NumberFormatting.string(sample.value)) \(unit) (\(source))")
        }
        let note = records.isEmpty && after == nil ? try absence(of: type, range: range) : nil
        let cursor = next.map { "\($0.start):\($0.id)" }
        var text = note ?? "\(counted(records.count, "\(MetricFilter.shortName(type)) sample"))"
        if let cursor { text += " (more: cursor \(cursor))" }
        text += TextList.lines(lines, noun: "sample") { $0 }
        var object: [String: Value] = ["records": .array(records), "truncated": .bool(cursor != nil)]
        if let cursor { object["cursor"] = .string(cursor) }
        if let note { object["note"] = .string(note) }
        return (.object(object), text)
    }

    private func runSQL(_ arguments: ToolArguments) throws -> (Value, String) {
        let query = try arguments.requiredString("query")
        let limit = try arguments.int("limit", default: 1000, in: 1...10_000)
        // The days of the `daily` view are in this zone.
        let zone = try arguments.timeZone("timeZone")
        guard let sql else {
            throw ToolError("the sql tool reads a store file only; this store is a patient's in a clinic's PostgreSQL: "
                            + "the other tools answer from it")
        }
        let result: ReadOnlySQL.Result
        do {
            result = try sql.run(query, limit: limit, timeZone: zone)
        } catch {
            throw ToolError("\(error)")
        }
        var text = "\(counted(result.rows.count, "row"))\(result.truncated ? " (truncated at \(limit))" : "")"
        if let zone = result.timeZone { text += " (daily in \(zone))" }
        text += ": \(result.columns.joined(separator: ", "))"
        text += TextList.lines(result.rows, noun: "row") { row in
            row.map { cell -> String in
                switch cell {
                case .int(let value): return String(value)
                case .double(let value): return NumberFormatting.string(value)
                case .text(let value): return value
                case .null: return "NULL"
                }
            }.joined(separator: " | ")
        }
        return (try Value(result), text)
    }
}
