import CloudSyncExport
import CloudSyncModel

/// Writes converted metrics into the store (the `MetricSink` of `cloudsync import`).
///
/// Keeps every sample, counts each once (docs/store.md):
/// - `INSERT OR IGNORE` against the identity index (type, dates, source, value, unit, creation
///   date) decides new versus already there;
/// - a sample without a creation date is already there when any stored sample matches it but for
///   the creation date; a sample with one fills in the date of a stored sample that has none (rows
///   of stores made before creation dates were kept), so an upgraded store does not gain a copy;
/// - before each commit, the new rows that another stored sample matches but for the creation date
///   are marked as repeats, in the same transaction.
///
/// Commits every `commitEvery` metrics, each commit also saving the run's counts, so a killed import
/// keeps what it committed and the next import only adds what is missing.
final class StoreImportSink: MetricSink, ConversionObserver {
    private let database: SQLiteDatabase
    private let runID: Int64
    private let insert: SQLiteStatement
    /// Stored samples equal but for the creation date: one that has none, and any.
    private let findUndated: SQLiteStatement
    private let fillCreationDate: SQLiteStatement
    private let findAlike: SQLiteStatement
    private let findSame: SQLiteStatement
    private let markRepeats, markRepeat: SQLiteStatement
    // The properties written per record are `@exclusivity(unchecked)`: one thread at a time owns
    // the sink (the mapping thread), and the dynamic checks were 3% of that thread's samples.

    /// Into an empty store: the samples this run added (a new row it may have seen is looked up at
    /// once), and the repeats marked since the last commit, to add to `metric_summary` after it.
    @exclusivity(unchecked) private var seen: SeenSamples?
    @exclusivity(unchecked) private var repeatsToCount: [(type: Int64, unit: Int64, source: Int64)] = []
    private let addToSummary, addRepeatToSummary: SQLiteStatement
    /// This transaction's new rows per (type, unit, source), for `metric_summary`.
    private var newInSummary: [SummaryKey: (count: Int64, first: Int64, last: Int64, longest: Int64)] = [:]
    /// Widens a type's dirty range of the hour summary (see StagingStore+HourSummary).
    private let markHoursDirty: SQLiteStatement
    /// The hour summary of the types new to the store, counted as the rows are inserted.
    private let hourSummary: OnlineHourSummary
    /// Merge ranks by device id (the device's name is at hand when its id is first seen).
    @exclusivity(unchecked) private var deviceRanks: [Int64: Int64] = [:]
    private let progress: SQLiteStatement
    private let types, sources, units, devices, versions, categories: NameTable
    @exclusivity(unchecked) private var metadata = ByteBuffer(capacity: 4096)
    private let commitEvery: Int
    @exclusivity(unchecked) private var sinceCommit = 0
    /// Rows above this id are this run's and not yet checked for repeats.
    private var checkedUpTo: Int64
    /// Rows above this id are this run's.
    private let storedBefore: Int64
    /// The types of which the store holds samples without a creation date (read once).
    private var undatedTypes: Set<Int64>
    @exclusivity(unchecked) private(set) var newCount = 0
    /// Samples the store had before this run.
    private(set) var duplicateCount = 0
    /// Records this export wrote twice (same sample, same or no creation date): stored once.
    private(set) var writtenTwiceCount = 0
    /// New samples that repeat a stored one with another creation date.
    private(set) var repeatCount = 0
    private(set) var me: [String: String]?

    /// A row is a repeat when an earlier row is alike but for its creation date; the statements
    /// marking repeats return the marked rows' summary key.
    private static let repeatsEarlierRow = """
        EXISTS (SELECT 1 FROM metric o
                WHERE o.type_id = metric.type_id AND o.start_date = metric.start_date AND o.end_date = metric.end_date
                  AND o.source_id = metric.source_id AND o.value = metric.value AND o.unit_id = metric.unit_id
                  AND o.category_id = metric.category_id AND o.id < metric.id)
        RETURNING type_id, unit_id, source_id
        """

    private static let alike = """
        type_id = ?1 AND start_date = ?2 AND end_date = ?3 AND source_id = ?4 AND value = ?5 AND unit_id = ?6 AND category_id = ?7
        """

