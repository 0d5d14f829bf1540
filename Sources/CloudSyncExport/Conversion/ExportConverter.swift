import CloudSyncArchive
public import CloudSyncModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Streams one export through the whole chain: source (file, zip, stdin) → reader thread
/// (inflate, DTD removal, control-character filter) → libxml2 SAX → mapping → filter → sink.
/// As a `RecordReader` it gives export.xml's metrics alone (the fast path of `convert`);
/// `ArchiveConverter` gives the whole archive.
public final class ExportConverter: ExportElementConsumer, RecordReader {
    private let input: ExportInput
    private let filter: MetricFilter
    /// Set by `read(into:control:)`; written on the mapping thread.
    @exclusivity(unchecked) private var sink: any MetricSink = DiscardingSink()
    private let mapper = MetricMapper()
    @exclusivity(unchecked) private var typeFilter = TypeFilterCache()
    @exclusivity(unchecked) private var report: ConversionReport
    @exclusivity(unchecked) private var elementsSinceCheck = 0
    @exclusivity(unchecked) private var elements = 0
    /// The export's `ExportDate` (the first element of export.xml), once read.
    @exclusivity(unchecked) private var exportedAt: Int64?
    private let started = Date()

    /// Called with each mapped metric and each element that is not a metric (for `inspect`).
    @exclusivity(unchecked) public var observer: (any ConversionObserver)?
    /// Called about twice a second.
    @exclusivity(unchecked) private var onProgress: (@Sendable (ReaderProgress) -> Void)?
    @exclusivity(unchecked) private var lastProgress = Date()
    @exclusivity(unchecked) private var readProgress: ReadProgress?
    /// Called with each top-level element before it is mapped (the archive reader collects the
    /// workouts that routes link to, and HRV beat lists, with it). Nil costs nothing.
    @exclusivity(unchecked) var elementTrees: ((ElementTree) throws -> Void)?
    /// Called on the mapping thread every 4,096 elements (the archive reader writes the routes decoded
    /// meanwhile with it). Nil costs nothing.
    @exclusivity(unchecked) var betweenElements: (() throws -> Void)?
    /// For a zip from a pipe: the other entries to decode as they stream past.
    @exclusivity(unchecked) var streamed: DecodedEntries?
    /// Checked between elements; set by a signal handler to stop cleanly.
    private var shouldStop: @Sendable () -> Bool = { false }

    public init(input: ExportInput, filter: MetricFilter = .all) {
        self.input = input
        self.filter = filter
        report = ConversionReport(input: input.name)
    }

    public convenience init(input path: String, filter: MetricFilter = .all) { self.init(input: ExportInput(path: path), filter: filter) }

    // MARK: RecordReader

    public var name: String { report.input }

    /// Runs the conversion into `sinks.metrics` (export.xml has no records of other kinds for this
    /// source: `ArchiveConverter` reads those). Throws `ConversionError` on structural damage, after
    /// the sink received every metric that came before the damage.
    public func read(into sinks: ReaderSinks, control: RunControl) throws -> ConversionReport {
        sink = sinks.metrics
        onProgress = control.onProgress
        shouldStop = control.shouldStop
        let report = try run()
        try sinks.facts?(report.facts)
        try sink.finish()
        return report
    }

