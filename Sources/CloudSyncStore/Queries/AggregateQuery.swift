import CloudSyncModel
import Foundation

/// `aggregate`'s buckets (and `series`, `compare_periods`, the report's charts): from the rows that count, or from their hour summary.
public struct AggregateQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

    /// Count, sum, average, minimum and maximum per type and bucket, in `startDate` order per type.
    /// A sample belongs to the bucket of its `startDate`; sleep is counted by night (`sleepRows`).
    ///
    /// A type with an hour summary kept by the import (`AggregateQuery+HourSummary.swift`) is read from
    /// it when the question allows (hour-aligned range, a zone of whole-hour offsets, repeats counted
    /// once); the others from their rows. Both give the same numbers.
    public func aggregate(_ options: AggregateOptions) throws -> [AggregateRow] {
        try storeErrors {
            var byType: [Int64: [AggregateRow]] = [:]
            if let sleep = try sleepTypeID(options) { byType[sleep] = try sleepRows(options) }
            for typeID in try hourSummaryCandidates(options) where byType[typeID] == nil {
                if let rows = try aggregateFromHourSummary(typeID: typeID, options: options) { byType[typeID] = rows }
            }
            try aggregateRows(options, excluding: Set(byType.keys), into: &byType)
            return byType.keys.sorted().flatMap { byType[$0]! }
        }
    }

    /// The rows' way: every sample of the filter's types (but `excluding`), in (type, start) order.
    private func aggregateRows(_ options: AggregateOptions, excluding: Set<Int64>, into byType: inout [Int64: [AggregateRow]]) throws {
        var filter = options.filter
        // Merging, a sample is prorated by the samples that overlap it, also those just outside the
        // range: they are read (up to the longest sample on either side) but not counted.
        let counted = (since: filter.since ?? .min, until: filter.until ?? .max)
        if options.mergeSources {
            let longest = try longestSample()
            filter.since = filter.since.map { $0 - longest }
            filter.until = filter.until.map { $0 + longest }
        }
        var conditions = try conditions(filter)
        if !excluding.isEmpty { conditions.add("m.type_id NOT IN (\(excluding.sorted().map(String.init).joined(separator: ",")))") }
        // The identity index is ordered by (type_id, start_date): no sort needed. Ids only: the
        // names are looked up once per id (a String per row cost more than the query itself).
        let rows = try database.prepare("""
            SELECT m.type_id, m.unit_id, m.start_date, m.end_date, m.value, m.source_id, m.device_id
            FROM \(CountedRows.rows(countingRepeats: options.countRepeats)) m \(conditions.whereClause) ORDER BY m.type_id, m.start_date
            """)
        try rows.bind(conditions.arguments)
        let typeNames = try names("metric_type"), unitNames = try names("unit")
        var ranks = SourceRanks(deviceNames: try names("device"))
        var labeler = BucketLabeler(bucket: options.bucket, zone: options.timeZone)
        var accumulator = BucketAccumulator()
        var merger: SourceMerger<(unit: Int64, key: Int64)>?
        var currentType: Int64 = -1
        var typeName = ""
        // A merged sample's value; `key` .min: a sample outside the range, counted nowhere.
        func count(_ payload: (unit: Int64, key: Int64), _ value: Double) {
            if value != 0 && payload.key != .min {
                accumulator.add(type: typeName, unit: unitNames[payload.unit] ?? "", key: payload.key, value: value, labeler: labeler)
            }
        }
        func endType() {
            merger?.finish(emit: count)
            var results: [AggregateRow] = []
            accumulator.flush(into: &results, labeler: labeler)
            if !results.isEmpty { byType[currentType] = results }
        }
        while try rows.step() {
            let typeID = rows.int64(0)
            if typeID != currentType {
                endType()
                currentType = typeID
                typeName = typeNames[typeID] ?? ""
                merger = options.mergeSources && CumulativeTypes.contains(typeName) ? SourceMerger() : nil
            }
            let start = rows.int64(2)
            let inRange = start >= counted.since && start < counted.until
            if merger != nil {
                // Outside the range: a sample that may cover one inside, counted nowhere.
                let key = inRange ? labeler.key(start) : .min
                merger!.add(start: start, end: rows.int64(3), rank: ranks.rank(device: rows.int64(6), source: rows.int64(5)),
                            value: rows.double(4), payload: (rows.int64(1), key), emit: count)
            } else if inRange {
                accumulator.add(type: typeName, unit: unitNames[rows.int64(1)] ?? "", key: labeler.key(start), value: rows.double(4),
                                labeler: labeler)
            }
        }
        endType()
    }
}

extension StoreAccess {
    /// id → name of one of the name tables (types, units, devices: tens to hundreds of rows).
    func names(_ table: String) throws -> [Int64: String] { try database.names(table) }
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
        add(type: type, unit: unit, key: key, count: 1, sum: value, minimum: value, maximum: value, labeler: labeler)
    }

    /// Several samples at once (an hour of the hour summary).
    mutating func add(type: String, unit: String, key: Int64, count: Int, sum: Double, minimum: Double, maximum: Double,
                      labeler: BucketLabeler) {
        if unit != self.unit || key != self.key || type != self.type {
            close(labeler: labeler)
            self.type = type
            self.unit = unit
            self.key = key
        }
        self.count += count
        self.sum += sum
        self.minimum = Swift.min(self.minimum, minimum)
        self.maximum = Swift.max(self.maximum, maximum)
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