    init(database: SQLiteDatabase, runID: Int64, commitEvery: Int = 50_000, denseCount: Int = HourSummaryBuilder.denseCount) throws {
        self.database = database
        hourSummary = try OnlineHourSummary(database: database, denseCount: denseCount)
        self.runID = runID
        self.commitEvery = commitEvery
        insert = try database.prepare("""
            INSERT OR IGNORE INTO metric(type_id, start_date, end_date, source_id, value, unit_id, category_id, device_id,
                                         source_version_id, extra, import_id, created_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            """)
        findUndated = try database.prepare("""
            SELECT id, import_id FROM metric WHERE \(Self.alike) AND created_at = \(StoreSchema.undated) LIMIT 1
            """)
        fillCreationDate = try database.prepare("UPDATE OR IGNORE metric SET created_at = ?2 WHERE id = ?1")
        findAlike = try database.prepare("SELECT id, import_id FROM metric WHERE \(Self.alike) ORDER BY id LIMIT 1")
        findSame = try database.prepare("SELECT id, import_id FROM metric WHERE \(Self.alike) AND created_at = ?8")
        markRepeats = try database.prepare("UPDATE metric SET is_repeat = 1 WHERE id > ?1 AND \(Self.repeatsEarlierRow)")
        markRepeat = try database.prepare("UPDATE metric SET is_repeat = 1 WHERE id = ?1 AND \(Self.repeatsEarlierRow)")
        addToSummary = try database.prepare("""
            INSERT INTO metric_summary(type_id, unit_id, source_id, count, repeats, first_start, last_end) VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6)
            ON CONFLICT(type_id, unit_id, source_id) DO UPDATE SET count = count + excluded.count,
                first_start = min(first_start, excluded.first_start), last_end = max(last_end, excluded.last_end)
            """)
        addRepeatToSummary = try database.prepare("""
            UPDATE metric_summary SET repeats = repeats + 1 WHERE type_id = ?1 AND unit_id = ?2 AND source_id = ?3
            """)
        markHoursDirty = try database.prepare("""
            INSERT INTO metric_hour_state(type_id, longest, dirty_from, dirty_to) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT(type_id) DO UPDATE SET longest = max(longest, excluded.longest),
                dirty_from = min(coalesce(dirty_from, excluded.dirty_from), excluded.dirty_from),
                dirty_to = max(coalesce(dirty_to, excluded.dirty_to), excluded.dirty_to)
            """)
        progress = try database.prepare("""
            UPDATE import_run SET new_count = ?, duplicate_count = ?, repeat_count = ?, written_twice_count = ? WHERE id = ?
            """)
        types = try NameTable(database, table: "metric_type")
        sources = try NameTable(database, table: "source")
        units = try NameTable(database, table: "unit")
        devices = try NameTable(database, table: "device")
        versions = try NameTable(database, table: "source_version")
        categories = try NameTable(database, table: "category_value")
        checkedUpTo = try database.scalarInt("SELECT coalesce(max(id), 0) FROM metric") ?? 0
        storedBefore = checkedUpTo
        if storedBefore == 0 { seen = SeenSamples() }
        var undated = Set<Int64>()
        let undatedRows = try database.prepare("SELECT DISTINCT type_id FROM metric WHERE created_at = \(StoreSchema.undated)")
        while try undatedRows.step() { undated.insert(undatedRows.int64(0)) }
        undatedTypes = undated
    }

    /// Starts the first transaction.
    func begin() throws { try database.execute("BEGIN IMMEDIATE") }

    func write(_ metric: MappedMetric) throws {
        let typeID = try types.id(metric.type), sourceID = try sources.id(metric.sourceApp), unitID = try units.id(metric.unit)
        let keys = SampleKeys(type: typeID, source: sourceID, unit: unitID,
                              category: try metric.categoryValue.map { try categories.id($0) } ?? 0)
        let created = metric.creationDateText.flatMap(ExportDateParser.epochSeconds)
        if let storedRow = try alreadyStoredRow(keys, metric, created: created) {
            countStored(storedRow)
        } else {
            try insertRow(keys, metric, created: created)
            if database.changes > 0 {
                newCount += 1
                // A repeat is marked now, before the hour summary counts it: counted once, its
                // type stays counted as it is inserted instead of being rebuilt from its rows.
                let isRepeat = seen?.insert(type: typeID, start: metric.startDate, end: metric.endDate, source: sourceID,
                                            value: metric.value, unit: unitID, category: keys.category) == true
                    ? try markIfRepeat(database.lastInsertRowID) : false
                addToRunningSummary(SummaryKey(type: typeID, unit: unitID, source: sourceID), metric.startDate, metric.endDate)
                if !isRepeat {
                    try hourSummary.add(typeID: typeID, typeName: metric.type, unit: unitID, start: metric.startDate, end: metric.endDate,
                                        value: metric.value, rank: rank(sourceID, metric))
                }
            } else {
                countStored(try sameRow(keys, metric, created: created))
            }
        }
        sinceCommit += 1
        if sinceCommit >= commitEvery {
            try commit()
            try begin()
        }
    }

