import CloudSyncModel

/// Writes an import's metrics (the import session's `MetricSink`). Keeps every sample and counts
/// each once (docs/store.md):
/// - a sample is already there when a stored row has its identity (type, dates, source, value, unit,
///   category, creation date); a sample without a creation date (an iOS 8 export, a push) when any
///   stored row is alike but for the creation date; a dated sample fills in the date of an alike
///   stored row that has none (a row of a store older than creation dates, or a pushed one, which
///   becomes the export's), instead of being added;
/// - a new row is written once, with its flags: a repeat when a row alike but for its creation date
///   is stored before it; a pushed row with its summary flag and, by `SupersedeRule`, whether it is
///   superseded, and why. No row is updated after its insert to say what it is;
/// - its counts go to `metric_summary` and the hour summary (`SummaryCounts`, `OnlineHourSummary`)
///   in the transaction that adds it.
final class MetricWriter: MetricSink {
    struct Counts: Sendable {
        /// Rows added, and among them repeats and superseded rows.
        var new = 0, repeats = 0, superseded = 0
        /// Samples the store had before this import.
        var already = 0
        /// Records this input wrote twice (same sample, same or no creation date): stored once.
        var writtenTwice = 0
    }

    /// The properties written per record are `@exclusivity(unchecked)`: one thread at a time owns
    /// the writer (the mapping thread), and the dynamic checks were 3% of that thread's samples.
    @exclusivity(unchecked) private(set) var counts = Counts()
    /// The counts as of the last commit: what the store holds of this import.
    private(set) var committed = Counts()
    /// Pushed rows only: the types written, whose hour summary the push brings up to date (and no
    /// other: those are an import's beside it, or were current).
    private(set) var pushedTypes: Set<Int64> = []
    /// Per type name (the push's reply gives them by name): rows added and rows already there.
    private(set) var byType: [String: (new: Int, already: Int)] = [:]

    private let database: any StoreDatabase
    private let runID: Int64
    private let transaction: ImportTransaction
    private let origin: Int64
    /// Pushed rows only: the rule that decides whether one counts.
    private let rule: SupersedeRule?
    private let insert, findAlike, findUndated, fillCreationDate, importOfRow, progress: any StoreStatement
    /// The rows known new without a look at the store (into an empty store), written a chunk at a
    /// time by one `INSERT … SELECT` (`RowBatch`): when the chunk is full, before any look at the
    /// store, and before each commit. A statement step per row reopened the table's and its indexes'
    /// cursors each time: 13,500 of SQLite's instructions a row on the 48 MB generated export, against
    /// 3,300 for the chunk (docs/performance.md, "Issue 34").
    private let newRows: any RowBatch
    /// `newRows` on SQLite, as its own type: the chunk is filled by code specialised for it (through
    /// the protocol, a call per cell cost the 48 MB import 22 M instructions more, callgrind).
    private let cellRows: CellRows?
    /// A bulk load's rows that the import may have added before, kept apart to be decided when the
    /// rows are in (`BulkLoad.settle`).
    private let undecidedRows: (any RowBatch)?
    /// `newRows.notTaken` as the counts last said.
    private var notTakenCounted = 0
    /// Rows the chunk was sure of but the table did not take (the store changed under the import):
    /// the counts are read again from the rows when the import completes.
    private(set) var miscounted = false
    private let types, sources, units, devices, versions, categories: NameTable
    /// The six, read together at the first name not known (`NameTable.Group`): the group is held
    /// here, the tables point back to it weakly.
    private let nameTables: NameTable.Group
    private let summaryStatements: SummaryCounts.Statements
    @exclusivity(unchecked) private var summary = SummaryCounts()
    /// The hour summary of the types new to the store, counted as the rows are inserted.
    private let hourSummary: OnlineHourSummary
    /// Merge ranks by device id (the device's name is at hand when its id is first seen).
    @exclusivity(unchecked) private var deviceRanks: [Int64: Int64] = [:]
    @exclusivity(unchecked) private var metadata = ByteBuffer(capacity: 4096)
    /// Rows above this id are this import's.
    let storedBefore: Int64
    /// An export's samples this import added (not a push's: those are looked up one by one, by the
    /// supersede rule). Into an empty store a sample it has not seen is new and no repeat without a
    /// look at the store; into one with rows, it is looked up among them while the chunk waits.
    /// A sample it may have seen is looked up with the chunk written.
    @exclusivity(unchecked) private var seen: SeenSamples?
    /// For an input that does not say how many samples it holds (an export): `seen` is made at its
    /// first sample, or at the first rows written beside it, sized by the document's size when the
    /// reader says it before (`expect(metricBytes:)`). Made at once, 10 MiB were taken and cleared
    /// for any export: the 100 MB export's import peaked at 85 MiB, 77 with a filter of its size.
    @exclusivity(unchecked) private var seenToMake: (wanted: Bool, samples: Int?) = (false, nil)
    /// On PostgreSQL: the stored samples looked at a day of a type at a time (`StoredSampleWindows`),
    /// and a push's new rows written a chunk at a time, as an export's.
    @exclusivity(unchecked) private var windows: StoredSampleWindows?
    /// The types of which the store holds samples without a creation date.
    @exclusivity(unchecked) private var undatedTypes: UndatedTypes
    /// On PostgreSQL, a new patient's export imported whole: its rows loaded into a table of the
    /// patient's own, decided and indexed when they are in (its route points too: `RecordWriter`).
    let bulk: BulkLoad?
    /// `finish` ran: the metrics are all in.
    private var finished = false
    /// The types another process (a push, an import beside this one) wrote rows of between two of
    /// this import's commits (see `lookBeside`): their hour summary is left to the rebuild from the rows.
    @exclusivity(unchecked) private var writtenBeside: Set<Int64> = []
    /// `PRAGMA data_version` at this import's last look: it changes when another connection commits
    /// (nil on PostgreSQL, which does not say: the import looks at every BEGIN).
    private var dataVersion: Int64?
    /// Rows up to this id were written before this import or looked at (see `lookBeside`).
    private var lookedUpTo: Int64 = 0
    @exclusivity(unchecked) private var countingType: (name: [UInt8], new: Int, already: Int)?

