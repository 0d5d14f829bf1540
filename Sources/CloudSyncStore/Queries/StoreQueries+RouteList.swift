import CloudSyncExport
import CloudSyncModel

/// A stored route without its points: enough to count routes the way `overview` does (every row of
/// `route`) and to say why one is not drawn.
public struct RouteSummary: Sendable, Codable, Equatable {
    public var id: Int64
    public var workoutType: String?
    /// The start of the workout it belongs to, when it is linked to one.
    public var workoutStart: Int64?
    /// When it was recorded: its workout's start, else its first point's time (nil: neither is known).
    public var start: Int64?
    public var pointCount: Int
}

extension StoreQueries {
    /// Every stored route, oldest first (routes without a date first), without its points.
    public func routeSummaries() throws -> [RouteSummary] {
        try storeErrors {
            let rows = try database.prepare("""
                SELECT r.id, r.workout_type, r.workout_start, r.point_count,
                       coalesce(r.workout_start, (SELECT p.time FROM route_point p WHERE p.route_id = r.id ORDER BY p.seq LIMIT 1)) AS start
                FROM route r ORDER BY start, r.id
                """)
            var result: [RouteSummary] = []
            while try rows.step() {
                result.append(RouteSummary(id: rows.int64(0), workoutType: rows.text(1), workoutStart: rows.optionalInt64(2),
                                           start: rows.optionalInt64(4), pointCount: Int(rows.int64(3))))
            }
            return result
        }
    }

    /// The stored route `id` (from `routeSummaries`), its points thinned evenly to at most `maxPoints`.
    public func route(id: Int64, maxPoints: Int) throws -> Route? {
        try storeErrors {
            guard var found = try storedRoutes(id: id).first else { return nil }
            found.points = Self.thinned(found.points, to: maxPoints)
            return found
        }
    }

    /// The newest `ExportDate` of the exports imported into the store (nil when none had one).
    /// Every import run counts, whatever its outcome: an interrupted import has stored samples too.
    public func latestExportDate() throws -> Int64? {
        try storeErrors {
            let rows = try database.prepare("""
                SELECT export_date FROM import_run WHERE export_date IS NOT NULL
                UNION SELECT value FROM export_fact WHERE key = 'exportDate'
                """)
            var latest: Int64?
            while try rows.step() {
                guard var text = rows.text(0), let seconds = text.withUTF8({ ExportDateParser.epochSeconds($0) }) else { continue }
                latest = Swift.max(latest ?? seconds, seconds)
            }
            return latest
        }
    }
}