    /// The cases the identity index alone cannot decide (see the type's comment): the stored row
    /// that already holds the sample, if any.
    private func alreadyStoredRow(_ keys: SampleKeys, _ metric: MappedMetric, created: Int64?) throws -> StoredRow? {
        guard created == nil || undatedTypes.contains(keys.type) else { return nil }
        let query = created == nil ? findAlike : findUndated
        defer { query.reset() }
        try bindAlike(query, keys, metric)
        guard try query.step() else { return nil }
        let row = StoredRow(id: query.int64(0), importID: query.int64(1))
        if let created {
            // When a row with this creation date is also stored, the update does nothing: either
            // way the sample is there.
            try fillCreationDate.run([.int(row.id), .int(created)])
        }
        return row
    }

    private struct StoredRow { var id: Int64; var importID: Int64 }

    /// The row the identity index found equal to `metric`.
    private func sameRow(_ keys: SampleKeys, _ metric: MappedMetric, created: Int64?) throws -> StoredRow? {
        // Cheap cases first: nothing of this run stored yet, or nothing stored before it.
        if newCount == 0 { return StoredRow(id: 0, importID: 0) }
        if storedBefore == 0 { return StoredRow(id: storedBefore + 1, importID: runID) }
        defer { findSame.reset() }
        try bindAlike(findSame, keys, metric)
        try findSame.bind(8, created ?? StoreSchema.undated)
        guard try findSame.step() else { return nil }
        return StoredRow(id: findSame.int64(0), importID: findSame.int64(1))
    }

    /// A record whose sample is stored: before this run, or earlier in this export.
    private func countStored(_ row: StoredRow?) {
        if let row, row.importID == runID { writtenTwiceCount += 1 } else { duplicateCount += 1 }
    }

    /// A sample's name-table ids: with its dates and value, its identity (but for the creation date).
    private struct SampleKeys { var type, source, unit, category: Int64 }

    private func bindAlike(_ statement: SQLiteStatement, _ keys: SampleKeys, _ metric: MappedMetric) throws {
        try statement.bind(1, keys.type)
        try statement.bind(2, metric.startDate)
        try statement.bind(3, metric.endDate)
        try statement.bind(4, keys.source)
        try statement.bind(5, metric.value)
        try statement.bind(6, keys.unit)
        try statement.bind(7, keys.category)
    }

    private func rank(_ sourceID: Int64, _ metric: MappedMetric) throws -> Int64 {
        let deviceID = try devices.id(metric.device)
        let deviceRank = deviceRanks[deviceID] ?? SourceMerger<Void>.deviceRank(metric.device.string)
        deviceRanks[deviceID] = deviceRank
        return SourceMerger<Void>.rank(deviceRank: deviceRank, sourceID: sourceID)
    }

    private func insertRow(_ keys: SampleKeys, _ metric: MappedMetric, created: Int64?) throws {
        // The mapper always puts `device` first and `sourceVersion` (when present) second.
        var rest = metric.metadata.dropFirst()
        if let version = rest.first, version.key.equals("sourceVersion") {
            try insert.bind(9, try versions.id(version.value))
            rest = rest.dropFirst()
        } else {
            try insert.bindNull(9)
        }
        if rest.isEmpty {
            try insert.bindNull(10)
        } else {
            metadata.removeAll()
            MetricJSON.appendMembers(rest, to: &metadata)
            try metadata.withBytes { try insert.bind(10, bytes: $0) }
        }
        try bindAlike(insert, keys, metric)
        try insert.bind(8, try devices.id(metric.device))
        try insert.bind(11, runID)
        try insert.bind(12, created ?? StoreSchema.undated)
        // A dated sample later in this run may be this one: it must find it to fill in the date.
        if created == nil { undatedTypes.insert(keys.type) }
        try insert.step()
        insert.rewind()   // all 12 parameters are bound above, every time
    }

    /// The counts as of the last commit: what the store holds of this run.
    private var committed = (new: 0, duplicate: 0, repeats: 0, writtenTwice: 0)

    /// The open transaction was rolled back: the counts go back to the last commit's.
    func rolledBack() {
        (newCount, duplicateCount, repeatCount, writtenTwiceCount) = committed
        repeatsToCount.removeAll()
    }