    /// The columns of `newRows`: the ids and dates, the value, more ids, the metadata, the flags.
    private static let rowColumns: [RowBatchColumn] = [.integer, .integer, .integer, .integer, .real, .integer, .integer, .integer,
                                                       .integer, .text, .integer, .integer, .integer, .integer, .integer, .integer]

    /// The tables of the names a metric's ids stand for, read together (`NameTable.Group`).
    private static let nameTables = ["metric_type", "source", "unit", "device", "source_version", "category_value"]

    private static let lastIDRead = "SELECT coalesce(max(id), 0) FROM metric"

    private static let alike = """
        type_id = ?1 AND start_date = ?2 AND end_date = ?3 AND source_id = ?4 AND value = ?5 AND unit_id = ?6 AND category_id = ?7
        """

    init(database: any StoreDatabase, runID: Int64, origin: ImportOrigin, transaction: ImportTransaction, denseCount: Int) throws {
        self.database = database
        self.runID = runID
        self.transaction = transaction
        self.origin = origin.isPushed ? 1 : 0
        rule = origin.isPushed ? try SupersedeRule(database: database) : nil
        // A document committed whole on PostgreSQL (a received batch of 1,000 metrics, a push) asks
        // these first, one after the other (the name tables at its first sample, the stored types'
        // states at its first new type, the latest starts at its first window): one round trip
        // instead of five. (A read not asked is dropped unread at the next statement.)
        if database.dialect == .postgres, origin.commit == .whole, !origin.loadsInBulk {
            try database.readAhead([Self.lastIDRead, NameTable.Group.reading(Self.nameTables.indices, of: Self.nameTables)]
                                   + [StoredSampleWindows.latestStoredStartsRead] + OnlineHourSummary.storedTypesReads)
        }
        storedBefore = try database.scalarInt(Self.lastIDRead) ?? 0
        bulk = try BulkLoad.begin(database: database, origin: origin, storedBefore: storedBefore)
        // A document committed whole (a push, a received batch) rebuilds its few hours before its
        // commit, from the rows: it keeps no spill.
        // A document's rows and hours go straight into the patient's partitions when the connection
        // may (`OwnerPartitions.straightCopyTargets`). An export's many chunks keep the statement,
        // sent while the next chunk is mapped; the copy is waited for.
        let straight = origin.commit == .whole && !origin.loadsInBulk && bulk == nil
            ? (database as? PostgresDatabase)?.straightPartitions : nil
        let windows = database.dialect == .postgres && bulk == nil ? try StoredSampleWindows(database: database) : nil
        self.windows = windows
        // The patient had no row: every hour is new.
        let storedNone = storedBefore == 0
        hourSummary = try OnlineHourSummary(
            database: database, denseCount: denseCount, bulk: bulk, spills: origin.commit == .inChunks,
            fresh: windows.flatMap { windows in
                straight.map { .init(latestStoredStart: { storedNone ? nil : try windows.latestStoredStart(of: $0) }, straightInto: $0.hour) }
            })
        let dialect = database.dialect
        insert = try database.prepare("""
            \(dialect.insertOrIgnore) INTO metric(type_id, start_date, end_date, source_id, value, unit_id, category_id, device_id,
                                         source_version_id, extra, import_id, created_at, is_repeat, summary, superseded, origin)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) \(dialect.ignoringConflicts)
            """)
        // The row's id, not its import: the identity index holds the id and the creation date, and a
        // lookup that stays in the index is a B-tree descent less (a re-import's lookups: 8,700
        // instructions a row with the table's row read, on the 48 MB generated export).
        findAlike = try database.prepare("SELECT id, created_at FROM metric WHERE \(Self.alike)")
        importOfRow = try database.prepare("SELECT import_id FROM metric WHERE id = ?")
        findUndated = try database.prepare("""
            SELECT id, import_id FROM metric WHERE \(Self.alike) AND created_at = \(StoreSchema.undated) LIMIT 1
            """)
        // The export's sample of a pushed row makes the row the export's: dated, and counted as the
        // export's (when a row with this creation date is also stored, nothing changes: either way
        // the sample is there; SQLite's `UPDATE OR IGNORE`, in words both engines read).
        fillCreationDate = try database.prepare("""
            UPDATE metric SET created_at = ?2, origin = 0, summary = 0, superseded = 0
            WHERE id = ?1 AND NOT EXISTS (
                SELECT 1 FROM metric same WHERE same.type_id = metric.type_id AND same.start_date = metric.start_date
                    AND same.end_date = metric.end_date AND same.source_id = metric.source_id AND same.value = metric.value
                    AND same.unit_id = metric.unit_id AND same.category_id = metric.category_id AND same.created_at = ?2)
            """)
        progress = try database.prepare("""
            UPDATE import_run SET new_count = ?, duplicate_count = ?, repeat_count = ?, written_twice_count = ? WHERE id = ?
            """)
        summaryStatements = try SummaryCounts.Statements(database)
        let columns = "type_id, start_date, end_date, source_id, value, unit_id, category_id, device_id, source_version_id, extra, import_id, created_at, is_repeat, summary, superseded, origin"
        // `WHERE true`: PostgreSQL's ON CONFLICT after a SELECT (SQLite's parser needs it there).
        let insertNew = """
            \(dialect.insertOrIgnore) INTO metric(\(columns))
            SELECT c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15 FROM {rows} WHERE true
            \(dialect.ignoringConflicts)
            """
        let names = columns.split(separator: ", ").map(String.init)
        if let partition = straight?.metric, let postgres = database as? PostgresDatabase {
            // A push's or a received batch's rows, a chunk or two.
            newRows = PostgresRowBatch(database: postgres, columns: Self.rowColumns, sql: insertNew, straightInto: (partition, names),
                                       rowsPerChunk: 8192)
        } else {
            newRows = try bulk?.rows(Self.rowColumns, columns: names, rowsPerChunk: 8192)
                ?? database.rowBatch(Self.rowColumns, sql: insertNew, rowsPerChunk: 8192)
        }
        undecidedRows = try bulk?.undecidedRows(Self.rowColumns, columns: columns.split(separator: ", ").map(String.init))
        cellRows = newRows as? CellRows
        nameTables = try NameTable.Group(database, tables: Self.nameTables)
        (types, sources, units, devices, versions, categories) = (nameTables.tables[0], nameTables.tables[1], nameTables.tables[2],
                                                                   nameTables.tables[3], nameTables.tables[4], nameTables.tables[5])
        if rule == nil { seenToMake = (true, origin.samples) }
        undatedTypes = UndatedTypes(database: database)
        dataVersion = try database.othersCommits()
        lookedUpTo = storedBefore
        transaction.afterBegin.append { [unowned self] in try lookBeside() }
        // A document committed whole begins no transaction after its commit: nothing to look beside
        // (its `max(id)` was a round trip of each received batch).
        let beginsAgain = origin.commit == .inChunks
        transaction.beforeCommit.append { [unowned self] in
            // A bulk load's table becomes the patient's partition before anything is committed,
            // even when its reader never said its metrics ended (an archive without export.xml).
            if bulk != nil && !finished { try finish() }
            try flushChunk()
            try writeCounts()
            if beginsAgain { lookedUpTo = try database.scalarInt("SELECT max(id) FROM metric") ?? lookedUpTo }
        }
        transaction.afterCommit.append { [unowned self] in
            committed = counts
            hourSummary.committed()
        }
    }

