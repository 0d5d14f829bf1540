import CloudSyncCore

extension StagingStore {
    /// Sends the store's metrics, in `startDate` order, to `sink` (JSONL, CloudCare batches…).
    /// `pendingOnly` keeps the metrics no CloudCare server acknowledged yet. Returns how many.
    @discardableResult
    public func export(filter: MetricFilter = .all, pendingOnly: Bool = false, to sink: any MetricSink) throws -> Int {
        try storeErrors {
            var conditions: [String] = []
            var arguments: [SQLiteValue] = []
            if let types = filter.types {
                let ids = try typeIDs(matching: types)
                conditions.append("m.type_id IN (\(ids.isEmpty ? "NULL" : ids.map(String.init).joined(separator: ",")))")
            }
            if let since = filter.since { conditions.append("m.start_date >= ?"); arguments.append(.int(since)) }
            if let until = filter.until { conditions.append("m.start_date < ?"); arguments.append(.int(until)) }
            if pendingOnly {
                conditions.append("""
                    m.id NOT IN (SELECT a.metric_id FROM upload_ack a JOIN upload_target t ON t.id = a.target_id
                                 WHERE t.target = 'cloudcare')
                    """)
            }
            let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            let rows = try database.prepare("""
                SELECT t.name, m.start_date, m.end_date, m.value, u.name, s.name, d.name, v.name, m.extra
                FROM metric m JOIN metric_type t ON t.id = m.type_id JOIN unit u ON u.id = m.unit_id
                JOIN source s ON s.id = m.source_id JOIN device d ON d.id = m.device_id
                LEFT JOIN source_version v ON v.id = m.source_version_id
                \(whereClause) ORDER BY m.start_date, m.id
                """)
            try rows.bind(arguments)
            var metric = MappedMetric()
            var metadata = ByteBuffer(capacity: 4096)
            var count = 0
            while try rows.step() {
                metric.type = rows.bytes(0)
                metric.startDate = rows.int64(1)
                metric.endDate = rows.int64(2)
                metric.value = rows.double(3)
                metric.unit = rows.bytes(4)
                metric.sourceApp = rows.bytes(5)
                metadata.removeAll()
                metadata.append("{\"device\":")
                metadata.appendJSONString(rows.bytes(6))
                if !rows.isNull(7) {
                    metadata.append(",\"sourceVersion\":")
                    metadata.appendJSONString(rows.bytes(7))
                }
                if !rows.isNull(8) {
                    metadata.append(UInt8(ascii: ","))
                    metadata.append(rows.bytes(8))
                }
                metadata.append(UInt8(ascii: "}"))
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
