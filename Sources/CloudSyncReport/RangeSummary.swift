import CloudSyncModel
import CloudSyncStore
import Foundation

/// What a `--since`/`--until` range holds, counted as the overview counts the whole store (each
/// sample once, workouts among them), so that the page describes the range it was asked for and
/// never passes the whole store's numbers off as the range's.
struct RangeSummary {
    struct TypeCount {
        var type: String
        var unit: String
        var count: Int
        /// Local days.
        var first: String
        var last: String
    }

    let since: Int64?
    let until: Int64?
    var types: [TypeCount] = []
    var routes = 0
    var ecgs = 0

    var samples: Int { types.reduce(0) { $0 + $1.count } }
    var workouts: Int { types.filter { $0.type == "workout" }.reduce(0) { $0 + $1.count } }
    var isEmpty: Bool { samples == 0 && routes == 0 && ecgs == 0 }

    /// Every type's samples starting in the range, by day in `zone`; `routes` as `RouteTally` counted them.
    static func load(_ store: StagingStore, since: Int64?, until: Int64?, zone: TimeZone?, routes: Int) throws -> RangeSummary {
        var summary = RangeSummary(since: since, until: until, routes: routes)
        summary.types = try OverviewQuery(store).counts(filter: MetricFilter(since: since, until: until), zone: zone).map {
            TypeCount(type: $0.type, unit: $0.unit, count: $0.count, first: $0.firstDay, last: $0.lastDay)
        }
        summary.ecgs = try ECGQuery(store).ecgs(since: since, until: until).count
        return summary
    }

    /// "2024-01-01 (included) to 2024-02-01 (excluded)", "from 2024-01-01 on", "before 2024-02-01".
    func describe(_ time: LocalTime) -> String {
        switch (since, until) {
        case let (since?, until?): return "\(time.bound(since)) (included) to \(time.bound(until)) (excluded)"
        case let (since?, nil): return "from \(time.bound(since)) on"
        case let (nil, until?): return "before \(time.bound(until))"
        case (nil, nil): return "every date"
        }
    }
}
