/// A reader of the store with one job: what `status` shows (`StatusQuery`), `aggregate`'s buckets
/// (`AggregateQuery`), the metrics `export` writes (`ExportQuery`), a page of samples for the MCP
/// `records` tool (`SampleQuery`), the nights of sleep (`SleepQuery`), what the store holds
/// (`OverviewQuery`), workouts, routes and ECGs, the `sql` tool's `daily` view (`DailyQuery`). Each
/// is made from the store, reads through its connection, writes nothing, and reads metrics only as
/// `CountedRows` defines them: no query has a filter of its own for what counts.
protocol StoreQuery: StoreAccess {
    var store: StagingStore { get }
}

extension StoreQuery {
    var database: any StoreDatabase { store.database }
    var path: String { store.path }
    var configuration: StagingStore.Configuration { store.configuration }
}

/// At most `maximum` of `items`, evenly spread, the first and last kept: a route's points or an ECG's
/// voltages, thinned to what is drawn or answered.
func thinnedEvenly<T>(_ items: [T], to maximum: Int) -> [T] {
    guard maximum >= 2, items.count > maximum else { return items }
    let step = Double(items.count - 1) / Double(maximum - 1)
    return (0..<maximum).map { items[Int((Double($0) * step).rounded())] }
}