    // MARK: MetricSink

    func expect(metricBytes: Int64) {
        if seenToMake.wanted && seenToMake.samples == nil { seenToMake.samples = SeenSamples.samples(inDocumentOf: metricBytes) }
    }

    /// `seen`, made once it is wanted.
    @inline(__always)
    private func makeSeen() {
        guard seenToMake.wanted else { return }
        seen = SeenSamples(samples: seenToMake.samples)
        seenToMake.wanted = false
    }

    func write(_ metric: MappedMetric) throws {
        makeSeen()
        // The filter's word is brought in while the names are looked up (`SeenSamples.prefetch`).
        seen?.prefetch(start: metric.startDate, end: metric.endDate, value: metric.value)
        let typeID = try types.id(metric.type), sourceID = try sources.id(metric.sourceApp), unitID = try units.id(metric.unit)
        let keys = SampleKeys(type: typeID, source: sourceID, unit: unitID,
                              category: try metric.categoryValue.map { try categories.id($0) } ?? 0)
        let created = metric.creationDate ?? metric.creationDateText.flatMap(ExportDateParser.epochSeconds)
        let isNew = try add(metric, keys, created: created)
        if origin == 1 {
            countByType(metric.type, isNew: isNew)
            pushedTypes.insert(typeID)
        }
        try transaction.wrote(1)
    }

