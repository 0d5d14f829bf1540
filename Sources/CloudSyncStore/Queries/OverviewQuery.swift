public import CloudSyncModel
public import Foundation

/// What the store holds, in one answer: per type its unit, count and range; the sources; the other
/// records; the last import and upload. Each sample counts once (repeats left out, as `status` does).
public struct StoreOverview: Sendable, Codable {
    public struct TypeSummary: Sendable, Codable {
        public var type: String
        public var unit: String
        public var count: Int
        public var first: String
        public var last: String
    }

    public struct SourceSummary: Sendable, Codable {
        public var name: String
        public var count: Int
    }

    public var metrics: Int
    public var repeats: Int
    public var types: [TypeSummary]
    public var sources: [SourceSummary]
    public var workouts: Int
    /// The records of each kind besides metrics, by `RecordKind.name` (`routes`, `ecg`, …).
    public var records: [String: Int]
    public var lastImport: StoreStatus.ImportRun?
    public var lastUpload: StoreStatus.UploadRun?
}

/// What the store holds, in one answer: the MCP `overview`, the report's header, the names a person may give.
public struct OverviewQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

    public func overview() throws -> StoreOverview {
        try storeErrors {
            // From the summary the import keeps (schema 5): a few hundred rows, not millions.
            let rows = try database.prepare("""
                SELECT t.name, u.name, sum(s.count), min(s.first_start), max(s.last_end), sum(s.repeats)
                FROM metric_summary s JOIN metric_type t ON t.id = s.type_id JOIN unit u ON u.id = s.unit_id
                GROUP BY s.type_id, s.unit_id, t.name, u.name HAVING sum(s.count) > 0 ORDER BY t.name
                """)
            var types: [StoreOverview.TypeSummary] = []
            var repeats = 0
            while try rows.step() {
                let repeated = Int(rows.int64(5))
                repeats += repeated
                types.append(.init(type: rows.text(0) ?? "", unit: rows.text(1) ?? "", count: Int(rows.int64(2)),
                                   first: UTCDateFormatter.string(rows.int64(3)), last: UTCDateFormatter.string(rows.int64(4))))
            }
            let sourceRows = try database.prepare("""
                SELECT n.name, sum(s.count) FROM metric_summary s JOIN source n ON n.id = s.source_id
                GROUP BY s.source_id, n.name ORDER BY 2 DESC, n.name
                """)
            var sources: [StoreOverview.SourceSummary] = []
            while try sourceRows.step() { sources.append(.init(name: sourceRows.text(0) ?? "", count: Int(sourceRows.int64(1)))) }
            return StoreOverview(
                metrics: types.map(\.count).reduce(0, +), repeats: repeats, types: types, sources: sources,
                workouts: types.filter { $0.type == "workout" }.map(\.count).reduce(0, +),
                records: try recordCounts().mapValues(\.records),
                lastImport: try recentImports(1).first, lastUpload: try recentUploads(1).first)
        }
    }

    /// The names of the types the store has samples of (repeats aside), from `metric_summary`: what
    /// a type name a person gives is resolved against.
    public func sampleTypes() throws -> [String] {
        try storeErrors {
            try database.texts("""
                SELECT t.name FROM metric_summary s JOIN metric_type t ON t.id = s.type_id
                GROUP BY s.type_id, t.name HAVING sum(s.count) > 0 ORDER BY t.name
                """)
        }
    }

    /// The first start and last end of the samples of the filter's types, from `metric_summary`
    /// (nil when the store has none).
    public func sampleRange(filter: MetricFilter) throws -> (first: Int64, last: Int64)? {
        try storeErrors {
            var sql = "SELECT min(first_start), max(last_end) FROM metric_summary"
            if let types = filter.types {
                let ids = try typeIDs(matching: types)
                sql += " WHERE type_id IN (\(ids.isEmpty ? "NULL" : ids.map(String.init).joined(separator: ",")))"
            }
            let row = try database.prepare(sql)
            guard try row.step(), !row.isNull(0) else { return nil }
            return (row.int64(0), row.int64(1))
        }
    }

    /// The newest `ExportDate` of the exports imported into the store (nil when none had one).
    /// Every import run counts, whatever its outcome: an interrupted import has stored samples too.
    public func latestExportDate() throws -> Int64? {
        try storeErrors {
            let rows = try database.prepare("""
                SELECT export_date FROM import_run WHERE export_date IS NOT NULL
                UNION SELECT value FROM export_fact WHERE key = 'exportDate'
                """)
            var latest: Int64?
            while try rows.step() {
                guard var text = rows.text(0), let seconds = text.withUTF8({ ExportDateParser.epochSeconds($0) }) else { continue }
                latest = Swift.max(latest ?? seconds, seconds)
            }
            return latest
        }
    }

    /// When the phone last sent data that the store took (a push or a file of Health Auto
    /// Export): its samples reach up to then.
    public func latestPushDate() throws -> Int64? {
        try storeErrors {
            try database.scalarInt("SELECT max(started_at) FROM import_run WHERE source_kind = 'health-auto-export' AND outcome = 'ok'")
        }
    }

    /// One type's samples that count in a range, and the local days of the first and last.
    public struct TypeCount: Sendable, Equatable {
        public var type: String
        public var unit: String
        public var count: Int
        public var firstDay: String
        public var lastDay: String
    }

    /// Per type and unit, the samples that count starting in the filter's range (of its types), as
    /// `status` and `overview` count the whole store; their first and last days in `zone`.
    public func counts(filter: MetricFilter, zone: TimeZone?) throws -> [TypeCount] {
        try storeErrors {
            let conditions = try conditions(filter)
            let rows = try database.prepare("""
                SELECT t.name, u.name, count(*), min(m.start_date), max(m.start_date)
                FROM \(CountedRows.view) m JOIN metric_type t ON t.id = m.type_id JOIN unit u ON u.id = m.unit_id
                \(conditions.whereClause) GROUP BY m.type_id, m.unit_id, t.name, u.name ORDER BY t.name, u.name
                """)
            try rows.bind(conditions.arguments)
            var labeler = BucketLabeler(bucket: .day, zone: zone)
            var counts: [TypeCount] = []
            while try rows.step() {
                counts.append(TypeCount(type: rows.text(0) ?? "", unit: rows.text(1) ?? "", count: Int(rows.int64(2)),
                                        firstDay: labeler.label(labeler.key(rows.int64(3))), lastDay: labeler.label(labeler.key(rows.int64(4)))))
            }
            return counts
        }
    }
}
