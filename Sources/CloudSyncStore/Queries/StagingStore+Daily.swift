import Foundation

extension StagingStore {
    /// The store's version as this connection sees it (`PRAGMA data_version`): it changes when another
    /// connection commits (an import running while `cloudsync mcp` serves), never for our own reads.
    func dataVersion() throws -> Int64 {
        try storeErrors { try database.scalarInt("PRAGMA data_version") ?? 0 }
    }

    /// `aggregate --bucket day --merge-sources --tz zone` over every type, and the data version those
    /// rows are of. One read transaction: an import committing meanwhile is either wholly in the rows
    /// or not at all, and then seen as a change by the next `dataVersion()`.
    func dailyValues(zone: TimeZone?) throws -> (version: Int64, rows: [AggregateRow]) {
        try storeErrors {
            try database.execute("BEGIN")
            do {
                let version = try dataVersion()
                let rows = try aggregate(AggregateOptions(bucket: .day, timeZone: zone, mergeSources: true))
                try database.execute("COMMIT")
                return (version, rows)
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
    }
}
