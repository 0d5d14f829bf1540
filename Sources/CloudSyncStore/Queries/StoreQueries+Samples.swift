import CloudSyncExport
import CloudSyncModel
import Foundation

/// One stored sample, as the `records` tool gives it.
public struct StoredSample: Sendable, Codable {
    public var type: String
    public var start: String
    public var end: String
    public var value: Double
    public var unit: String
    public var source: String
    public var device: String
    /// The metadata object as JSON text.
    public var metadata: String
    public var isRepeat: Bool
}

extension StoreQueries {
    /// Samples of the filter's types in (startDate, id) order, `limit` a page; `after` is the cursor
    /// the previous page gave (nil for the first page). Returns the next cursor when there is more.
    public func samples(filter: MetricFilter, after: (start: Int64, id: Int64)?, limit: Int) throws
        -> (samples: [StoredSample], next: (start: Int64, id: Int64)?) {
        try storeErrors {
            var conditions = try conditions(filter)
            if let after { conditions.add("(m.start_date, m.id) > (?, ?)", .int(after.start), .int(after.id)) }
            let rows = try database.prepare("""
                SELECT \(StoredMetricSQL.columns), m.is_repeat \(StoredMetricSQL.joins) \(conditions.whereClause)
                ORDER BY m.start_date, m.id LIMIT ?
                """)
            try rows.bind(conditions.arguments + [.int(Int64(limit) + 1)])
            var samples: [StoredSample] = []
            var last: (Int64, Int64)?
            var more = false
            var metadata = ByteBuffer(capacity: 512)
            while try rows.step() {
                if samples.count == limit { more = true; break }
                metadata.removeAll()
                StoredMetricSQL.appendMetadata(of: rows, to: &metadata)
                samples.append(StoredSample(type: rows.text(1) ?? "", start: UTCDateFormatter.string(rows.int64(2)),
                                            end: UTCDateFormatter.string(rows.int64(3)), value: rows.double(4),
                                            unit: rows.text(5) ?? "", source: rows.text(6) ?? "", device: rows.text(7) ?? "",
                                            metadata: metadata.withBytes { $0.string }, isRepeat: rows.int64(10) != 0))
                last = (rows.int64(2), rows.int64(0))
            }
            return (samples, more ? last : nil)
        }
    }
}
