import CloudSyncModel

/// Sleep in `aggregate`: by night, never by record (docs/aggregation.md, "Sleep: a night counted
/// once"). Summing records counted a night recorded by a Watch, an iPhone and another app three
/// times (28 hours in one night), and put the stages after midnight on the next day. A night is the
/// one `SleepQuery` gives the MCP `sleep` tool and the report (`SleepNightRule`): named by its
/// evening, asleep counted once across sources and stages, in bed apart.
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
    /// minutes of the nights that fall in it.
    func sleepRows(_ options: AggregateOptions) throws -> [AggregateRow] {
        let nights = try SleepQuery(store).mergedNights(since: options.filter.since, until: options.filter.until, zone: options.timeZone)
        var labeler = BucketLabeler(bucket: options.bucket, zone: options.timeZone)
        // (bucket key, category) → the minutes of each night or night-hour in it.
        var values: [Int64: [String: [Double]]] = [:]
        for night in nights {
            for category in ["asleep", "inBed"] {
                guard let time = night.stages[category], time.minutes > 0 else { continue }
                if options.bucket == .hour {
                    for (key, minutes) in Self.perHour(time.pieces, labeler: &labeler) { values[key, default: [:]][category, default: []].append(minutes) }
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

    /// The minutes of `pieces` in each local hour (by the hour's key): a piece's minutes spread evenly
    /// over it (a segment's fill it; a summarised night's are spread over the window they were in).
    private static func perHour(_ pieces: [(start: Int64, end: Int64, minutes: Double)], labeler: inout BucketLabeler) -> [Int64: Double] {
        var minutes: [Int64: Double] = [:]
        for piece in pieces where piece.end > piece.start {
            let perSecond = piece.minutes / Double(piece.end - piece.start)
            var at = piece.start
            while at < piece.end {
                let local = labeler.local(at)
                let hourLeft = 3600 - ((local % 3600) + 3600) % 3600
                let next = min(piece.end, at + hourLeft)
                minutes[labeler.key(at), default: 0] += Double(next - at) * perSecond
                at = next
            }
        }
        return minutes
    }
}