    /// `final`: the last commit of the run, where the types counted online are marked current.
    private func commit(final: Bool = false) throws {
        try addNewRowsToSummary()
        try markRepeatsSinceLastCommit()
        if final { try hourSummary.finish() } else { try hourSummary.write() }
        try progress.run([.int(Int64(newCount)), .int(Int64(duplicateCount)), .int(Int64(repeatCount)),
                          .int(Int64(writtenTwiceCount)), .int(runID)])
        try database.execute("COMMIT")
        committed = (newCount, duplicateCount, repeatCount, writtenTwiceCount)
        sinceCommit = 0
    }

    /// Into an empty store, a new row the filter could not rule out: marked now if it repeats an
    /// earlier row (in the open transaction, which adds it).
    private func markIfRepeat(_ id: Int64) throws -> Bool {
        defer { markRepeat.reset() }
        try markRepeat.bind(1, id)
        guard try markRepeat.step() else { return false }
        repeatsToCount.append((markRepeat.int64(0), markRepeat.int64(1), markRepeat.int64(2)))
        return true
    }

    /// Marks this transaction's new rows that repeat a stored sample, in the same transaction, so a
    /// killed import never leaves an unmarked repeat behind. Into an empty store they are marked
    /// already (`markIfRepeat`), and left out of the hour summary.
    private func markRepeatsSinceLastCommit() throws {
        var marked = repeatsToCount
        repeatsToCount.removeAll(keepingCapacity: true)
        if seen == nil {
            try markRepeats.bind(1, checkedUpTo)
            while try markRepeats.step() { marked.append((markRepeats.int64(0), markRepeats.int64(1), markRepeats.int64(2))) }
            markRepeats.reset()
            // Counted as it was inserted: the rebuild from the rows leaves it out.
            for repeated in marked { hourSummary.leave(repeated.type) }
        }
        repeatCount += marked.count
        for (type, unit, source) in marked {
            try addRepeatToSummary.run([.int(type), .int(unit), .int(source)])
        }
        checkedUpTo = try database.scalarInt("SELECT coalesce(max(id), 0) FROM metric") ?? checkedUpTo
    }

    /// The key being counted and its counts: records come grouped by type and source, so the
    /// dictionary is touched when the key changes, not once per row.
    @exclusivity(unchecked) private var running: (key: SummaryKey, count: Int64, first: Int64, last: Int64, longest: Int64)?

    private func addToRunningSummary(_ key: SummaryKey, _ start: Int64, _ end: Int64) {
        if let current = running, current.key == key {
            running = (key, current.count + 1, min(current.first, start), max(current.last, end), max(current.longest, end - start))
            return
        }
        flushRunningSummary()
        running = (key, 1, start, end, end - start)
    }

    private func flushRunningSummary() {
        guard let current = running else { return }
        running = nil
        if let entry = newInSummary[current.key] {
            newInSummary[current.key] = (entry.count + current.count, min(entry.first, current.first), max(entry.last, current.last),
                                         max(entry.longest, current.longest))
        } else {
            newInSummary[current.key] = (current.count, current.first, current.last, current.longest)
        }
    }

    /// `metric_summary` and the hour summary's dirty ranges, in the transaction adding the rows.
    private func addNewRowsToSummary() throws {
        flushRunningSummary()
        var dirty: [Int64: (first: Int64, last: Int64, longest: Int64)] = [:]
        for (key, entry) in newInSummary {
            try addToSummary.run([.int(key.type), .int(key.unit), .int(key.source), .int(entry.count), .int(entry.first), .int(entry.last)])
            let range = dirty[key.type] ?? (entry.first, entry.last, entry.longest)
            dirty[key.type] = (min(range.first, entry.first), max(range.last, entry.last), max(range.longest, entry.longest))
        }
        for (type, range) in dirty {
            try markHoursDirty.run([.int(type), .int(range.longest), .int(range.first), .int(range.last)])
        }
        newInSummary.removeAll(keepingCapacity: true)
    }

    private struct SummaryKey: Hashable { var type, unit, source: Int64 }

    func finish() throws {
        try commit(final: true)
        // The filter's 10 MiB go back before the archive's other entries are read: the import's
        // peak RSS came there (125 MiB on the 1 GB export).
        seen = nil
    }

    /// The input was damaged or the run was stopped: keep every metric written so far.
    func abandon() throws { try commit() }

    // MARK: ConversionObserver: the export facts

    func metric(_ metric: MappedMetric) {}
    func invalid(_ tree: ElementTree, _ reason: InvalidRecordReason) {}
    func element(_ tree: ElementTree) {
        if tree.name(tree.root) == .me {
            me = Dictionary(tree.attributes(of: tree.root).map { ($0.name.string, $0.value.string) }, uniquingKeysWith: { a, _ in a })
        }
    }
}
