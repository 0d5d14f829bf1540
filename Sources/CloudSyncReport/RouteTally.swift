import CloudSyncModel
import CloudSyncStore
import Foundation

/// The routes of the report's range: each one either drawn or counted under the reason it is not,
/// so that the caption's numbers add up to the overview's count of routes (a route of a single
/// point, which draws nothing, is counted, not silently dropped).
struct RouteTally {
    /// At most this many routes are drawn (the most recent), to keep the page small.
    static let maxDrawn = 120

    /// Every route of the range; without a range, every route of the store (the overview's count).
    var total = 0
    var drawn: [(workout: WorkoutSummary?, route: Route)] = []
    var singlePoint = 0
    var late = 0
    var older = 0
    /// "after the export" (see `LateSamples.after`).
    var lateWords = ""

    /// `workouts` are those drawn (to name a route by its workout); `late` says where drawing ends.
    static func load(_ store: StagingStore, since: Int64?, until: Int64?, late: LateSamples, workouts: [WorkoutSummary]) throws -> RouteTally {
        var tally = RouteTally(lateWords: late.after)
        let ranged = since != nil || until != nil
        let routes = try RouteQuery(store).routeSummaries().filter { route in
            guard ranged else { return true }
            // A route without a date belongs to no range.
            guard let start = route.start else { return false }
            return start >= since ?? .min && start < until ?? .max
        }
        tally.total = routes.count
        var drawable: [RouteSummary] = []
        for route in routes {
            if let start = route.start, start >= late.until {
                tally.late += 1
            } else if route.pointCount < 2 {
                tally.singlePoint += 1
            } else {
                drawable.append(route)
            }
        }
        let recent = drawable.suffix(maxDrawn)
        tally.older = drawable.count - recent.count
        let byStart = Dictionary(workouts.compactMap { workout in ReportData.epochSeconds(workout.start).map { ($0, workout) } }) { a, _ in a }
        for summary in recent {
            guard let route = try RouteQuery(store).route(id: summary.id, maxPoints: 200) else { continue }
            tally.drawn.append((summary.workoutStart.flatMap { byStart[$0] }, route))
        }
        return tally
    }

    /// "3 routes, 1 drawn: 2 have a single point." or "3 routes, all drawn."
    var caption: String {
        let routes = total == 1 ? "1 route" : "\(total) routes"
        var reasons: [String] = []
        if singlePoint > 0 { reasons.append("\(singlePoint) \(singlePoint == 1 ? "has" : "have") a single point") }
        if late > 0 { reasons.append("\(late) \(late == 1 ? "is" : "are") dated \(lateWords)") }
        if older > 0 { reasons.append("\(older) \(older == 1 ? "is" : "are") older than the \(Self.maxDrawn) most recent") }
        if reasons.isEmpty { return "\(routes), \(total == 1 ? "drawn" : "all drawn")." }
        return "\(routes), \(drawn.isEmpty ? "none" : "\(drawn.count)") drawn: \(reasons.joined(separator: ", "))."
    }
}
