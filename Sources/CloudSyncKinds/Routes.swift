public import CloudSyncExport
public import CloudSyncModel
public import CloudSyncStore

/// Routes: the GPX files of `workout-routes/`, linked to the workout that names them (else by
/// time), and the inline `Location`s of older exports' workouts. Kept one row per route and one per
/// point; the key is the file, or for an inline route its workout.
extension RouteKind: ArchiveRecordKind {
    public static func makeReader() -> any KindReader<RouteKind> { RouteReader() }

    public static let tableVersions = ["""
        CREATE TABLE IF NOT EXISTS route (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, file TEXT, workout_type TEXT, workout_start INTEGER,
            workout_end INTEGER, point_count INTEGER NOT NULL, import_id INTEGER NOT NULL REFERENCES import_run(id));
        CREATE INDEX IF NOT EXISTS route_workout ON route(workout_start);
        CREATE TABLE IF NOT EXISTS route_point (
            route_id INTEGER NOT NULL REFERENCES route(id), seq INTEGER NOT NULL, time INTEGER, latitude REAL NOT NULL,
            longitude REAL NOT NULL, elevation REAL, speed REAL, course REAL, horizontal_accuracy REAL, vertical_accuracy REAL,
            PRIMARY KEY (route_id, seq)) WITHOUT ROWID;
        """]

    public static func insert(_ route: Route, into rows: KindRows) throws -> Bool {
        let insert = try rows.statement("""
            INSERT INTO route(key, file, workout_type, workout_start, workout_end, point_count, import_id)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id
            """)
        try insert.bind(1, route.key)
        try insert.bind(2, route.file)
        try insert.bind(3, route.workoutType)
        try insert.bind(4, route.workoutStart)
        try insert.bind(5, route.workoutEnd)
        try insert.bind(6, Int64(route.points.count))
        try insert.bind(7, rows.runID)
        guard try insert.step() else {
            // Stored before without its workout (written before its link by an import killed
            // before linking it): linked now, whichever way this import reads the archive.
            if route.workoutType != nil { try relink(route, into: rows) }
            return false
        }
        let routeID = insert.int64(0)
        insert.reset()
        let points = try rows.addedRows([.integer, .integer, .integer] + Array(repeating: .real, count: 7), into: "route_point",
                                        names: ["route_id", "seq", "time", "latitude", "longitude", "elevation", "speed", "course",
                                                "horizontal_accuracy", "vertical_accuracy"])
        for (seq, value) in route.points.enumerated() {
            points.add(routeID)
            points.add(Int64(seq))
            points.add(value.time)
            points.add(value.latitude)
            points.add(value.longitude)
            points.add(value.elevation)
            points.add(value.speed)
            points.add(value.course)
            points.add(value.horizontalAccuracy)
            points.add(value.verticalAccuracy)
            try points.endRow()
        }
        // Sent, not waited for: on PostgreSQL the points go in while the next GPX file is read (its
        // outcome, an error too, is read before the connection's next command). Waited for, the 1 GB
        // export's 195 routes (666,586 points) held the upload 4 s, PostgreSQL's 3.3 s and the reading.
        try points.send()
        return true
    }

    /// A route written before its workout was read (`RouteReader.writesBeforeLink`) gets it.
    public static func relink(_ route: Route, into rows: KindRows) throws {
        let update = try rows.statement("""
            UPDATE route SET workout_type = ?, workout_start = ?, workout_end = ? WHERE key = ? AND workout_type IS NULL
            """)
        try update.bind(1, route.workoutType)
        try update.bind(2, route.workoutStart)
        try update.bind(3, route.workoutEnd)
        try update.bind(4, route.key)
        _ = try update.step()
        update.reset()
    }

    /// A GPX file's route is keyed by its file. One without a workout is read again: an import killed
    /// between writing it and linking it left it so (or no workout holds it, and reading it again
    /// finds none again).
    public static func stored(file path: String, in rows: KindRows) throws -> RecordCount? {
        let select = try rows.statement("SELECT point_count FROM route WHERE key = ? AND workout_type IS NOT NULL")
        try select.bind(1, path)
        guard try select.step() else { return nil }
        return RecordCount(records: 1, parts: Int(select.int64(0)))
    }

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (Route) throws -> Void) throws {
        try StoredRoutes.forEach(in: rows.database) { route in
            if let date = date(of: route), !filter.acceptsDate(date) { return }
            try body(route)
        }
    }

    public static func count(in rows: KindRows) throws -> RecordCount {
        let count = try rows.statement("SELECT count(*), coalesce(sum(point_count), 0) FROM route")
        _ = try count.step()
        return RecordCount(records: Int(count.int64(0)), parts: Int(count.int64(1)))
    }
}

/// One run's reading of routes: the workouts of export.xml (their `FileReference`s and inline
/// locations), then each GPX file linked to one.
final class RouteReader: KindReader {
    typealias Kind = RouteKind
    private static let gpx = ArchiveFiles(folder: "workout-routes/", suffix: ".gpx")
    private let workouts = WorkoutIndex(files: RouteReader.gpx)

    var elements: Set<ElementName> { [.workout] }

    func read(element tree: ElementTree, _ emit: (Route) throws -> Void) throws {
        guard case .workout(let workout) = ExportElement(tree) else { return }
        for route in workouts.add(workout) { try emit(route) }
    }

    var files: ArchiveFiles? { Self.gpx }
    func fileReader() -> any EntryReader<Route> { GPXReader() }

    func link(_ route: Route, _ emit: (Route) throws -> Void) throws {
        var linked = route
        if linked.workoutType == nil { workouts.link(&linked) }
        try emit(linked)
    }

    /// Routes written before export.xml's workouts were read: their files, and their first timed
    /// points (all that `WorkoutIndex.link` reads), not their points.
    private var unlinked: [Route] = []

    var writesBeforeLink: Bool { true }

    func wroteUnlinked(_ route: Route) {
        unlinked.append(Route(file: route.file, points: route.points.first { $0.time != nil }.map { [$0] } ?? []))
    }

    func linkWritten(_ relink: (Route) throws -> Void) throws {
        for var route in unlinked {
            workouts.link(&route)
            if route.workoutType != nil { try relink(route) }
        }
        unlinked = []
    }

    func spill(_ route: Route, into writer: inout SpillWriter) {
        writer.put(route.file)
        writer.put(route.points.count)
        for point in route.points {
            writer.put(point.time)
            writer.put(point.latitude)
            writer.put(point.longitude)
            writer.put(point.elevation)
            writer.put(point.speed)
            writer.put(point.course)
            writer.put(point.horizontalAccuracy)
            writer.put(point.verticalAccuracy)
        }
    }

    func unspill(from reader: inout SpillReader) -> Route {
        let file = reader.string()
        let count = reader.int()
        var points: [RoutePoint] = []
        points.reserveCapacity(count)
        for _ in 0..<count {
            let time = reader.optionalInt64()
            let latitude = reader.double() ?? 0, longitude = reader.double() ?? 0
            // Read one by one, in the order `spill` put them: an array of the five a point was an
            // allocation and a retain per point, at the import's end where nothing runs beside it.
            let elevation = reader.double(), speed = reader.double(), course = reader.double()
            let horizontalAccuracy = reader.double(), verticalAccuracy = reader.double()
            points.append(RoutePoint(time: time, latitude: latitude, longitude: longitude, elevation: elevation, speed: speed,
                                     course: course, horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy))
        }
        return Route(file: file, points: points)
    }
}
