package import CloudSyncModel

extension StoreAccess {
    /// How many records of each configured kind the store holds, by `RecordKind.name`.
    func recordCounts() throws -> [String: RecordCount] {
        try storeErrors {
            let rows = KindRows(database: database)
            var counts: [String: RecordCount] = [:]
            for kind in configuration.kinds { counts[kind.name] = try kind.count(in: rows) }
            return counts
        }
    }

}

/// Reading routes back from their tables: shared by the route kind's export and the queries that
/// draw or answer with one route.
public enum StoredRoutes {
    package static func forEach(in database: any StoreDatabase, id: Int64? = nil, _ body: (Route) throws -> Void) throws {
        let routes = try database.prepare("""
            SELECT id, file, workout_type, workout_start, workout_end FROM route \(id == nil ? "" : "WHERE id = ?") ORDER BY id
            """)
        if let id { try routes.bind(1, id) }
        let points = try database.prepare("""
            SELECT time, latitude, longitude, elevation, speed, course, horizontal_accuracy, vertical_accuracy
            FROM route_point WHERE route_id = ? ORDER BY seq
            """)
        while try routes.step() {
            var route = Route(file: routes.text(1), workoutType: routes.text(2), workoutStart: routes.optionalInt64(3),
                              workoutEnd: routes.optionalInt64(4), points: [])
            try points.bind(1, routes.int64(0))
            while try points.step() {
                route.points.append(RoutePoint(time: points.optionalInt64(0), latitude: points.double(1), longitude: points.double(2),
                                               elevation: points.optionalDouble(3), speed: points.optionalDouble(4),
                                               course: points.optionalDouble(5), horizontalAccuracy: points.optionalDouble(6),
                                               verticalAccuracy: points.optionalDouble(7)))
            }
            points.reset()
            try body(route)
        }
    }
}
