import CloudSyncExport
import CloudSyncModel

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
    public var routes: Int
    public var ecgs: Int
    public var beatSeries: Int
    public var correlations: Int
    public var clinicalRecords: Int
    public var lastImport: StoreStatus.ImportRun?
    public var lastUpload: StoreStatus.UploadRun?
}

extension StagingStore {
    public func overview() throws -> StoreOverview {
        try storeErrors {
            let rows = try database.prepare("""
                SELECT t.name, u.name, count(*), min(m.start_date), max(m.end_date), sum(m.is_repeat)
                FROM metric m JOIN metric_type t ON t.id = m.type_id JOIN unit u ON u.id = m.unit_id
                GROUP BY m.type_id, m.unit_id ORDER BY t.name
                """)
            var types: [StoreOverview.TypeSummary] = []
            var repeats = 0
            while try rows.step() {
                let repeated = Int(rows.int64(5))
                repeats += repeated
                types.append(.init(type: rows.text(0) ?? "", unit: rows.text(1) ?? "", count: Int(rows.int64(2)) - repeated,
                                   first: UTCDateFormatter.string(rows.int64(3)), last: UTCDateFormatter.string(rows.int64(4))))
            }
            let sourceRows = try database.prepare("""
                SELECT s.name, count(*) FROM metric m JOIN source s ON s.id = m.source_id
                WHERE \(MetricConditions.countedOnce) GROUP BY m.source_id ORDER BY count(*) DESC
                """)
            var sources: [StoreOverview.SourceSummary] = []
            while try sourceRows.step() { sources.append(.init(name: sourceRows.text(0) ?? "", count: Int(sourceRows.int64(1)))) }
            let status = try status(recent: 1)
            func count(_ table: String) throws -> Int { Int(try database.scalarInt("SELECT count(*) FROM \(table)") ?? 0) }
            return StoreOverview(
                metrics: types.map(\.count).reduce(0, +), repeats: repeats, types: types, sources: sources,
                workouts: types.filter { $0.type == "workout" }.map(\.count).reduce(0, +),
                routes: try count("route"), ecgs: try count("ecg"), beatSeries: try count("beat_series"),
                correlations: try count("correlation"), clinicalRecords: try count("clinical_record"),
                lastImport: status.imports.first, lastUpload: status.uploads.first)
        }
    }
}