    /// Adds the sample unless it is there; true when it was added.
    private func add(_ metric: MappedMetric, _ keys: SampleKeys, created: Int64?) throws -> Bool {
        var isRepeat = false
        let maybeAdded = seen?.insert(type: keys.type, start: metric.startDate, end: metric.endDate, source: keys.source, value: metric.value,
                                      unit: keys.unit, category: keys.category) ?? true
        if bulk != nil || (!maybeAdded && storedBefore == 0) {
            // Into an empty store, a sample this import has not added is new, and no repeat; in a
            // bulk load, one it may have added is decided when the rows are in.
        } else {
            // One this import may have added is looked up with its rows in the table; one it has
            // not, among the rows stored before it (the chunk holds only this import's): a new
            // export into a store with rows goes in a chunk at a time too (13,500 instructions a
            // row one by one, 3,300 in a chunk).
            if let windows, try created == nil || !undatedTypes.contains(keys.type) {
                // On PostgreSQL: looked at among its day's rows, read at once (a dated sample that may
                // date an undated row goes the statements' way below).
                if try windows.needsChunkWritten(type: keys.type, start: metric.startDate) { try flushChunk() }
                switch try windows.alike(type: keys.type, start: metric.startDate, end: metric.endDate, source: keys.source,
                                         value: metric.value, unit: keys.unit, category: keys.category, created: created) {
                case .same(let importID):
                    countStored(importID: importID)
                    return false
                case .alike: isRepeat = true
                case .none: break
                }
            } else if let stored = try lookUp(keys, metric, created: created, maybeAdded: maybeAdded, isRepeat: &isRepeat) {
                countStored(importID: stored)
                return false
            }
        }
        // A summary's rule reads and changes stored rows: this push's are written first.
        if windows != nil && metric.isSummary { try flushChunk() }
        let superseded = try rule?.state(ofPushed: metric, type: keys.type, source: keys.source, category: keys.category,
                                         changed: { hourSummary.leave($0) }) ?? 0
        if seen != nil || (windows != nil && created == nil) {
            // An export's, or a push's on PostgreSQL, known new: into the chunk, written with the others.
            try addToChunk(keys, metric, created: created, isRepeat: isRepeat, undecided: bulk != nil && maybeAdded, superseded: superseded)
            windows?.add(type: keys.type, start: metric.startDate, end: metric.endDate, source: keys.source, value: metric.value,
                         unit: keys.unit, category: keys.category, created: created ?? StoreSchema.undated, importID: runID)
        } else {
            try flushChunk()
            try insertRow(keys, metric, created: created, isRepeat: isRepeat, superseded: superseded)
            windows?.wrote(type: keys.type, start: metric.startDate)
            guard database.changes > 0 else {
                // The identity index found it after all (only a store changed by another process since
                // this import began can get here): the sample is there.
                countStored(importID: 0)
                return false
            }
        }
        counts.new += 1
        let state: SummaryCounts.RowState = superseded != 0 ? .superseded : isRepeat ? .repeated : .counted
        switch state {
        case .repeated: counts.repeats += 1
        case .superseded: counts.superseded += 1
        case .counted:
            try hourSummary.add(typeID: keys.type, typeName: metric.type, unit: keys.unit, source: keys.source, start: metric.startDate,
                                end: metric.endDate, value: metric.value, rank: rank(keys.source, metric))
        }
        summary.add(type: keys.type, unit: keys.unit, source: keys.source, state, start: metric.startDate, end: metric.endDate)
        return true
    }

