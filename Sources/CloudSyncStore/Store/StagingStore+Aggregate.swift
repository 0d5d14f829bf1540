import CloudSyncExport
import CloudSyncModel
import Foundation

extension StagingStore {
    /// Count, sum, average, minimum and maximum per type and bucket, in `startDate` order per type.
    /// A sample belongs to the bucket of its `startDate`.
    public func aggregate(_ options: AggregateOptions) throws -> [AggregateRow] {
        try storeErrors {
            var conditions = try conditions(options.filter)
            if !options.countRepeats { conditions.add(MetricConditions.countedOnce) }
            // The identity index is ordered by (type_id, start_date): no sort needed. Ids only: the
            // names are looked up once per id (a String per row cost more than the query itself).
            let rows = try database.prepare("""
                SELECT m.type_id, m.unit_id, m.start_date, m.end_date, m.value, m.source_id, m.device_id
                FROM metric m \(conditions.whereClause) ORDER BY m.type_id, m.start_date
                """)
            try rows.bind(conditions.arguments)
            let typeNames = try names("metric_type"), unitNames = try names("unit"), deviceNames = try names("device")
            var deviceRanks: [Int64: Int64] = [:]
            var labeler = BucketLabeler(bucket: options.bucket, zone: options.timeZone)
            var accumulator = BucketAccumulator()
            var merger: SourceMerger?
            var currentType: Int64 = -1
            var typeName = ""
            var results: [AggregateRow] = []
            while try rows.step() {
                let typeID = rows.int64(0)
                if typeID != currentType {
                    accumulator.flush(into: &results, labeler: labeler)
                    currentType = typeID
                    typeName = typeNames[typeID] ?? ""
                    merger = options.mergeSources && CumulativeTypes.contains(typeName) ? SourceMerger() : nil
                }
                let start = rows.int64(2), end = rows.int64(3)
                var value = rows.double(4)
                if merger != nil {
                    let deviceID = rows.int64(6)
                    let deviceRank = deviceRanks[deviceID] ?? SourceMerger.deviceRank(deviceNames[deviceID] ?? "")
                    deviceRanks[deviceID] = deviceRank
                    value *= merger!.uncoveredFraction(start: start, end: end, rank: deviceRank << 40 | rows.int64(5))
                    if value == 0 { continue }
                }
                let key = labeler.key(start)
                accumulator.add(type: typeName, unit: unitNames[rows.int64(1)] ?? "", key: key, value: value, labeler: labeler)
            }
            accumulator.flush(into: &results, labeler: labeler)
            return results
        }
    }
}

extension StagingStore {
    /// id → name of one of the name tables (types, units, devices: tens to hundreds of rows).
    func names(_ table: String) throws -> [Int64: String] {
        var names: [Int64: String] = [:]
        let rows = try database.prepare("SELECT id, name FROM \(table)")
        while try rows.step() { names[rows.int64(0)] = rows.text(1) ?? "" }
        return names
    }
}

/// Sums one (type, unit, bucket) at a time: rows arrive ordered by type and time.
struct BucketAccumulator {
    private var type = "", unit = ""
    private var key: Int64 = .min
    private var count = 0
    private var sum = 0.0, minimum = Double.infinity, maximum = -Double.infinity
    /// Buckets of the current type, by (unit, key): a type rarely has two units, but may.
    private var open: [String: AggregateRow] = [:]

    mutating func add(type: String, unit: String, key: Int64, value: Double, labeler: BucketLabeler) {
        if unit != self.unit || key != self.key || type != self.type {
            close(labeler: labeler)
            self.type = type
            self.unit = unit
            self.key = key
        }
        count += 1
        sum += value
        minimum = Swift.min(minimum, value)
        maximum = Swift.max(maximum, value)
    }

    private mutating func close(labeler: BucketLabeler) {
        guard count > 0 else { return }
        let id = "\(unit)\u{0}\(key)"
        var row = open[id] ?? AggregateRow(type: type, bucket: labeler.label(key), unit: unit, count: 0, sum: 0,
                                           average: 0, minimum: .infinity, maximum: -.infinity)
        row.count += count
        row.sum += sum
        row.minimum = Swift.min(row.minimum, minimum)
        row.maximum = Swift.max(row.maximum, maximum)
        open[id] = row
        count = 0
        sum = 0
        minimum = .infinity
        maximum = -.infinity
    }

    /// Ends the current type: its buckets go to `results`, in bucket order.
    mutating func flush(into results: inout [AggregateRow], labeler: BucketLabeler) {
        close(labeler: labeler)
        let rows = open.values.sorted { ($0.bucket, $0.unit) < ($1.bucket, $1.unit) }
        for var row in rows {
            row.average = row.sum / Double(row.count)
            results.append(row)
        }
        open.removeAll()
        key = .min
        type = ""
    }
}

/// `--merge-sources`: where several sources recorded the same span (the iPhone and the Watch
/// counting the same walk), the span counts once, for the source of highest priority, as the
/// Health app does. A lower-priority sample keeps the fraction of its duration that no
/// higher-priority sample covers, and its value is prorated by that fraction.
///
/// Priority: Apple Watch, then iPhone, then other devices; among equals, the source first seen by
/// the store. Samples arrive in start order, so only the higher-priority samples still running at
/// the current start are kept.
struct SourceMerger {
    private var active: [(start: Int64, end: Int64, rank: Int64)] = []

    static func rank(device: String, sourceID: Int64) -> Int64 {
        deviceRank(device) << 40 | sourceID
    }

    static func deviceRank(_ device: String) -> Int64 {
        device.contains("Watch") ? 0 : device.contains("iPhone") ? 1 : 2
    }

    mutating func uncoveredFraction(start: Int64, end: Int64, rank: Int64) -> Double {
        active.removeAll { $0.end <= start }
        let covering = active.filter { $0.rank < rank && $0.end > start && $0.start < Swift.max(end, start + 1) }
        active.append((start, end, rank))
        guard !covering.isEmpty else { return 1 }
        guard end > start else { return 0 }  // an instant inside a higher-priority span
        // Length of the union of the covering spans, clipped to [start, end].
        let spans = covering.map { (Swift.max($0.start, start), Swift.min($0.end, end)) }.sorted { $0.0 < $1.0 }
        var covered: Int64 = 0
        var reach = start
        for (from, to) in spans where to > reach {
            covered += to - Swift.max(from, reach)
            reach = to
        }
        return Double(end - start - covered) / Double(end - start)
    }
}
