import CloudSyncModel

/// Sleep in `aggregate`: by night, never by record (docs/aggregation.md, "Sleep: a night counted
/// once"). Summing records counted a night recorded by a Watch, an iPhone and another app three
/// times (28 hours in one night), and put the stages after midnight on the next day. A night is the
/// one `SleepQuery` gives the MCP `sleep` tool and the report: named by its evening, asleep the union
/// of every asleep stage of every source, in bed apart.
extension AggregateQuery {
    static let sleepType = "HKCategoryTypeIdentifierSleepAnalysis"

    /// The sleep type's id when the question asks for it (and the store has it).
    func sleepTypeID(_ options: AggregateOptions) throws -> Int64? {
        guard let id = try database.scalarInt("SELECT id FROM metric_type WHERE name = ?", [.text(Self.sleepType)]) else { return nil }
        guard let types = options.filter.types else { return id }
        return try typeIDs(matching: types).contains(id) ? id : nil
    }

    /// Per bucket, a row of the nights' minutes asleep and one of their minutes in bed: a day is one
    /// night (count 1), a week or a month its nights (the average is per night). An hour holds the
    /// minutes of the nights' merged spans that fall in it.
    func sleepRows(_ options: AggregateOptions) throws -> [AggregateRow] {
        let nights = try SleepQuery(store).mergedNights(since: options.filter.since, until: options.filter.until, zone: options.timeZone)
        var labeler = BucketLabeler(bucket: options.bucket, zone: options.timeZone)
        // (bucket key, category) → the minutes of each night or night-hour in it.
        var values: [Int64: [String: [Double]]] = [:]
        for night in nights {
            for category in ["asleep", "inBed"] {
                guard let spans = night.spans[category], !spans.isEmpty else { continue }
                if options.bucket == .hour {
                    for (key, seconds) in Self.perHour(spans, labeler: &labeler) { values[key, default: [:]][category, default: []].append(Double(seconds) / 60) }
                } else {
                    values[labeler.key(localDay: night.day), default: [:]][category, default: []].append(night.minutes(category))
                }
            }
        }
        var rows: [AggregateRow] = []
        for key in values.keys.sorted() {
            for category in ["asleep", "inBed"] {
                guard let minutes = values[key]?[category], !minutes.isEmpty else { continue }
                let sum = minutes.reduce(0, +)
                rows.append(AggregateRow(type: Self.sleepType, bucket: labeler.label(key), unit: "min", count: minutes.count, sum: sum,
                                         average: sum / Double(minutes.count), minimum: minutes.min()!, maximum: minutes.max()!,
                                         category: category))
            }
        }
        return rows
    }

    /// The seconds of `spans` in each local hour (by the hour's key).
    private static func perHour(_ spans: [(start: Int64, end: Int64)], labeler: inout BucketLabeler) -> [Int64: Int64] {
        var seconds: [Int64: Int64] = [:]
        for span in spans {
            var at = span.start
            while at < span.end {
                let local = labeler.local(at)
                let hourLeft = 3600 - ((local % 3600) + 3600) % 3600
                let next = min(span.end, at + hourLeft)
                seconds[labeler.key(at), default: 0] += next - at
                at = next
            }
        }
        return seconds
    }
}
