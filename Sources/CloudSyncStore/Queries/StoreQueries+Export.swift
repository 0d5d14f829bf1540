import CloudSyncExport
import CloudSyncModel

extension StoreQueries {
    /// Sends the store's metrics, in `startDate` order, to `sink` (JSONL, CloudCare batches…).
    /// Every stored sample, repeats included; `pendingOnly` keeps what `status` calls pending (see
    /// `defaultPending`: what an upload to CloudCare would send). Returns how many.
    @discardableResult
    public func export(filter: MetricFilter = .all, pendingOnly: Bool = false, to sink: any MetricSink) throws -> Int {
        try storeErrors {
            var conditions: MetricConditions
            if pendingOnly {
                let pending = try ledger.defaultPending(filter: filter)
                conditions = try uploadConditions(pending.filter)
                if let id = pending.targetID { conditions.add(MetricConditions.notAcknowledged, .int(id)) }
            } else {
                conditions = try self.conditions(filter)
            }
            let rows = try database.prepare("""
                SELECT \(StoredMetricSQL.columns) \(StoredMetricSQL.joins) \(conditions.whereClause) ORDER BY m.start_date, m.id
                """)
            try rows.bind(conditions.arguments)
            var metric = MappedMetric()
            var metadata = ByteBuffer(capacity: 4096)
            var count = 0
            while try rows.step() {
                metric.type = rows.bytes(1)
                metric.startDate = rows.int64(2)
                metric.endDate = rows.int64(3)
                metric.value = rows.double(4)
                metric.unit = rows.bytes(5)
                metric.sourceApp = rows.bytes(6)
                metadata.removeAll()
                StoredMetricSQL.appendMetadata(of: rows, to: &metadata)
                try metadata.withBytes { encoded in
                    metric.metadataJSON = encoded
                    try sink.write(metric)
                }
                count += 1
            }
            try sink.finish()
            return count
        }
    }

}

extension StoreAccess {
    /// Ids of the stored types whose identifier or short name is in `names` (short forms).
    func typeIDs(matching names: Set<String>) throws -> [Int64] {
        var ids: [Int64] = []
        let rows = try database.prepare("SELECT id, name FROM metric_type")
        while try rows.step() {
            if names.contains(MetricFilter.shortName(rows.text(1) ?? "")) { ids.append(rows.int64(0)) }
        }
        return ids
    }
}
