import CloudSyncModel

/// The one way a stored metric is read back, whoever reads it: `export` hands it to a sink, `upload`
/// copies its bytes into a batch, the MCP `records` tool writes it as JSON. A statement over the rows
/// that count (`CountedRows`) joined to their names, and each row given as a `MappedMetric` whose
/// views are the row's own bytes (valid until the next row), its metadata object written once into
/// a reused buffer: no `String` per field, nothing parsed back.
final class StoredMetricRows {
    /// The columns and joins that give a metric back: id, name, dates, value, unit, source, the
    /// three parts of its metadata object, and a category sample's category.
    private static let columns = "m.id, t.name, m.start_date, m.end_date, m.value, u.name, s.name, d.name, v.name, m.extra, c.name"

    private static func joins(_ rows: String) -> String {
        """
        FROM \(rows) m JOIN metric_type t ON t.id = m.type_id JOIN unit u ON u.id = m.unit_id
        JOIN source s ON s.id = m.source_id JOIN device d ON d.id = m.device_id
        LEFT JOIN source_version v ON v.id = m.source_version_id LEFT JOIN category_value c ON c.id = m.category_id
        """
    }

    private let statement: any StoreStatement
    private var metric = MappedMetric()
    private var metadata = ByteBuffer(capacity: 4096)

    /// The rows of `rows` (a `CountedRows` view) that `conditions` keep, in (startDate, id) order.
    init(_ database: any StoreDatabase, rows: String = CountedRows.view, conditions: MetricConditions, limit: Int? = nil) throws {
        statement = try database.prepare("""
            SELECT \(Self.columns) \(Self.joins(rows)) \(conditions.whereClause) ORDER BY m.start_date, m.id\(limit == nil ? "" : " LIMIT ?")
            """)
        try statement.bind(conditions.arguments + (limit.map { [.int(Int64($0))] } ?? []))
    }

    /// The next row, handed to `body` with its id; false at the end.
    func next(_ body: (_ id: Int64, _ metric: MappedMetric) throws -> Void) throws -> Bool {
        guard try statement.step() else { return false }
        let row = statement
        metric.type = row.bytes(1)
        metric.startDate = row.int64(2)
        metric.endDate = row.int64(3)
        metric.value = row.double(4)
        metric.unit = row.bytes(5)
        metric.sourceApp = row.bytes(6)
        metric.device = row.bytes(7)
        metric.categoryValue = row.isNull(10) ? nil : row.bytes(10)
        metadata.removeAll()
        Self.appendMetadata(device: metric.device, sourceVersion: row.isNull(8) ? nil : row.bytes(8),
                            extra: row.isNull(9) ? nil : row.bytes(9), to: &metadata)
        let id = row.int64(0)
        try metadata.withBytes { encoded in
            metric.metadataJSON = encoded
            try body(id, metric)
        }
        return true
    }

    /// The metadata object from its stored parts: `{"device":…,"sourceVersion":…,<extra>}`
    /// (`device` and `sourceVersion` are kept as ids, the rest as JSON members; see StoreSchema).
    static func appendMetadata(device: ByteText, sourceVersion: ByteText?, extra: ByteText?, to out: inout ByteBuffer) {
        out.append("{\"device\":")
        out.appendJSONString(device)
        if let sourceVersion {
            out.append(",\"sourceVersion\":")
            out.appendJSONString(sourceVersion)
        }
        if let extra {
            out.append(UInt8(ascii: ","))
            out.append(extra)
        }
        out.append(UInt8(ascii: "}"))
    }
}

/// A WHERE clause over the metric rows (alias `m`) built from a `MetricFilter` and more conditions,
/// with its bound values. What counts is not one of its conditions: it is the rows read
/// (`CountedRows`).
struct MetricConditions {
    var conditions: [String] = []
    var arguments: [StoreValue] = []

    /// `typeIDs` resolves the filter's type names to the store's ids.
    init(_ filter: MetricFilter, typeIDs: (Set<String>) throws -> [Int64]) rethrows {
        if let types = filter.types {
            let ids = try typeIDs(types)
            conditions.append("m.type_id IN (\(ids.isEmpty ? "NULL" : ids.map(String.init).joined(separator: ",")))")
        }
        if let since = filter.since { add("m.start_date >= ?", .int(since)) }
        if let until = filter.until { add("m.start_date < ?", .int(until)) }
    }

    mutating func add(_ condition: String, _ values: StoreValue...) {
        conditions.append(condition)
        arguments.append(contentsOf: values)
    }

    var whereClause: String { conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") }

    /// Not acknowledged by `targetID`.
    static let notAcknowledged = "NOT EXISTS (SELECT 1 FROM upload_ack a WHERE a.target_id = ? AND a.metric_id = m.id)"
}

extension StoreAccess {
    func conditions(_ filter: MetricFilter) throws -> MetricConditions {
        try MetricConditions(filter) { try typeIDs(matching: $0) }
    }
}