    /// The look at the store by statements: the import of the stored row that is the sample (nil when
    /// none is), and whether it is a repeat of one.
    private func lookUp(_ keys: SampleKeys, _ metric: MappedMetric, created: Int64?, maybeAdded: Bool, isRepeat: inout Bool) throws -> Int64? {
        if maybeAdded { try flushChunk() }
        if try created == nil || undatedTypes.contains(keys.type), let stored = try undatedOrAlikeRow(keys, metric, created: created) {
            // A dated sample dated an undated row: the windows read it again.
            if created != nil { windows?.forget() }
            return stored
        }
        guard let created else { return nil }
        switch try alikeRows(keys, metric, created: created) {
        case .same(let importID): return importID
        case .alike: isRepeat = true
        case .none: break
        }
        return nil
    }

    /// For a sample without a creation date: the import of a stored row alike to it. For a dated
    /// sample of a type with undated rows: the import of an alike undated row, which it dates.
    private func undatedOrAlikeRow(_ keys: SampleKeys, _ metric: MappedMetric, created: Int64?) throws -> Int64? {
        if created == nil {
            defer { findAlike.reset() }
            try bindAlike(findAlike, keys, metric)
            return try findAlike.step() ? try importID(ofRow: findAlike.int64(0)) : nil
        }
        defer { findUndated.reset() }
        try bindAlike(findUndated, keys, metric)
        guard try findUndated.step() else { return nil }
        try fillCreationDate.run([.int(findUndated.int64(0)), .int(created!)])
        // The row may count now (a superseded pushed row becomes the export's): its hours are rebuilt.
        hourSummary.leave(keys.type)
        return findUndated.int64(1)
    }

    private enum Alike { case none, alike, same(importID: Int64) }

    /// Whether stored rows are alike to a dated sample but for the creation date, and whether one
    /// has its creation date (then the sample is there).
    private func alikeRows(_ keys: SampleKeys, _ metric: MappedMetric, created: Int64) throws -> Alike {
        defer { findAlike.reset() }
        try bindAlike(findAlike, keys, metric)
        var found = Alike.none
        while try findAlike.step() {
            if findAlike.int64(1) == created { return .same(importID: try importID(ofRow: findAlike.int64(0))) }
            found = .alike
        }
        return found
    }

