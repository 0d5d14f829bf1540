package import CloudSyncModel

/// The workouts of export.xml, for linking routes to them: by the `FileReference` path of their
/// `WorkoutRoute` (iOS 13+), or, when no workout references a route's file, by time: the workout
/// whose span holds the route's first point. Small: one entry per workout (a 3 GB export has ~3,000).
package final class WorkoutIndex {
    private let files: ArchiveFiles

    package init(files: ArchiveFiles) { self.files = files }

    struct Workout {
        var type: String
        var start: Int64
        var end: Int64
    }

    private var byFile: [String: Workout] = [:]
    private var all: [Workout] = []
    private var sorted = true

    /// Adds a workout; returns the inline routes (pre-iOS 13 `Location`s) it holds, linked.
    package func add(_ workout: CloudSyncExport.Workout) -> [Route] {
        guard let start = workout.startDate, let end = workout.endDate else { return [] }
        let entry = Workout(type: workout.activityType, start: start, end: end)
        all.append(entry)
        sorted = false
        var inline: [Route] = []
        for route in workout.routes {
            if let path = route.filePath {
                byFile[normalised(path)] = entry
            }
            if !route.locations.isEmpty {
                let points = route.locations.compactMap(Self.point)
                if !points.isEmpty {
                    inline.append(Route(file: nil, workoutType: entry.type, workoutStart: entry.start, workoutEnd: entry.end, points: points))
                }
            }
        }
        return inline
    }

    /// Fills the route's workout, by file, else by time.
    package func link(_ route: inout Route) {
        var found: Workout?
        if let file = route.file { found = byFile[normalised(file)] }
        if found == nil, let first = route.points.first(where: { $0.time != nil })?.time {
            if !sorted { all.sort { $0.start < $1.start }; sorted = true }
            // The last workout starting at or before the point, if its span holds it.
            var low = 0, high = all.count
            while low < high {
                let mid = (low + high) / 2
                if all[mid].start <= first { low = mid + 1 } else { high = mid }
            }
            if low > 0, all[low - 1].end >= first { found = all[low - 1] }
        }
        guard let found else { return }
        route.workoutType = found.type
        route.workoutStart = found.start
        route.workoutEnd = found.end
    }

    /// `/workout-routes/route_1.gpx` and `apple_health_export/workout-routes/route_1.gpx` alike.
    func normalised(_ path: String) -> String { files.archivePath(path) }

    static func point(_ location: Location) -> RoutePoint? {
        guard let latitude = location.latitude, let longitude = location.longitude else { return nil }
        func value(_ key: String) -> Double? { location.attributes[key].flatMap(Double.init) }
        return RoutePoint(time: location.date, latitude: latitude, longitude: longitude, elevation: value("altitude"),
                          speed: RouteValues.valid(value("speed")), course: RouteValues.valid(value("course")),
                          horizontalAccuracy: RouteValues.valid(value("horizontalAccuracy")),
                          verticalAccuracy: RouteValues.valid(value("verticalAccuracy")))
    }
}

/// Core Location writes -1 for a speed, course or accuracy it does not know: that is no value.
enum RouteValues {
    static func valid(_ value: Double?) -> Double? {
        guard let value, value >= 0 else { return nil }
        return value
    }
}
