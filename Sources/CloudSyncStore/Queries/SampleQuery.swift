public import CloudSyncModel

/// A page of the samples that count, for the MCP `records` tool and the report.
public struct SampleQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

    /// A position in the samples' (startDate, id) order: where the next page begins.
    public struct Cursor: Sendable, Equatable {
        public var start: Int64
        public var id: Int64
        public init(start: Int64, id: Int64) {
            self.start = start
            self.id = id
        }
    }

    /// The samples that count of the filter's types in (startDate, id) order, at most `limit`, each
    /// handed to `body` as the stored row's own bytes (`StoredMetricRows`: the view is valid during
    /// the call); `after` is the cursor the previous page gave (nil for the first page). Returns the
    /// next page's cursor when there is more.
    public func samples(filter: MetricFilter, after: Cursor?, limit: Int, _ body: (MappedMetric) throws -> Void) throws -> Cursor? {
        try storeErrors {
            var conditions = try conditions(filter)
            if let after { conditions.add("(m.start_date, m.id) > (?, ?)", .int(after.start), .int(after.id)) }
            let rows = try StoredMetricRows(database, conditions: conditions, limit: limit + 1)
            var given = 0
            var last: Cursor?
            var more = false
            while try rows.next({ id, metric in
                guard given < limit else {
                    more = true
                    return
                }
                try body(metric)
                given += 1
                last = Cursor(start: metric.startDate, id: id)
            }) {}
            return more ? last : nil
        }
    }
}