    /// The import that wrote row `id`: a row stored before this import began is another import's
    /// (0 here; only this import's id is told apart), a later one is read.
    private func importID(ofRow id: Int64) throws -> Int64 {
        guard id > storedBefore else { return 0 }
        defer { importOfRow.reset() }
        try importOfRow.bind(1, id)
        return try importOfRow.step() ? importOfRow.int64(0) : 0
    }

    /// A record whose sample is stored: before this import, or earlier in this input.
    private func countStored(importID: Int64) {
        if importID == runID { counts.writtenTwice += 1 } else { counts.already += 1 }
    }

    /// A sample's name-table ids: with its dates and value, its identity (but for the creation date).
    private struct SampleKeys { var type, source, unit, category: Int64 }

    private func bindAlike(_ statement: any StoreStatement, _ keys: SampleKeys, _ metric: MappedMetric) throws {
        try statement.bind(1, keys.type)
        try statement.bind(2, metric.startDate)
        try statement.bind(3, metric.endDate)
        try statement.bind(4, keys.source)
        try statement.bind(5, metric.value)
        try statement.bind(6, keys.unit)
        try statement.bind(7, keys.category)
    }

    /// A row known new, into the chunk (the metadata as `insertRow` writes it).
    private func addToChunk(_ keys: SampleKeys, _ metric: MappedMetric, created: Int64?, isRepeat: Bool, undecided: Bool = false,
                            superseded: Int64) throws {
        let repeatFlag = Int64(isRepeat ? 1 : 0)
        if undecided, let undecidedRows {
            try addToChunk(undecidedRows, keys, metric, created: created, repeatFlag: repeatFlag, superseded: superseded)
        } else if let cellRows { try addToChunk(cellRows, keys, metric, created: created, repeatFlag: repeatFlag, superseded: superseded) } else {
            try addToChunk(newRows, keys, metric, created: created, repeatFlag: repeatFlag, superseded: superseded)
        }
    }

    private func addToChunk<Rows: RowBatch>(_ newRows: Rows, _ keys: SampleKeys, _ metric: MappedMetric, created: Int64?,
                                            repeatFlag: Int64, superseded: Int64) throws {
        let (device, version, hasExtra) = try details(of: metric)
        if created == nil { undatedTypes.insert(keys.type) }
        newRows.add(keys.type)
        newRows.add(metric.startDate)
        newRows.add(metric.endDate)
        newRows.add(keys.source)
        newRows.add(metric.value)
        newRows.add(keys.unit)
        newRows.add(keys.category)
        newRows.add(device)
        newRows.add(version)
        if hasExtra { metadata.withBytes { newRows.add(bytes: $0) } } else { newRows.addNull() }
        newRows.add(runID)
        newRows.add(created ?? StoreSchema.undated)
        newRows.add(repeatFlag)
        newRows.add(Int64(metric.isSummary ? 1 : 0))
        newRows.add(superseded)
        newRows.add(origin)
        if let bulk { newRows.add(try bulk.nextID()) }
        try newRows.endRow()
    }

    /// Writes the chunk's rows (before a look at the store, and before each commit).
    private func flushChunk() throws {
        try newRows.flush()
        try undecidedRows?.flush()
        windows?.chunkWritten()
        let missed = newRows.notTaken - notTakenCounted
        guard missed > 0 else { return }
        // Never seen in a run (the filter and the write lock rule it out): said, not lost.
        notTakenCounted = newRows.notTaken
        counts.new -= missed
        counts.already += missed
        miscounted = true
    }

