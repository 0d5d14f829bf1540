import CloudSyncExport
import CloudSyncModel

/// SQL shared by every reader of stored metrics (export, aggregate, upload).
enum StoredMetricSQL {
    /// The columns and joins that give a metric back: name, dates, value, unit, source, and the
    /// three parts of its metadata object.
    static let columns = "m.id, t.name, m.start_date, m.end_date, m.value, u.name, s.name, d.name, v.name, m.extra"
    static let joins = """
        FROM metric m JOIN metric_type t ON t.id = m.type_id JOIN unit u ON u.id = m.unit_id
        JOIN source s ON s.id = m.source_id JOIN device d ON d.id = m.device_id
        LEFT JOIN source_version v ON v.id = m.source_version_id
        """

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

    /// The metadata of the current row of a statement selecting `columns`.
    static func appendMetadata(of row: SQLiteStatement, to out: inout ByteBuffer) {
        appendMetadata(device: row.bytes(7), sourceVersion: row.isNull(8) ? nil : row.bytes(8),
                       extra: row.isNull(9) ? nil : row.bytes(9), to: &out)
    }
}

/// A WHERE clause built from a `MetricFilter` (and more conditions), with its bound values.
struct MetricConditions {
    var conditions: [String] = []
    var arguments: [SQLiteValue] = []

    /// `typeIDs` resolves the filter's type names to the store's ids.
    init(_ filter: MetricFilter, typeIDs: (Set<String>) throws -> [Int64]) rethrows {
        if let types = filter.types {
            let ids = try typeIDs(types)
            conditions.append("m.type_id IN (\(ids.isEmpty ? "NULL" : ids.map(String.init).joined(separator: ",")))")
        }
        if let since = filter.since { add("m.start_date >= ?", .int(since)) }
        if let until = filter.until { add("m.start_date < ?", .int(until)) }
    }

    mutating func add(_ condition: String, _ values: SQLiteValue...) {
        conditions.append(condition)
        arguments.append(contentsOf: values)
    }

    var whereClause: String { conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") }

    /// Leaves out repeats (samples alike but for their creation date, after the first) and pushed
    /// samples that another source supersedes (`metric.superseded`): what counts each moment once,
    /// and what uploads send (docs/store.md).
    static let countedOnce = "m.is_repeat = 0 AND m.superseded = 0"
    /// Not acknowledged by `targetID`.
    static let notAcknowledged = "NOT EXISTS (SELECT 1 FROM upload_ack a WHERE a.target_id = ? AND a.metric_id = m.id)"
}

extension StoreAccess {
    func conditions(_ filter: MetricFilter) throws -> MetricConditions {
        try MetricConditions(filter) { try typeIDs(matching: $0) }
    }
}
