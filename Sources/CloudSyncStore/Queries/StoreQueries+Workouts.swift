import CloudSyncExport
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

extension StoreQueries {
    /// Workouts starting in [since, until), oldest first, at most `limit` (and whether there were more).
    /// `activity` is a short name (`running`) or an identifier (`HKWorkoutActivityTypeRunning`).
    public func workouts(activity: String? = nil, since: Int64? = nil, until: Int64? = nil,
                         limit: Int) throws -> (workouts: [WorkoutSummary], truncated: Bool) {
        try storeErrors {
            var conditions = MetricConditions(.all) { _ in [] }
            conditions.add(MetricConditions.countedOnce)
            conditions.add("m.type_id = (SELECT id FROM metric_type WHERE name = 'workout')")
            if let activity {
                let short = activity.hasPrefix("HKWorkoutActivityType") ? String(activity.dropFirst(21)) : activity
                conditions.add("lower(json_extract('{' || ifnull(m.extra, '') || '}', '$.activityType')) = lower(?)", .text(short))
            }
            if let since { conditions.add("m.start_date >= ?", .int(since)) }
            if let until { conditions.add("m.start_date < ?", .int(until)) }
            let json = "'{' || ifnull(m.extra, '') || '}'"
            let rows = try database.prepare("""
                SELECT json_extract(\(json), '$.activityType'), m.start_date, m.end_date, m.value,
                       CAST(json_extract(\(json), '$.totalDistanceKm') AS REAL), CAST(json_extract(\(json), '$.totalEnergyKcal') AS REAL),
                       CAST(json_extract(\(json), '$.heartRateAverage') AS REAL), s.name,
                       EXISTS (SELECT 1 FROM route r WHERE r.workout_start = m.start_date)
                FROM metric m JOIN source s ON s.id = m.source_id \(conditions.whereClause)
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

    /// The stored route of the workout that starts at `start` (or whose span holds it), its points
    /// thinned evenly to at most `maxPoints` (first and last kept).
    public func route(at start: Int64, maxPoints: Int) throws -> Route? {
        try storeErrors {
            let id = try database.scalarInt("""
                SELECT id FROM route WHERE workout_start = ?1
                   OR (workout_start <= ?1 AND workout_end >= ?1) ORDER BY workout_start = ?1 DESC LIMIT 1
                """, [.int(start)])
            guard let id, var found = try storedRoutes(id: id).first else { return nil }
            found.points = Self.thinned(found.points, to: maxPoints)
            return found
        }
    }

    static func thinned<T>(_ items: [T], to maximum: Int) -> [T] {
        guard maximum >= 2, items.count > maximum else { return items }
        let step = Double(items.count - 1) / Double(maximum - 1)
        return (0..<maximum).map { items[Int((Double($0) * step).rounded())] }
    }
}