    private func insertRow(_ keys: SampleKeys, _ metric: MappedMetric, created: Int64?, isRepeat: Bool, superseded: Int64) throws {
        let (device, version, hasExtra) = try details(of: metric)
        if let version { try insert.bind(9, version) } else { try insert.bindNull(9) }
        if hasExtra { try metadata.withBytes { try insert.bind(10, bytes: $0) } } else { try insert.bindNull(10) }
        try bindAlike(insert, keys, metric)
        try insert.bind(8, device)
        try insert.bind(11, runID)
        try insert.bind(12, created ?? StoreSchema.undated)
        try insert.bind(13, Int64(isRepeat ? 1 : 0))
        try insert.bind(14, Int64(metric.isSummary ? 1 : 0))
        try insert.bind(15, superseded)
        try insert.bind(16, origin)
        // A dated sample later in this input may be this one: it must find it to fill in the date.
        if created == nil { undatedTypes.insert(keys.type) }
        try insert.step()
        insert.rewind()   // all 16 parameters are bound above, every time
    }

    /// A row's device and source version ids, and whether the rest of its metadata is left (then
    /// written as JSON into `metadata`). The mapper always puts `device` first and `sourceVersion`
    /// (when present) second.
    private func details(of metric: MappedMetric) throws -> (device: Int64, version: Int64?, hasExtra: Bool) {
        var rest = metric.metadata.dropFirst()
        var version: Int64?
        if let first = rest.first, first.key.equals("sourceVersion") {
            version = try versions.id(first.value)
            rest = rest.dropFirst()
        }
        if !rest.isEmpty {
            metadata.removeAll()
            MetricJSON.appendMembers(rest, to: &metadata)
        }
        return (try devices.id(metric.device), version, !rest.isEmpty)
    }

    private func rank(_ sourceID: Int64, _ metric: MappedMetric) throws -> Int64 {
        let deviceID = try devices.id(metric.device)
        let deviceRank = deviceRanks[deviceID] ?? SourceMerger<Void>.deviceRank(metric.device.string)
        deviceRanks[deviceID] = deviceRank
        return SourceMerger<Void>.rank(deviceRank: deviceRank, sourceID: sourceID)
    }

    /// Per type, what the push added and what was there: metrics come grouped by type.
    private func countByType(_ type: ByteText, isNew: Bool) {
        if let open = countingType, open.name.elementsEqual(type) {
            countingType = (open.name, open.new + (isNew ? 1 : 0), open.already + (isNew ? 0 : 1))
            return
        }
        flushTypeCount()
        countingType = (Array(type), isNew ? 1 : 0, isNew ? 0 : 1)
    }

    private func flushTypeCount() {
        guard let open = countingType else { return }
        let name = String(decoding: open.name, as: UTF8.self)
        let known = byType[name] ?? (0, 0)
        byType[name] = (known.new + open.new, known.already + open.already)
        countingType = nil
    }

    /// Right after each BEGIN: when another process committed since this import's last commit (the
    /// store is shared: `serve --store` takes pushes while an import runs), its rows (all with ids
    /// above this import's last commit) join what `seen` knows, so that a sample alike one of them
    /// is looked up in the store (and a pushed row without a creation date becomes the export's);
    /// the types they are of are rebuilt from the rows at the end. Without `seen` (a push) every
    /// sample is looked up anyway.
    private func lookBeside() throws {
        // What others wrote since the last commit is read again.
        windows?.forget()
        let version = try database.othersCommits()
        guard version == nil || version != dataVersion else { return }
        dataVersion = version
        // NOT INDEXED: the rowid range alone. With DISTINCT the planner read the whole identity
        // index (sorted by type) after every push: a push cost the import 160 ms.
        let rows = try database.prepare("""
            SELECT type_id, start_date, end_date, source_id, value, unit_id, category_id FROM metric \(database.dialect.notIndexed)
            WHERE id > ? AND import_id != ?
            """)
        try rows.bind([.int(lookedUpTo), .int(runID)])
        makeSeen()
        while try rows.step() {
            let typeID = rows.int64(0)
            _ = seen?.insert(type: typeID, start: rows.int64(1), end: rows.int64(2), source: rows.int64(3), value: rows.double(4),
                             unit: rows.int64(5), category: rows.int64(6))
            guard writtenBeside.insert(typeID).inserted else { continue }
            undatedTypes.insert(typeID)   // pushed rows have no creation date
            hourSummary.leave(typeID)
        }
    }

