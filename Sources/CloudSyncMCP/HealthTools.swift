import CloudSyncModel
import CloudSyncStore
import Foundation
import MCP

/// Answers the tools from the staging store, opened read-only, with the same code as `aggregate`
/// and `status`. One call at a time: the store's connections are not shared between threads.
final class HealthTools: @unchecked Sendable {
    private let store: StagingStore
    private let sql: ReadOnlySQL
    private let lock = NSLock()

    init(storePath: String) throws {
        store = try StagingStore(path: storePath, access: .read)
        try store.makeQueryOnly()
        sql = try ReadOnlySQL(path: storePath)
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
        case "records": return try records(arguments)
        case "sql": return try runSQL(arguments)
        default: throw ToolError("no tool named \(name); the tools are \(ToolCatalog.tools.map(\.name).joined(separator: ", "))")
        }
    }

    // MARK: overview

    private func overview() throws -> (Value, String) {
        let overview = try store.overview()
        var text = "\(overview.metrics) metrics of \(overview.types.count) types from \(overview.sources.count) sources"
        if overview.repeats > 0 { text += " (and \(overview.repeats) repeats, counted once)" }
        text += "; \(overview.workouts) workouts, \(overview.routes) routes, \(overview.ecgs) ECGs."
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

        /// Built directly: through JSONEncoder and back (`Value(_:)`) it took ~100 ms for 3,000 buckets.
        var value: Value {
            var object: [String: Value] = [
                "type": .string(type), "unit": .string(unit), "statistic": .string(statistic), "truncated": .bool(truncated),
                "buckets": .array(buckets.map { bucket in
                    .object(["label": .string(bucket.label), "value": Self.number(bucket.value), "count": .int(bucket.count),
                             "minimum": Self.number(bucket.minimum), "maximum": Self.number(bucket.maximum)])
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
        let type = try arguments.requiredString("type")
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
        if let stored = try store.sampleRange(filter: MetricFilter(types: [type])) {
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
        var text = series.note ?? "\(series.type): \(series.statistic) per \(bucket.rawValue) (\(series.unit)), \(series.buckets.count) buckets"
        for entry in series.buckets.suffix(10) { text += "\n\(entry.label): \(NumberFormatting.string(entry.value))" }
        if let cursor { text += "\n(more: call again with start = \(cursor), or use week or month buckets)" }
        return (series.value, text)
    }

    /// `aggregate`'s rows for one type, as the tool's buckets: the sum for amounts, else the average.
    private func aggregate(type: String, bucket: AggregateBucket, zone: TimeZone?, range: (since: Int64?, until: Int64?),
                           merge: Bool) throws -> Series {
        let filter = MetricFilter(types: [type], since: range.since, until: range.until)
        let rows = try store.aggregate(AggregateOptions(bucket: bucket, filter: filter, timeZone: zone, mergeSources: merge))
        guard let first = rows.first else {
            return Series(type: type, unit: "", statistic: "", buckets: [], truncated: false, cursor: nil,
                          note: try absence(of: type, range: range))
        }
        let cumulative = CumulativeTypes.contains(first.type)
        // A type stored in two units (rare) gives the buckets of the unit most samples have.
        let unit = Dictionary(grouping: rows, by: \.unit).max { $0.value.map(\.count).reduce(0, +) < $1.value.map(\.count).reduce(0, +) }!.key
        let buckets = rows.filter { $0.unit == unit }.map {
            Bucket(label: $0.bucket, value: NumberFormatting.roundedAfterConversion(cumulative ? $0.sum : $0.average), count: $0.count,
                   minimum: $0.minimum, maximum: $0.maximum)
        }
        return Series(type: first.type, unit: unit, statistic: cumulative ? "sum" : "average", buckets: buckets, truncated: false)
    }

    /// Why a question has no data: the type was never recorded, or not in that range.
    private func absence(of type: String, range: (since: Int64?, until: Int64?)) throws -> String {
        guard let stored = try store.sampleRange(filter: MetricFilter(types: [type])) else {
            return "the store has no \(type) samples: that type was never recorded (overview lists the types it has)"
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
        let type = try arguments.requiredString("type")
        let zone = try arguments.timeZone("timeZone")
        let merge = try arguments.bool("mergeSources", default: true)
        let periods = try ["first", "second"].map { name -> (String, String, (since: Int64?, until: Int64?)) in
            let period = try arguments.object(name)
            let range = try period.range(zone: zone)
            guard range.since != nil, range.until != nil else { throw ToolError("\(name) needs both start and end") }
            return (try period.requiredString("start"), try period.requiredString("end"), range)
        }
        var unit = "", statistic = ""
        var notes: [String] = []
        let statistics = try periods.map { start, end, range -> PeriodStatistic in
            let series = try aggregate(type: type, bucket: .day, zone: zone, range: range, merge: merge)
            if !series.unit.isEmpty { unit = series.unit; statistic = series.statistic }
            if let note = series.note { notes.append(note) }
            let days = Int(((range.until! - range.since!) + 86_399) / 86_400)
            let count = series.buckets.map(\.count).reduce(0, +)
            guard count > 0 else {
                return PeriodStatistic(start: start, end: end, value: nil, count: 0, minimum: nil, maximum: nil, days: days, dailyAverage: nil)
            }
            let value = series.statistic == "sum"
                ? series.buckets.map(\.value).reduce(0, +)
                : series.buckets.map { $0.value * Double($0.count) }.reduce(0, +) / Double(count)
            return PeriodStatistic(start: start, end: end, value: NumberFormatting.roundedAfterConversion(value), count: count,
                                   minimum: series.buckets.map(\.minimum).min(), maximum: series.buckets.map(\.maximum).max(), days: days,
                                   dailyAverage: series.statistic == "sum" ? NumberFormatting.roundedAfterConversion(value / Double(days)) : nil)
        }
        let (a, b) = (statistics[0], statistics[1])
        var difference: [String: Double?] = ["absolute": nil, "relative": nil]
        if let x = a.value, let y = b.value {
            difference["absolute"] = NumberFormatting.roundedAfterConversion(y - x)
            difference["relative"] = x == 0 ? nil : NumberFormatting.roundedAfterConversion((y - x) / x)
        }
        let comparison = Comparison(type: type, unit: unit, statistic: statistic, first: a, second: b, difference: difference,
                                    note: notes.isEmpty ? nil : notes.joined(separator: "; "))
        var text = "\(type) (\(statistic), \(unit)): \(a.value.map(NumberFormatting.string) ?? "no data") in \(a.start)…\(a.end), "
            + "\(b.value.map(NumberFormatting.string) ?? "no data") in \(b.start)…\(b.end)"
        if let relative = difference["relative"] ?? nil { text += String(format: " (%+.1f%%)", relative * 100) }
        if let note = comparison.note { text += "\n\(note)" }
        return (try Value(comparison), text)
    }

    // MARK: sleep, workouts, routes, ECGs

    private func sleep(_ arguments: ToolArguments) throws -> (Value, String) {
        let zone = try arguments.timeZone("timeZone")
        let range = try arguments.range(zone: zone)
        // A night began the evening before the samples after midnight: look 12 hours further on both sides.
        let nights = try store.sleepNights(since: range.since.map { $0 + 12 * 3600 - 86_400 }, until: range.until.map { $0 + 12 * 3600 },
                                           zone: zone).filter { night in
            // The range's local dates: a night is in it when the evening it began is.
            func localDate(_ instant: Int64) -> Substring {
                UTCDateFormatter.string(instant + Int64(zone?.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))) ?? 0)).prefix(10)
            }
            if let since = range.since, night.night < localDate(since) { return false }
            if let until = range.until, night.night >= localDate(until) { return false }
            return true
        }
        struct Nights: Codable { var nights: [SleepNight]; var note: String? }
        let note = nights.isEmpty ? "no sleep samples in that range" : nil
        var text = note ?? "\(nights.count) nights"
        for night in nights.suffix(7) {
            text += "\n\(night.night): asleep \(Int(night.asleep)) min (deep \(Int(night.deep)), REM \(Int(night.rem))), in bed \(Int(night.inBed))"
        }
        return (try Value(Nights(nights: nights, note: note)), text)
    }

    private func workouts(_ arguments: ToolArguments) throws -> (Value, String) {
        let range = try arguments.range(zone: nil)
        let limit = try arguments.int("limit", default: 100, in: 1...1000)
        let found = try store.workouts(activity: try arguments.string("type"), since: range.since, until: range.until, limit: limit)
        struct Workouts: Codable { var workouts: [WorkoutSummary]; var truncated: Bool; var note: String? }
        let note = found.workouts.isEmpty ? "no workouts in that range" : nil
        var text = note ?? "\(found.workouts.count) workouts\(found.truncated ? " (more: narrow the range or raise the limit)" : "")"
        for workout in found.workouts.suffix(10) {
            text += "\n\(workout.start) \(workout.type) \(NumberFormatting.string(workout.duration)) min"
                + (workout.distance.map { ", \(NumberFormatting.string($0)) km" } ?? "")
        }
        return (try Value(Workouts(workouts: found.workouts, truncated: found.truncated, note: note)), text)
    }

    private func workoutRoute(_ arguments: ToolArguments) throws -> (Value, String) {
        let start = try ToolArguments.instant(try arguments.requiredString("start"), name: "start", zone: nil, isEnd: false)
        let maxPoints = try arguments.int("maxPoints", default: 500, in: 2...5000)
        guard let route = try store.route(at: start, maxPoints: maxPoints) else {
            return (.object(["found": false, "note": "no stored route for a workout at that time"]), "No stored route for a workout at that time.")
        }
        var feature = ByteBuffer(capacity: 64 << 10)
        RecordJSON.appendFeature(route, to: &feature)
        let geometry = try feature.withBytes { try JSONDecoder().decode(Value.self, from: Data($0)) }
        return (.object(["found": true, "feature": geometry]),
                "Route of the \(route.workoutType ?? "workout") at \(route.workoutStart.map(UTCDateFormatter.string) ?? "?"): \(route.points.count) points")
    }

    private func ecg(_ arguments: ToolArguments) throws -> (Value, String) {
        struct Recordings: Codable { var recordings: [ECGSummary]; var note: String? }
        if let at = try arguments.string("recordedAt") {
            let instant = try ToolArguments.instant(at, name: "recordedAt", zone: nil, isEnd: false)
            let maxSamples = try arguments.int("maxSamples", default: 1000, in: 2...20_000)
            guard let recording = try store.ecg(recordedAt: instant, maxSamples: maxSamples) else {
                return (try Value(Recordings(recordings: [], note: "no ECG recorded at \(at)")), "No ECG recorded at \(at).")
            }
            return (try Value(Recordings(recordings: [recording])),
                    "ECG \(recording.recordedAt): \(recording.classification ?? "unclassified"), \(recording.samples?.count ?? 0) samples")
        }
        let range = try arguments.range(zone: nil)
        let recordings = try store.ecgs(since: range.since, until: range.until)
        let note = recordings.isEmpty ? "no ECG recordings in that range" : nil
        var text = note ?? "\(recordings.count) ECG recordings"
        for recording in recordings.suffix(10) { text += "\n\(recording.recordedAt): \(recording.classification ?? "unclassified")" }
        return (try Value(Recordings(recordings: recordings, note: note)), text)
    }

    // MARK: records and sql

    private func records(_ arguments: ToolArguments) throws -> (Value, String) {
        let type = try arguments.requiredString("type")
        let range = try arguments.range(zone: nil)
        let limit = try arguments.int("limit", default: 100, in: 1...1000)
        var after: (start: Int64, id: Int64)?
        if let cursor = try arguments.string("cursor") {
            let parts = cursor.split(separator: ":").compactMap { Int64($0) }
            guard parts.count == 2 else { throw ToolError("cursor '\(cursor)' is not one this tool gave") }
            after = (parts[0], parts[1])
        }
        let page = try store.samples(filter: MetricFilter(types: [type], since: range.since, until: range.until), after: after, limit: limit)
        let note = page.samples.isEmpty && after == nil ? try absence(of: type, range: range) : nil
        let cursor = page.next.map { "\($0.start):\($0.id)" }
        var text = note ?? "\(page.samples.count) \(type) samples"
        if let cursor { text += " (more: cursor \(cursor))" }
        for sample in page.samples.prefix(10) { text += "\n\(sample.start) \(NumberFormatting.string(sample.value)) \(sample.unit) (\(sample.source))" }
        // Built directly: through JSONEncoder and back (`Value(_:)`) a page of 100 took ~60 ms.
        var object: [String: Value] = ["records": .array(page.samples.map(Self.value)), "truncated": .bool(cursor != nil)]
        if let cursor { object["cursor"] = .string(cursor) }
        if let note { object["note"] = .string(note) }
        return (.object(object), text)
    }

    private static func value(_ sample: StoredSample) -> Value {
        .object(["type": .string(sample.type), "start": .string(sample.start), "end": .string(sample.end),
                 "value": Series.number(sample.value), "unit": .string(sample.unit), "source": .string(sample.source),
                 "device": .string(sample.device), "metadata": .string(sample.metadata), "isRepeat": .bool(sample.isRepeat)])
    }

    private func runSQL(_ arguments: ToolArguments) throws -> (Value, String) {
        let query = try arguments.requiredString("query")
        let limit = try arguments.int("limit", default: 1000, in: 1...10_000)
        let result: ReadOnlySQL.Result
        do {
            result = try sql.run(query, limit: limit)
        } catch {
            throw ToolError("\(error)")
        }
        var text = "\(result.rows.count) rows\(result.truncated ? " (truncated at \(limit))" : ""): \(result.columns.joined(separator: ", "))"
        for row in result.rows.prefix(20) {
            text += "\n" + row.map { cell -> String in
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
