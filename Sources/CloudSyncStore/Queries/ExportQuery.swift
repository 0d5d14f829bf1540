public import CloudSyncModel

/// What `export` writes: the metrics that count (and their repeats with `countRepeats`), or what is pending; the records of a kind.
public struct ExportQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

    /// Sends the metrics that count, in `startDate` order, to `sink` (JSON Lines, CSV, CloudCare
    /// batches…), then finishes it: each sample once, as `status` and `aggregate` count them, and
    /// their repeats too with `countRepeats`, as `status --count-repeats` counts. `pendingOnly` keeps
    /// what `status` calls pending (`UploadLedger.defaultPending`: what an upload to CloudCare would
    /// send). Returns how many.
    @discardableResult
    public func metrics(filter: MetricFilter = .all, countRepeats: Bool = false, pendingOnly: Bool = false,
                        to sink: any MetricSink) throws -> Int {
        try storeErrors {
            var conditions: MetricConditions
            var rows = CountedRows.rows(countingRepeats: countRepeats)
            if pendingOnly {
                let pending = try store.ledger.defaultPending(filter: filter)
                conditions = try self.conditions(pending.filter)
                rows = CountedRows.view
                if let id = pending.targetID { conditions.add(MetricConditions.notAcknowledged, .int(id)) }
            } else {
                conditions = try self.conditions(filter)
            }
            let stored = try StoredMetricRows(database, rows: rows, conditions: conditions)
            var count = 0
            while try stored.next({ _, metric in try sink.write(metric) }) { count += 1 }
            try sink.finish()
            return count
        }
    }

    /// Sends the stored records of `kind` whose dates `filter` keeps, in import order, to `sink`, then
    /// finishes it; returns how many. A kind kept as its JSON line goes to a JSON Lines sink as
    /// stored, byte for byte, without being read back into a record.
    @discardableResult
    public func records<Kind: StoredKind>(_ kind: Kind.Type, filter: MetricFilter = .all, to sink: any RecordSink) throws -> Int {
        try storeErrors {
            var count = 0
            let rows = KindRows(database: database)
            if let lines = sink as? any RecordLineSink, let stored = Kind.storedLines {
                try rows.forEachLine(stored, filter: filter) { line in
                    try lines.write(line: line, as: Kind.self)
                    count += 1
                }
            } else {
                try Kind.forEach(in: rows, filter: filter) { record in
                    try sink.write(record, as: Kind.self)
                    count += 1
                }
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