    /// In each commit: the summaries and the run's counts, with the rows they describe.
    private func writeCounts() throws {
        try summary.write(using: summaryStatements)
        try hourSummary.write()
        try progress.run([.int(Int64(counts.new)), .int(Int64(counts.already)), .int(Int64(counts.repeats)),
                          .int(Int64(counts.writtenTwice)), .int(runID)])
    }

    /// The metrics are all in: the hours counted here are written and their types marked current
    /// (in the open transaction, committed with the import's last rows), and the filter's memory
    /// goes back before the archive's other files are read (the import's peak RSS came there).
    func finish() throws {
        finished = true
        try flushChunk()
        if let bulk { try settle(bulk) }
        flushTypeCount()
        // The counts first: they widen the types' dirty hours, which the hour summary then marks
        // current for the types it counted (written at the commit, they left every type dirty, and
        // its last hours were rebuilt from the rows after it).
        try summary.write(using: summaryStatements)
        try hourSummary.finish()
        seen = nil
        seenToMake.wanted = false
    }

    /// A bulk load's rows are in: those decided otherwise than new move in the counts, and are taken
    /// out of their hours (or their types' hours rebuilt from the rows, when their values merge).
    private func settle(_ bulk: BulkLoad) throws {
        for row in try bulk.settle() {
            switch row.outcome {
            case .writtenTwice:
                counts.new -= 1
                counts.writtenTwice += 1
                summary.recount(type: row.type, unit: row.unit, source: row.source, as: nil)
            case .repeated:
                counts.repeats += 1
                summary.recount(type: row.type, unit: row.unit, source: row.source, as: .repeated)
            }
            if !hourSummary.uncount(type: row.type, unit: row.unit, start: row.start, value: row.value) { hourSummary.leave(row.type) }
        }
    }

    /// The types whose hours are counted from their spilled rows after the commit (`SpilledHours`),
    /// as of the store's version at the import's last BEGIN: no other connection can commit between
    /// it and the import's commit, which holds the write lock (read after the commit, a push let in
    /// right then would go unseen). None when a chunk's rows were not all inserted as counted
    /// (`miscounted`): the spill holds rows the store does not.
    var spilledHours: SpilledHours? {
        guard !miscounted, let dataVersion, let spilled = hourSummary.spilledHours else { return nil }
        return SpilledHours(spill: spilled.spill, types: spilled.types, asCommitted: dataVersion)
    }

    /// The input was damaged or the run was stopped: an export keeps every metric written so far.
    func abandon() throws {
        try flushChunk()
        flushTypeCount()
        seen = nil
        seenToMake.wanted = false
        try transaction.keepWritten()
    }

    /// The open transaction was rolled back: the counts go back to the last commit's.
    func rolledBack() {
        counts = committed
        summary.discard()
    }

    /// Pushed rows: the summaries this import's samples now fall in stop counting (in the open
    /// transaction); those of this import's own are counted with its superseded rows.
    func applyPushRule() throws {
        if miscounted { try CountedRows.recountAll(in: database) }
        guard let rule else { return }
        counts.superseded += try rule.coverSummaries(storedBefore: storedBefore)
        try CountedRows.refreshStaleRanges(in: database)
    }
}

/// The types of which the store holds samples without a creation date, read from the rows only
/// when a dated sample asks (a scan of the metric table: on PostgreSQL, 10 ms a batch of 1000 into a
/// store of 166,000 rows, most of a batch's time); an input whose samples are all undated (a push,
/// a received batch) never asks. SQLite reads them from an index of the undated rows; PostgreSQL,
/// where every received row would be in it, scans the patient's rows (`PostgresStoreSchema.leftOut`).
struct UndatedTypes {
    private let database: any StoreDatabase
    private var known: Set<Int64> = []
    private var read = false

    init(database: any StoreDatabase) { self.database = database }

    mutating func insert(_ type: Int64) { known.insert(type) }

    mutating func contains(_ type: Int64) throws -> Bool {
        if !read {
            let rows = try database.prepare("SELECT DISTINCT type_id FROM metric WHERE created_at = \(StoreSchema.undated)")
            while try rows.step() { known.insert(rows.int64(0)) }
            read = true
        }
        return known.contains(type)
    }
}
