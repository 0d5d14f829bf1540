import CloudSyncModel

/// A workout as the assistant sees it: its kind, span and amounts, and whether a route is stored.
public struct WorkoutSummary: Sendable, Codable, Equatable {
    public var type: String
    public var start: String
    public var end: String
    /// Minutes.
    public var duration: Double
    /// Kilometres and kilocalories, when the workout has them.
    public var distance: Double?
    public var energy: Double?
    public var averageHeartRate: Double?
    public var source: String
    public var hasRoute: Bool
}

/// The workouts that count, as the assistant and the report list them.
public struct WorkoutQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

    /// Workouts starting in [since, until), oldest first, at most `limit` (and whether there were more).
    /// `activity` is a short name (`running`) or an identifier (`HKWorkoutActivityTypeRunning`).
    public func workouts(activity: String? = nil, since: Int64? = nil, until: Int64? = nil,
                         limit: Int) throws -> (workouts: [WorkoutSummary], truncated: Bool) {
        try storeErrors {
            var conditions = MetricConditions(.all) { _ in [] }
            conditions.add("m.type_id = (SELECT id FROM metric_type WHERE name = 'workout')")
            let dialect = database.dialect
            func member(_ key: String) -> String { dialect.metadataMember("m.extra", key) }
            if let activity {
                let short = activity.hasPrefix("HKWorkoutActivityType") ? String(activity.dropFirst(21)) : activity
                conditions.add("lower(\(member("activityType"))) = lower(?)", .text(short))
            }
            if let since { conditions.add("m.start_date >= ?", .int(since)) }
            if let until { conditions.add("m.start_date < ?", .int(until)) }
            let rows = try database.prepare("""
                SELECT \(member("activityType")), m.start_date, m.end_date, m.value,
                       \(dialect.real(member("totalDistanceKm"))), \(dialect.real(member("totalEnergyKcal"))),
                       \(dialect.real(member("heartRateAverage"))), s.name,
                       EXISTS (SELECT 1 FROM route r WHERE r.workout_start = m.start_date)
                FROM \(CountedRows.view) m JOIN source s ON s.id = m.source_id \(conditions.whereClause)
                ORDER BY m.start_date LIMIT ?
                """)
            try rows.bind(conditions.arguments + [.int(Int64(limit) + 1)])
            var result: [WorkoutSummary] = []
            while try rows.step() {
                result.append(WorkoutSummary(type: rows.text(0) ?? "other", start: UTCDateFormatter.string(rows.int64(1)),
                                             end: UTCDateFormatter.string(rows.int64(2)), duration: rows.double(3),
                                             distance: rows.optionalDouble(4), energy: rows.optionalDouble(5),
                                             averageHeartRate: rows.optionalDouble(6), source: rows.text(7) ?? "",
                                             hasRoute: rows.int64(8) != 0))
            }
            let truncated = result.count > limit
            return (Array(result.prefix(limit)), truncated)
        }
    }
}
