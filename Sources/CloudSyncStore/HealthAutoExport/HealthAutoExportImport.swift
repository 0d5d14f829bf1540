import CloudSyncExport
import CloudSyncHealthAutoExport
import CloudSyncModel
import Foundation

/// How a Health Auto Export document came: a push with the app's headers, or a file.
public struct PushDetails: Sendable {
    public var via: String
    public var automationName, automationID, aggregation, period, sessionID: String?

    public init(via: String, automationName: String? = nil, automationID: String? = nil, aggregation: String? = nil,
                period: String? = nil, sessionID: String? = nil) {
        self.via = via
        self.automationName = automationName
        self.automationID = automationID
        self.aggregation = aggregation
        self.period = period
        self.sessionID = sessionID
    }

    public static let file = PushDetails(via: "file")
}

/// What importing one Health Auto Export document did.
public struct HealthAutoExportImportResult: Sendable {
    public var runID: Int64
    /// Samples added, and samples the store already had (from an earlier push, or the export).
    public var stored: Int
    public var already: Int
    /// Of the samples added, those kept but not counted (before the export's ExportDate, or a
    /// summary whose interval has individual samples).
    public var superseded: Int
    public var routes: (new: Int, already: Int)
    /// Per type (HealthKit's identifier, or the app's name for a name with no mapping): samples
    /// added, and samples already there.
    public var byType: [String: (new: Int, already: Int)] = [:]
    /// Per name: points read, samples written; what was not kept; names with no mapping.
    public var report: HealthAutoExportReport

    public init(runID: Int64, stored: Int, already: Int, superseded: Int, routes: (new: Int, already: Int),
                byType: [String: (new: Int, already: Int)], report: HealthAutoExportReport) {
        self.runID = runID
        self.stored = stored
        self.already = already
        self.superseded = superseded
        self.routes = routes
        self.byType = byType
        self.report = report
    }
}

extension StagingStore {
    /// Imports one Health Auto Export document (a push's body or a file) in one transaction: all of
    /// it, or (on any problem) none of it. Rows get their origin and the supersede rule is applied
    /// in the same transaction (docs/store.md).
    @discardableResult
    public func importHealthAutoExport(_ document: HealthAutoExportDocument, options: HealthAutoExportReader.Options = .init(),
                                       details: PushDetails = .file) throws -> HealthAutoExportImportResult {
        try HealthAutoExportSession(database: database, path: path, configuration: configuration).run(document, options: options, details: details)
    }
}

/// One Health Auto Export import: the export import's sinks (`StoreImportSink`, `StoreRecordSink`)
/// fed by `HealthAutoExportReader` instead of the archive, in a single transaction.
struct HealthAutoExportSession: StoreAccess {
    let database: SQLiteDatabase
    let path: String
    let configuration: StagingStore.Configuration

    func run(_ document: HealthAutoExportDocument, options: HealthAutoExportReader.Options,
             details: PushDetails) throws -> HealthAutoExportImportResult {
        try storeErrors { try database.execute("BEGIN IMMEDIATE") }
        do {
            let result = try write(document, options: options, details: details)
            // After the commit, as an export import does: the hour summary of the types changed.
            try storeErrors {
                try ImportSession(database: database, path: path, configuration: configuration).refreshHourSummary()
                try SupersedeRule(database: database).leaveHourSummaryOfSupersededTypes()
            }
            return result
        } catch {
            if database.isInTransaction { try? database.execute("ROLLBACK") }
            if let sqlite = error as? SQLiteError { throw StoreError.sqlite(sqlite) }
            throw error
        }
    }

    private func write(_ document: HealthAutoExportDocument, options: HealthAutoExportReader.Options,
                       details: PushDetails) throws -> HealthAutoExportImportResult {
        try database.prepare("""
            INSERT INTO import_run(input, input_size, started_at, outcome, source_kind) VALUES (?, ?, ?, 'running', 'health-auto-export')
            """).run([.text(document.name), .int(Int64(document.count)), .int(Self.now)])
        let runID = database.lastInsertRowID
        let storedBefore = try database.scalarInt("SELECT coalesce(max(id), 0) FROM metric") ?? 0
        // One transaction for the whole document: the sink never commits on its own.
        let metrics = try StoreImportSink(database: database, runID: runID, commitEvery: .max,
                                          denseCount: configuration.hourSummaryDenseCount)
        let records = StoreRecordSink(database: database, runID: runID, kinds: configuration.kinds, commitEvery: .max)
        let rule = SupersedeRule(database: database)
        let exportDate = try rule.exportDate()
        let rows = PushedRows(inner: metrics, database: database, exportDate: exportDate)
        let read = try HealthAutoExportReader(document: document, options: options, metrics: rows, records: records)
            .run(finishingSinks: false)
        // Before the sink's commit, in its transaction: what counts, the run's outcome, the push.
        let superseded = try rule.apply(after: storedBefore, rows: rows, exportDate: exportDate)
        try database.prepare("UPDATE import_run SET ended_at = ?, outcome = 'ok' WHERE id = ?").run([.int(Self.now), .int(runID)])
        try records.saveCounts()
        let notKept = read.notKept.values.reduce(0) { $0 + $1.count }
        let lastID = try database.scalarInt("SELECT coalesce(max(id), 0) FROM metric") ?? 0
        let added: [SQLiteValue] = lastID > storedBefore ? [.int(storedBefore + 1), .int(lastID)] : [.null, .null]
        try database.prepare("""
            INSERT INTO hae_push(run_id, received_at, via, automation_name, automation_id, aggregation, period, session_id,
                                 first_metric_id, last_metric_id, stored, already, not_kept) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).run([.int(runID), .int(Self.now), .text(details.via), Self.optional(details.automationName), Self.optional(details.automationID),
                      Self.optional(details.aggregation), Self.optional(details.period), Self.optional(details.sessionID)] + added
                     + [.int(Int64(metrics.newCount)), .int(Int64(metrics.duplicateCount)), .int(Int64(notKept))])
        try metrics.finish()   // the counts of the run, and the commit
        let routes = records.imported[RouteKind.name] ?? .init()
        return HealthAutoExportImportResult(runID: runID, stored: metrics.newCount, already: metrics.duplicateCount, superseded: superseded,
                                            routes: (routes.new, routes.already), byType: rows.byType, report: read)
    }

    private static func optional(_ text: String?) -> SQLiteValue { text.map { .text($0) } ?? .null }
}
