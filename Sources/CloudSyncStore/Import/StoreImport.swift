public import CloudSyncModel
import Foundation

/// What one import added.
public struct StoreImportResult: Sendable {
    public var runID: Int64
    /// Rows added; among them repeats (alike a stored sample but for the creation date) and
    /// superseded rows (pushed where another source counts): kept, not counted.
    public var new: Int
    public var repeats: Int
    public var superseded: Int
    /// Samples the store already had.
    public var already: Int
    /// Records the input itself wrote twice (same sample, same creation date): stored once.
    public var writtenTwice: Int
    /// Records of each kind (by `RecordKind.name`): added, and already in the store.
    public var records: [String: (new: Int, already: Int)]
    /// Per type, for a pushed document: rows added and rows already there.
    public var byType: [String: (new: Int, already: Int)]
}

extension StagingStore {
    /// The store's one door for records: an import session of any reader. Every reader (an export,
    /// a Health Auto Export push or file, a reader to come) writes through it, and what counts is
    /// decided here, as each row is written (docs/store.md).
    public func beginImport(_ origin: ImportOrigin) throws -> StoreImport {
        try storeErrors { try StoreImport(database: database, origin: origin, configuration: configuration) }
    }
}

/// One import: a run of `import_run`, the sinks a reader writes into (`sinks`: metrics, records,
/// and the reader's facts), the commits, and at the end what the store says of it (the run's
/// outcome, the export's facts, the push's ledger row) and the summaries brought up to date.
///
/// An export's import commits in chunks (`ImportTransaction`), and its run is recorded first so that
/// a damaged or stopped export is recorded as such with what it committed. A document of the phone
/// is one transaction, its run included: a refused document leaves nothing.
public final class StoreImport: StoreAccess {
    public let origin: ImportOrigin
    public let runID: Int64
    let database: any StoreDatabase
    public var path: String { database.path }
    let configuration: StagingStore.Configuration
    private let transaction: ImportTransaction
    private let metrics: MetricWriter
    private let records: RecordWriter
    private var facts: InputFacts?

    /// Where a reader writes: give it to `ReaderRunner.run(_:into:)`.
    public var sinks: ReaderSinks {
        ReaderSinks(metrics: metrics, records: records, facts: { [unowned self] in facts = $0 })
    }

    init(database: any StoreDatabase, origin: ImportOrigin, configuration: StagingStore.Configuration) throws {
        self.database = database
        self.origin = origin
        self.configuration = configuration
        transaction = ImportTransaction(database: database, policy: origin.commit == .whole ? .whole : .every(configuration.importCommitEvery))
        try BulkLoad.makeMissingPartitions(database: database, origin: origin)
        let insertRun = { () throws -> Int64 in
            let insert = try database.prepare("""
                INSERT INTO import_run(input, input_size, started_at, outcome, source_kind) VALUES (?, ?, ?, 'running', ?) RETURNING id
                """)
            try insert.bind([.text(origin.input), origin.size.map { .int($0) } ?? .null, .int(Self.now), .text(origin.kindName)])
            defer { insert.reset() }
            _ = try insert.step()
            return insert.int64(0)
        }
        // A whole import's run is in its transaction: one that fails leaves no trace.
        if origin.commit == .whole {
            try transaction.begin()
            runID = try insertRun()
        } else {
            runID = try insertRun()
            try transaction.begin()
        }
        do {
            metrics = try MetricWriter(database: database, runID: runID, origin: origin, transaction: transaction,
                                       denseCount: configuration.hourSummaryDenseCount)
            records = RecordWriter(database: database, runID: runID, kinds: configuration.kinds, transaction: transaction, bulk: metrics.bulk)
        } catch {
            transaction.rollBack()
            throw error
        }
        if origin.commit == .inChunks { database.writersRoom?.holdImporting() }
    }

