import CloudSyncModel
import CloudSyncStore
import Foundation

/// Workouts per month, the longest and fastest, and the routes: every time and month in the
/// report's zone (a run at 00:30 in Paris on the 1st belongs to that month, not to the one before
/// in UTC).
enum WorkoutsSection {
    static func render(_ page: inout HTMLText, _ data: ReportData, time: LocalTime) {
        guard !data.workouts.isEmpty || data.routes.total > 0 else { return }
        ReportPage.section(&page, id: "workouts", title: "Workouts") { page in
            if !data.workouts.isEmpty { months(&page, data.workouts, time: time) }
            routes(&page, data.routes, time: time)
        }
    }

    private static func months(_ page: inout HTMLText, _ workouts: [WorkoutSummary], time: LocalTime) {
        struct Month { var count = 0; var minutes = 0.0; var kilometres = 0.0 }
        var byMonth: [String: [String: Month]] = [:]
        for workout in workouts {
            let key = time.month(workout.start)
            var month = byMonth[key, default: [:]][workout.type, default: Month()]
            month.count += 1
            month.minutes += workout.duration
            month.kilometres += workout.distance ?? 0
            byMonth[key, default: [:]][workout.type] = month
        }
        let months = byMonth.keys.sorted()
        Charts.lines(&page, title: "Workouts per month", unit: "workouts", labels: months,
                     series: [.init(name: "workouts", values: months.map { Double(byMonth[$0]!.values.reduce(0) { $0 + $1.count }) }, style: "s1")],
                     bars: true)
        page.table(summary: "Per month and type", columns: ["month", "type", "workouts", "minutes", "km"],
                   rows: months.flatMap { month in byMonth[month]!.sorted { $0.key < $1.key }.map {
                       [month, $0.key, "\($0.value.count)", formatted($0.value.minutes, digits: 0), formatted($0.value.kilometres, digits: 2)]
                   } }, id: "workout-months")
        var notable: [[String]] = []
        if let longest = workouts.max(by: { $0.duration < $1.duration }) {
            notable.append(["longest", longest.type, time.minute(longest.start), formatted(longest.duration, digits: 0) + " min",
                            longest.distance.map { formatted($0, digits: 2) + " km" } ?? ""])
        }
        let timed = workouts.filter { ($0.distance ?? 0) >= 1 && $0.duration > 0 }
        if let fastest = timed.max(by: { $0.distance! / $0.duration < $1.distance! / $1.duration }) {
            notable.append(["fastest", fastest.type, time.minute(fastest.start), formatted(fastest.distance! / fastest.duration * 60, digits: 1) + " km/h",
                            formatted(fastest.distance!, digits: 2) + " km"])
        }
        page.table(summary: "Longest and fastest", columns: ["", "type", "start", "", "distance"], rows: notable, id: "workout-notable")
    }

    /// All routes on one map, then each alone; the caption counts them as the overview does.
    private static func routes(_ page: inout HTMLText, _ tally: RouteTally, time: LocalTime) {
        guard tally.total > 0 else { return }
        page.element("h3", text: "Routes")
        page.element("figure", ["class": "chart"]) { page in
            page.element("figcaption", ["id": "routes-caption"], text: tally.caption + (tally.drawn.isEmpty ? "" : " North up."))
            Drawings.routes(&page, tally.drawn.map(\.route), size: 420, label: "all routes drawn")
        }
        guard !tally.drawn.isEmpty else { return }
        page.element("div", ["class": "routes"]) { page in
            for (workout, route) in tally.drawn {
                let start = workout.flatMap { ReportData.epochSeconds($0.start) } ?? route.workoutStart ?? route.points.first?.time
                let type = workout?.type ?? route.workoutType.map { $0.replacingOccurrences(of: "HKWorkoutActivityType", with: "").lowercased() } ?? "route"
                page.element("figure", ["class": "route"]) { page in
                    Drawings.routes(&page, [route], size: 140, label: "\(type) \(start.map(time.minute) ?? "")")
                    page.element("figcaption", text: "\(type)" + (start.map { ", \(time.day($0))" } ?? "")
                        + (workout?.distance.map { ", \(formatted($0, digits: 2)) km" } ?? ""))
                }
            }
        }
    }
}
