/// A reader of records: it reads its input and hands every metric and record to the sinks it is
/// given, and tells what it learns of itself (`InputFacts`). The export archive is one
/// (`ArchiveConverter`, and `ExportConverter` for export.xml's metrics alone, in CloudSyncExport);
/// Health Auto Export's JSON is another (`HealthAutoExportReader`, in CloudSyncHealthAutoExport). A
/// new reader is one conformance, not a second pipeline: the sinks (JSON Lines, CSV, CloudCare
/// batches, the store's import session) take what any reader gives, and `ReaderRunner` runs any
/// reader into any sinks. It is in the model, which has no C dependency, so that a reader needs
/// neither libxml2 nor the archive, and a sink needs no reader.
public protocol RecordReader: AnyObject {
    associatedtype Report
    /// The input as messages name it.
    var name: String { get }
    /// Reads the whole input into `sinks`. Every metric goes to `sinks.metrics`, which the reader
    /// finishes when its metrics are complete, or abandons when the input ends in damage or a stop
    /// (after every metric before the damage); every record goes to `sinks.records`; the facts go to
    /// `sinks.facts` once known, before the method returns. `sinks.records` is finished by the runner.
    func read(into sinks: ReaderSinks, control: RunControl) throws -> Report
}

/// Where a reader's output goes.
public struct ReaderSinks {
    public var metrics: any MetricSink
    public var records: any RecordSink
    /// Told what the reader learnt of itself (an export's date, version, locale and profile).
    public var facts: ((InputFacts) throws -> Void)?

    public init(metrics: any MetricSink, records: any RecordSink, facts: ((InputFacts) throws -> Void)? = nil) {
        self.metrics = metrics
        self.records = records
        self.facts = facts
    }
}

/// What a reader says of itself besides its records, as typed fields: never carried as metadata
/// strings. An export has them all; Health Auto Export's JSON has none.
public struct InputFacts: Sendable, Equatable {
    /// export.xml's `ExportDate` as written (`2024-11-02 12:00:00 +0100`).
    public var exportDate: String?
    public var exportVersion: Int?
    public var locale: String?
    /// `<Me>`'s characteristics (date of birth, biological sex, blood type…) by attribute name.
    public var profile: [String: String]?

    public init(exportDate: String? = nil, exportVersion: Int? = nil, locale: String? = nil, profile: [String: String]? = nil) {
        self.exportDate = exportDate
        self.exportVersion = exportVersion
        self.locale = locale
        self.profile = profile
    }

    /// `exportDate` as seconds since 1970.
    public var exportInstant: Int64? {
        guard var text = exportDate else { return nil }
        return text.withUTF8 { ExportDateParser.epochSeconds($0) }
    }
}

/// How a run is watched and stopped: progress about twice a second, and a stop (Ctrl-C) checked
/// between elements.
public struct RunControl: Sendable {
    public var onProgress: (@Sendable (ReaderProgress) -> Void)?
    public var shouldStop: @Sendable () -> Bool

    public init(onProgress: (@Sendable (ReaderProgress) -> Void)? = nil, shouldStop: @escaping @Sendable () -> Bool = { false }) {
        self.onProgress = onProgress
        self.shouldStop = shouldStop
    }
}

/// How far a run is.
public struct ReaderProgress: Sendable {
    public var metrics: Int
    /// Top-level elements read so far.
    public var elements: Int
    public var seconds: Double
    /// Input bytes read, and the input's size when it is known.
    public var bytes: Int64
    public var totalBytes: Int64?

    public init(metrics: Int, elements: Int, seconds: Double, bytes: Int64, totalBytes: Int64?) {
        self.metrics = metrics
        self.elements = elements
        self.seconds = seconds
        self.bytes = bytes
        self.totalBytes = totalBytes
    }
}

/// The one way every command runs a reader: `convert` and `inspect` into writers and counters,
/// `import` and `serve` into the store's import session. It reads the reader into the sinks and
/// finishes the records' sink once the input was read completely; on an error, the reader has
/// abandoned the metrics' sink already and the caller decides what becomes of what the sinks hold
/// (a file keeps its complete lines, the store rolls back or keeps its last commit).
public enum ReaderRunner {
    @discardableResult
    public static func run<Source: RecordReader>(_ source: Source, into sinks: ReaderSinks,
                                                 control: RunControl = RunControl()) throws -> Source.Report {
        let report = try source.read(into: sinks, control: control)
        try sinks.records.finish()
        return report
    }
}