    /// The input was read completely: the run is recorded with its outcome and facts, the last rows
    /// committed, then the summaries brought up to date. `invalid` and `filtered` are the reader's
    /// counts of records it skipped.
    @discardableResult
    public func complete(invalid: Int = 0, filtered: Int = 0) throws -> StoreImportResult {
        try storeErrors {
            var summariesCurrent = false
            do {
                try metrics.applyPushRule()
                try database.prepare("""
                    UPDATE import_run SET ended_at = ?, outcome = 'ok', invalid_count = ?, filtered_count = ?, export_date = ?,
                        export_version = ?, locale = ?
                    WHERE id = ?
                    """).run([.int(Self.now), .int(Int64(invalid)), .int(Int64(filtered)), facts?.exportDate.map { .text($0) } ?? .null,
                              facts?.exportVersion.map { .int(Int64($0)) } ?? .null, facts?.locale.map { .text($0) } ?? .null, .int(runID)])
                if let facts { try keepExportFacts(facts) }
                if let details = origin.pushDetails {
                    try PushLedger(database: database).record(runID: runID, details: details, firstRow: metrics.storedBefore + 1,
                                                              counts: metrics.counts, notKept: invalid)
                }
                // A whole import's few dirty hours are rebuilt in its transaction, after its counts.
                if origin.commit == .whole {
                    let pushed = origin.isPushed ? metrics.pushedTypes : nil
                    transaction.beforeCommit.append { [database, configuration] in
                        summariesCurrent = try HourSummaryBuilder.refreshBeforeCommit(
                            database, denseCount: configuration.hourSummaryDenseCount, pushed: pushed)
                    }
                }
                try transaction.commit()
            } catch {
                discard()
                throw error
            }
            // After the rows are committed: a kill here leaves the summaries dirty, not wrong.
            if !summariesCurrent {
                try HourSummaryBuilder.refresh(database, denseCount: configuration.hourSummaryDenseCount,
                                               pushed: origin.isPushed ? metrics.pushedTypes : nil, spilled: metrics.spilledHours)
            }
            // Only an input with a date of its own (an export) can move the store's latest export
            // date: a pushed row before the date already there was marked as it came (`SupersedeRule`).
            // A received batch has none, and its look for pushed rows was a round trip of each.
            // (An export killed between its commit and this is applied by its import again.)
            if origin.counting == .truthUpToItsDate, facts?.exportDate != nil, try SupersedeRule.applyExportDate(in: database) {
                try HourSummaryBuilder.refresh(database, denseCount: configuration.hourSummaryDenseCount)
            }
            return result
        }
    }

    /// The source stopped (damage, a stop, a refused document, the store's own failure): the open
    /// transaction is rolled back. An export's run is recorded as failed or interrupted with what it
    /// committed; a document leaves nothing. Returns the error to report: the store's own failures
    /// as a `StoreError` that names the store (a full disk is said as such).
    @discardableResult
    public func fail(_ error: any Error) -> any Error {
        discard()
        let reported: any Error = (error as? SQLiteError).map { StoreError.sqlite($0) } ?? error
        guard origin.commit == .inChunks else { return reported }
        let outcome: String
        if case ConversionError.interrupted = error { outcome = "interrupted" } else { outcome = "failed" }
        let counts = metrics.committed
        try? database.transaction {
            try database.prepare("""
                UPDATE import_run SET ended_at = ?, outcome = ?, reason = ?, new_count = ?, duplicate_count = ?, repeat_count = ?,
                    written_twice_count = ?
                WHERE id = ?
                """).run([.int(Self.now), .text(outcome), .text(Self.describe(error)), .int(Int64(counts.new)),
                          .int(Int64(counts.already)), .int(Int64(counts.repeats)), .int(Int64(counts.writtenTwice)), .int(runID)])
        }
        return reported
    }

    deinit {
        if origin.commit == .inChunks { database.writersRoom?.releaseImporting() }
    }

    private func discard() {
        transaction.rollBack()
        metrics.rolledBack()
        records.rolledBack()
    }

    /// What the import did so far.
    public var result: StoreImportResult {
        let counts = metrics.counts
        return StoreImportResult(runID: runID, new: counts.new, repeats: counts.repeats, superseded: counts.superseded,
                                 already: counts.already, writtenTwice: counts.writtenTwice,
                                 records: records.imported.mapValues { ($0.new, $0.already) }, byType: metrics.byType)
    }

    /// The facts of the latest export: an older export imported after a newer one (to fill a gap)
    /// does not make the store look older than it is.
    private func keepExportFacts(_ facts: InputFacts) throws {
        if let stored = try database.scalarText("SELECT value FROM export_fact WHERE key = 'exportDate'"),
           let storedAt = InputFacts(exportDate: stored).exportInstant, let importedAt = facts.exportInstant, importedAt < storedAt {
            return
        }
        var kept: [(String, String)] = []
        if let date = facts.exportDate { kept.append(("exportDate", date)) }
        if let version = facts.exportVersion { kept.append(("exportVersion", String(version))) }
        if let locale = facts.locale { kept.append(("locale", locale)) }
        if let profile = facts.profile { kept.append(("me", Self.jsonObject(profile))) }
        let upsert = try database.prepare("""
            INSERT INTO export_fact(key, value) VALUES (?, ?)
            ON CONFLICT(\(database.dialect.conflictTarget("key"))) DO UPDATE SET value = excluded.value
            """)
        for (key, value) in kept { try upsert.run([.text(key), .text(value)]) }
    }

    /// `{"key":"value",…}` with its keys sorted.
    private static func jsonObject(_ pairs: [String: String]) -> String {
        var out = ByteBuffer(capacity: 256)
        out.append(UInt8(ascii: "{"))
        for (index, key) in pairs.keys.sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            RecordJSON.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            RecordJSON.appendString(pairs[key], to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out.withBytes { $0.string }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? ConversionError { return error.description }
        if let error = error as? StoreError { return error.description }
        if let error = error as? SQLiteError { return error.description }
        return "\(error)"
    }
}

@available(*, unavailable)
extension StoreImport: Sendable {}
