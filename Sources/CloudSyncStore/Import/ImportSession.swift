import CloudSyncArchive
import CloudSyncExport
import CloudSyncModel
import Foundation

/// What one `import` did.
public struct ImportResult: Sendable {
    public var runID: Int64
    public var newCount: Int
    public var duplicateCount: Int
    /// Of the new metrics, those that repeat a stored sample but for the creation date (kept, counted once).
    public var repeatCount = 0
    /// Records the export wrote twice (same sample, same creation date): stored once.
    public var writtenTwiceCount = 0
    public var conversion: ConversionReport
    /// Records of each kind (by `RecordKind.name`): added, and already in the store.
    public var records: [String: (new: Int, already: Int)] = [:]
    /// The whole archive: entries by kind, damaged entries (skipped), unrecognised ones.
    public var archive: ArchiveConverter.Report
}

extension StagingStore {
    /// Imports an export (zip, XML or `-`): new metrics are added, ones already in the store are
    /// counted as duplicates. The run is recorded with its outcome; on damaged input everything
    /// before the damage is kept, the run is marked failed with the reason, and the error is rethrown.
    @discardableResult
    public func importExport(_ input: String, filter: MetricFilter = .all,
                             configure: (ArchiveConverter) -> Void = { _ in }) throws -> ImportResult {
        try ImportSession(database: database, path: path, configuration: configuration).run(input, filter: filter, configure: configure)
    }
}

/// One import: the run's row in `import_run`, the statements of the write (the metrics' sink with
/// its identity, repeat and summary statements; the records' sink of every kind), the commits, and
/// the hour summary brought up to date after them.
struct ImportSession: StoreAccess {
    let database: SQLiteDatabase
    let path: String
    let configuration: StagingStore.Configuration

    func run(_ input: String, filter: MetricFilter, configure: (ArchiveConverter) -> Void) throws -> ImportResult {
        let inputName = input == "-" ? "standard input" : input
        let size = FileKind.size(path: ExportSources.seekablePath(input))
        let runID: Int64 = try storeErrors {
            try database.prepare("INSERT INTO import_run(input, input_size, started_at, outcome) VALUES (?, ?, ?, 'running')")
                .run([.text(inputName), size.map { .int($0) } ?? .null, .int(Self.now)])
            return database.lastInsertRowID
        }
        let sink = try storeErrors { try StoreImportSink(database: database, runID: runID, commitEvery: configuration.importCommitEvery,
                                                              denseCount: configuration.hourSummaryDenseCount) }
        let records = StoreRecordSink(database: database, runID: runID, kinds: configuration.kinds)
        try storeErrors { try sink.begin() }
        // The whole archive: export.xml's metrics, then the records of every kind the store keeps,
        // in crash-safe transactions.
        let kinds = configuration.kinds.compactMap { $0 as? any ArchiveKind.Type }
        let converter = ArchiveConverter(input: input, filter: filter, metrics: sink, records: records, kinds: kinds)
        converter.observer = sink
        configure(converter)
        let archive: ArchiveConverter.Report
        do {
            archive = try converter.run()
        } catch {
            if database.isInTransaction {
                try? database.execute("ROLLBACK")
                sink.rolledBack()   // the run's counts are those of its last commit
            }
            let outcome: String
            if case ConversionError.interrupted = error { outcome = "interrupted" } else { outcome = "failed" }
            try? finishRun(runID, outcome: outcome, reason: Self.describe(error), sink: sink, records: records,
                           report: converter.currentReport.conversion)
            if let sqlite = error as? SQLiteError { throw StoreError.sqlite(sqlite) }
            throw error
        }
        try storeErrors { try finishRun(runID, outcome: "ok", reason: nil, sink: sink, records: records, report: archive.conversion) }
        // The types the import could not count as it went (StagingStore+HourSummary). After the
        // run's rows are committed: a kill here leaves the summary dirty, not wrong.
        try storeErrors { try refreshHourSummary() }
        return ImportResult(runID: runID, newCount: sink.newCount, duplicateCount: sink.duplicateCount, repeatCount: sink.repeatCount,
                            writtenTwiceCount: sink.writtenTwiceCount, conversion: archive.conversion,
                            records: records.imported.mapValues { ($0.new, $0.already) }, archive: archive)
    }

    private func finishRun(_ runID: Int64, outcome: String, reason: String?, sink: StoreImportSink, records: StoreRecordSink,
                           report: ConversionReport) throws {
        try database.transaction {
            try database.prepare("""
                UPDATE import_run SET ended_at = ?, outcome = ?, reason = ?, new_count = ?, duplicate_count = ?, repeat_count = ?, written_twice_count = ?,
                    invalid_count = ?, filtered_count = ?, export_date = ?, export_version = ?, locale = ?
                WHERE id = ?
                """).run([.int(Self.now), .text(outcome), reason.map { .text($0) } ?? .null,
                          .int(Int64(sink.newCount)), .int(Int64(sink.duplicateCount)), .int(Int64(sink.repeatCount)), .int(Int64(sink.writtenTwiceCount)),
                          .int(Int64(report.invalidCount)), .int(Int64(report.filteredOut)),
                          report.exportDate.map { .text($0) } ?? .null,
                          report.exportVersion.map { .int(Int64($0)) } ?? .null,
                          report.locale.map { .text($0) } ?? .null, .int(runID)])
            guard outcome == "ok" else { return }
            try records.saveCounts()
            // The facts of the latest export: an older export imported after a newer one (to fill a
            // gap) does not make the store look older than it is.
            if let stored = try database.scalarText("SELECT value FROM export_fact WHERE key = 'exportDate'"),
               let storedAt = Self.instant(stored), let importedAt = report.exportDate.flatMap(Self.instant), importedAt < storedAt {
                return
            }
            var facts: [(String, String)] = []
            if let date = report.exportDate { facts.append(("exportDate", date)) }
            if let version = report.exportVersion { facts.append(("exportVersion", String(version))) }
            if let locale = report.locale { facts.append(("locale", locale)) }
            if let me = sink.me, let json = try? JSONSerialization.data(withJSONObject: me, options: [.sortedKeys]) {
                facts.append(("me", String(decoding: json, as: UTF8.self)))
            }
            let upsert = try database.prepare("INSERT OR REPLACE INTO export_fact(key, value) VALUES (?, ?)")
            for (key, value) in facts { try upsert.run([.text(key), .text(value)]) }
        }
    }

    /// An export date as written (`2024-11-02 12:00:00 +0100`), as seconds since 1970.
    static func instant(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { ExportDateParser.epochSeconds($0) }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? ConversionError { return error.description }
        if let error = error as? StoreError { return error.description }
        if let error = error as? SQLiteError { return error.description }
        return "\(error)"
    }

    /// Rebuilds the dirty hours of every type from the rows.
    func refreshHourSummary() throws {
        let builder = HourSummaryBuilder(database: database, denseCount: configuration.hourSummaryDenseCount)
        for type in try builder.dirtyTypes() {
            try database.transaction { try HourSummaryBuilder.store(try builder.hours(of: type), in: database) }
        }
        // Types without a summary (small or sparse) need none.
        try database.execute("UPDATE metric_hour_state SET dirty_from = NULL, dirty_to = NULL WHERE summarised < 0 AND dirty_from IS NOT NULL")
    }
}
