public import CloudSyncModel

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

/// The stored routes: one to draw or answer with, and every one without its points.
public struct RouteQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

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
            found.points = thinnedEvenly(found.points, to: maxPoints)
            return found
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
            found.points = thinnedEvenly(found.points, to: maxPoints)
            return found
        }
    }

    /// The stored routes (one, by `id`), with their points, in import order.
    func storedRoutes(id: Int64) throws -> [Route] {
        var routes: [Route] = []
        try StoredRoutes.forEach(in: database, id: id) { routes.append($0) }
        return routes
    }
}
