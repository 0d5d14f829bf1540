import CloudSyncModel
import Foundation

/// The rows of the `sql` tool's `daily` view: `aggregate --bucket day --merge-sources` for every type.
public struct DailyQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

    /// The store's version as this connection sees it (`PRAGMA data_version`): it changes when another
    /// connection commits (an import running while `cloudsync mcp` serves), never for our own reads.
    func dataVersion() throws -> Int64 {
        try storeErrors { try database.scalarInt("PRAGMA data_version") ?? 0 }
    }

    /// `aggregate --bucket day --merge-sources --tz zone` over every type, handed to `each` a type at a
    /// time, and the data version those rows are of.
    ///
    /// A type at a time (one `aggregate` call per type name) gives the same rows as one call for every
    /// type, since `aggregate` counts each type on its own, but never holds them all: on the 1 GB
    /// generated store that was 71,700 rows, copied once more, 15 MiB at the server's peak.
    /// One read transaction: an import committing meanwhile is either wholly in the rows or not at all,
    /// and then seen as a change by the next `dataVersion()`.
    func dailyValues(zone: TimeZone?, each: ([AggregateRow]) throws -> Void) throws -> Int64 {
        try storeErrors {
            try database.execute("BEGIN")
            do {
                let version = try dataVersion()
                // `MetricFilter` matches short names: one call per short name covers each type once.
                for type in Set(try names("metric_type").values.map(MetricFilter.shortName)).sorted() {
                    let filter = MetricFilter(types: [type])
                    try each(try AggregateQuery(store).aggregate(AggregateOptions(bucket: .day, filter: filter, timeZone: zone, mergeSources: true)))
                }
                try database.execute("COMMIT")
                return version
            } catch {
                database.rollBack()
                throw error
            }
        }
    }
}
