public import CloudSyncExport
public import CloudSyncHealthAutoExport
public import CloudSyncModel
public import CloudSyncStore

/// What importing an export did: what the store added, and what the archive held.
public struct ExportImportResult: Sendable {
    public var stored: StoreImportResult
    public var archive: ArchiveConverter.Report
    public var conversion: ConversionReport { archive.conversion }
}

/// What importing one Health Auto Export document did: what the store added, and what was read.
public struct DocumentImportResult: Sendable {
    public var stored: StoreImportResult
    public var report: HealthAutoExportReport
}

/// The readers run into the store's one door: a reader (`ReaderRunner`) writes into an import
/// session (`StagingStore.beginImport`), which the store completes, or records as failed when the
/// reader stops. `import`, `serve --store` and the tests import this way; the store itself knows no
/// reader.
extension StagingStore {
    /// Imports an export (zip, XML or `-`) and the records of every kind the store keeps: what is new
    /// is added, what the store has is counted as already there. On damaged input everything before
    /// the damage is kept, the run is recorded as failed with the reason, and the error is rethrown.
    @discardableResult
    public func importExport(_ input: String, filter: MetricFilter = .all, control: RunControl = RunControl()) throws -> ExportImportResult {
        try importExport(ExportInput(path: input), origin: .export(input: input == "-" ? "standard input" : input, size: ExportInputs.inputSize(input)),
                         filter: filter, control: control)
    }

    /// Imports an export from any input (a stream included) as `origin` says: `ImportOrigin.export`, or
    /// `.uploadedExport` for an export that arrives whole or not at all.
    @discardableResult
    public func importExport(_ input: ExportInput, origin: ImportOrigin, filter: MetricFilter = .all,
                             control: RunControl = RunControl()) throws -> ExportImportResult {
        let kinds = configuration.kinds.compactMap { $0 as? any ArchiveKind.Type }
        let source = ArchiveConverter(input: input, filter: filter, kinds: kinds)
        let session = try beginImport(origin)
        do {
            let archive = try ReaderRunner.run(source, into: session.sinks, control: control)
            // A stop asked for once the input was read (an upload whose connection dropped right at
            // its end) still stops: an import made whole commits nothing.
            if control.shouldStop() { throw ConversionError.interrupted }
            let stored = try session.complete(invalid: archive.conversion.invalidCount, filtered: archive.conversion.filteredOut)
            return ExportImportResult(stored: stored, archive: archive)
        } catch {
            throw session.fail(error)
        }
    }

    /// Imports one Health Auto Export document (a push's body or a file) in one transaction: all of
    /// it, or (on any problem) none of it.
    @discardableResult
    public func importDocument(_ document: HealthAutoExportDocument, options: HealthAutoExportReader.Options = .init(),
                               details: PushDetails = .file) throws -> DocumentImportResult {
        let source = HealthAutoExportReader(document: document, options: options)
        let session = try beginImport(ImportOrigin.healthAutoExport(input: document.name, size: Int64(document.count), details: details))
        do {
            let report = try ReaderRunner.run(source, into: session.sinks)
            let notKept = report.notKept.values.reduce(0) { $0 + $1.count }
            return DocumentImportResult(stored: try session.complete(invalid: notKept), report: report)
        } catch {
            throw session.fail(error)
        }
    }
}

extension StagingStore {
    /// Imports samples received already normalised (a CloudCare batch, Flō samples, steps: see
    /// `HealthMetricsReader`) in one transaction: all of them, or (on any problem) none.
    @discardableResult
    public func importMetrics(_ metrics: [HealthMetric], origin: ImportOrigin) throws -> StoreImportResult {
        try importMetrics(ReceivedMetrics(metrics), origin: origin)
    }

    /// The same, for samples already read as bytes (a CloudCare body).
    @discardableResult
    public func importMetrics(_ metrics: ReceivedMetrics, origin: ImportOrigin) throws -> StoreImportResult {
        var origin = origin
        origin.samples = metrics.count
        let session = try beginImport(origin)
        do {
            try ReaderRunner.run(HealthMetricsReader(metrics, name: origin.input), into: session.sinks)
            return try session.complete()
        } catch {
            throw session.fail(error)
        }
    }
}

/// How each reader's rows count and commit (`ImportOrigin`), said by the reader, not known by the store.
extension ImportOrigin {
    /// An Apple Health export: the truth up to its date, committed in chunks.
    public static func export(input: String, size: Int64?) -> ImportOrigin {
        ImportOrigin(input: input, size: size, counting: .truthUpToItsDate, commit: .inChunks, kindName: "export")
    }

    /// An export sent to the server (`POST /api/v1/exports`): the truth up to its date like any
    /// export, but all at once or nothing, so that a connection that drops half-way leaves nothing.
    public static func uploadedExport(input: String) -> ImportOrigin {
        var origin = ImportOrigin(input: input, size: nil, counting: .truthUpToItsDate, commit: .whole, kindName: "export")
        origin.loadsInBulk = true
        return origin
    }

    /// A Health Auto Export document (a push's body or a file): counted where no export counts, all
    /// at once, listed in the push ledger with how it came.
    public static func healthAutoExport(input: String, size: Int64?, details: PushDetails) -> ImportOrigin {
        ImportOrigin(input: input, size: size, counting: .whereNoTruthCounts, commit: .whole, kindName: "health-auto-export",
                     pushDetails: details)
    }

    /// Samples sent by an uploader as HealthKit holds them (`kindName`: `cloudcare`, `flo`, `steps`):
    /// individual samples, not the phone's re-aggregated points, so they count as an export's samples
    /// do (a pushed row of their moment is already there or stops counting at the next export), all
    /// at once. They have no date of their own to be the truth up to: the store's latest export date
    /// is not applied again (it would change nothing).
    public static func receivedSamples(input: String, kindName: String) -> ImportOrigin {
        ImportOrigin(input: input, size: nil, counting: .truthUpToItsDate, commit: .whole, kindName: kindName)
    }
}