    /// Runs the conversion; the caller finishes the sink.
    func run() throws -> ConversionReport {
        var stream = ExportStream(input: input)
        stream.shouldStop = shouldStop
        stream.streamed = streamed
        readProgress = stream.progress
        do {
            try stream.run(self)
        } catch {
            fillReport(stream.facts)
            try? sink.abandon()
            throw stopExplains(error) ? ConversionError.interrupted : error
        }
        fillReport(stream.facts)
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    public var currentReport: ConversionReport { report }

    /// Whether a stop signal explains `error`. Ctrl-C in a terminal reaches the whole pipeline
    /// (`curl … | cloudsync convert -`): the writer dies too, and its end of file looks like a
    /// truncated export. The signal reaches every process at the same moment, but its handler may
    /// run a moment after the end of file is read: a pipe's damage waits 100 ms for it.
    private func stopExplains(_ error: any Error) -> Bool {
        guard let error = error as? ConversionError else { return false }
        switch error {
        case .interrupted: return false
        case .malformedXML, .damagedZip, .notAnExport, .unreadable: break
        case .output, .outputFolder: return shouldStop()
        }
        if shouldStop() { return true }
        if input.descriptor == nil {
            guard input.isStandardInput || FileKind(path: input.path) != .regular else { return false }
            guard !input.isStandardInput || FileKind(descriptor: STDIN_FILENO) != .regular else { return false }
        }
        usleep(100_000)
        return shouldStop()
    }

    private func fillReport(_ facts: ExportStream.Facts) {
        report.entry = facts.source.entryName
        report.otherFiles = facts.source.otherEntries
        report.locale = facts.locale
        report.xmlBytes = facts.xmlBytes
        report.hadDoctype = facts.hadDoctype
        report.exportVersion = facts.doctype?.exportVersion
        report.dtdDefects = facts.doctype?.defects ?? []
        report.controlCharactersReplaced = facts.controlCharactersReplaced
        report.attributeNamesRepaired = facts.attributeNamesRepaired
        report.elementCounts = facts.elementCounts
        report.seconds = Date().timeIntervalSince(started)
    }

    // MARK: ExportElementConsumer

    /// Before the mapping thread starts: the sink may size its memory by export.xml's size.
    public func begin(expectedBytes: Int64?) {
        if let expectedBytes { sink.expect(metricBytes: expectedBytes) }
    }

    public func consume(_ tree: ElementTree) throws {
        elements += 1
        elementsSinceCheck += 1
        if elementsSinceCheck >= 4096 {
            elementsSinceCheck = 0
            if shouldStop() { throw ConversionError.interrupted }
            if let betweenElements { try betweenElements() }
            if let onProgress, Date().timeIntervalSince(lastProgress) >= 0.5 {
                lastProgress = Date()
                onProgress(ReaderProgress(metrics: report.metrics, elements: elements, seconds: Date().timeIntervalSince(started),
                                    bytes: readProgress?.bytes ?? 0, totalBytes: readProgress?.totalBytes))
            }
        }
        if let elementTrees { try elementTrees(tree) }
        switch mapper.map(tree) {
        case .metric:
            let metric = mapper.metric
            guard typeFilter.accepts(metric.type, filter), filter.acceptsDate(metric.startDate) else {
                report.filteredOut += 1
                return
            }
            report.metrics += 1
            if let exportedAt, metric.startDate > exportedAt { report.samplesAfterExport.add(start: metric.startDate, line: metric.line) }
            try sink.write(metric)
            observer?.metric(metric)
        case .invalid(let reason):
            report.invalid[reason.rawValue, default: 0] += 1
            if report.firstInvalidLine[reason.rawValue] == nil { report.firstInvalidLine[reason.rawValue] = Int(tree.nodes[0].line) }
            observer?.invalid(tree, reason)
        case .notAMetric:
            switch tree.name(tree.root) {
            case .exportDate:
                if let value = tree.value(.value) {
                    report.exportDate = value.string
                    exportedAt = ExportDateParser.epochSeconds(value)
                }
            case .me:
                // The person's characteristics, once per export: the first value of a repeated name.
                report.profile = Dictionary(tree.attributes(of: tree.root).map { ($0.name.string, $0.value.string) },
                                            uniquingKeysWith: { first, _ in first })
            default:
                break
            }
            observer?.element(tree)
        }
    }
}

/// Sees everything a conversion sees (used by `inspect`).
public protocol ConversionObserver: AnyObject {
    func metric(_ metric: MappedMetric)
    func invalid(_ tree: ElementTree, _ reason: InvalidRecordReason)
    func element(_ tree: ElementTree)
}
