import Foundation

/// Streams one export through the whole chain: source (file, zip, stdin) → reader thread
/// (inflate, DTD removal, control-character filter) → libxml2 SAX → mapping → filter → sink.
public final class ExportConverter: ExportElementConsumer {
    public struct Progress: Sendable {
        public var metrics: Int
        public var xmlBytes: Int64
        public var seconds: Double
    }

    private let inputPath: String
    private let filter: MetricFilter
    private let sink: any MetricSink
    private let mapper = MetricMapper()
    private var typeFilter = TypeFilterCache()
    private var report: ConversionReport
    private var parsedBytes: Int64 = 0
    private var elementsSinceCheck = 0
    private let started = Date()

    /// Called with each mapped metric and each element that is not a metric (for `inspect`).
    public var observer: (any ConversionObserver)?
    /// Called about twice a second.
    public var onProgress: ((Progress) -> Void)?
    private var lastProgress = Date()
    /// Checked between elements; set by a signal handler to stop cleanly.
    public var shouldStop: () -> Bool = { false }

    public private(set) var parser: ExportParser?

    public init(input path: String, filter: MetricFilter = .all, sink: any MetricSink) {
        inputPath = path
        self.filter = filter
        self.sink = sink
        report = ConversionReport(input: path == "-" ? "standard input" : path)
    }

    /// Runs the conversion. Throws `ConversionError` on structural damage, after the sink received
    /// every metric that came before the damage.
    @discardableResult
    public func run() throws -> ConversionReport {
        let source = try ExportSources.open(inputPath)
        let parser = ExportParser(consumer: self)
        self.parser = parser
        let pipeline = ChunkPipeline(source: source)
        do {
            try pipeline.run { chunk in
                parsedBytes += Int64(chunk.count)
                try parser.parse(chunk)
            }
            try parser.finish()
            try checkRoot(parser, source)
        } catch {
            fillReport(parser, pipeline, source)
            try? sink.abandon()
            throw describe(error, source)
        }
        fillReport(parser, pipeline, source)
        try sink.finish()
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    public var currentReport: ConversionReport { report }

    private func checkRoot(_ parser: ExportParser, _ source: any ExportByteSource) throws {
        guard let root = parser.rootName else {
            throw ConversionError.notAnExport(source.info.inputName, "no XML element in it")
        }
        guard root == "HealthData" else {
            throw ConversionError.notAnExport(source.info.inputName, "its root element is <\(root)>, not <HealthData>")
        }
    }

    private func describe(_ error: any Error, _ source: any ExportByteSource) -> any Error {
        if let syntax = error as? XMLSyntaxError {
            if parser?.rootName == nil {
                return ConversionError.notAnExport(source.info.inputName, "not XML (\(syntax.message) at line \(syntax.line))")
            }
            return ConversionError.malformedXML(source.info.inputName, entry: source.info.entryName, syntax)
        }
        return error
    }

    private func fillReport(_ parser: ExportParser, _ pipeline: ChunkPipeline, _ source: any ExportByteSource) {
        report.entry = source.info.entryName
        report.otherFiles = source.info.otherEntries
        report.locale = parser.locale
        report.xmlBytes = parsedBytes
        let statistics = pipeline.statistics
        report.hadDoctype = statistics.sawDoctype
        report.exportVersion = statistics.doctype?.exportVersion
        report.dtdDefects = statistics.doctype?.defects ?? []
        report.controlCharactersReplaced = statistics.controlCharactersReplaced
        report.seconds = Date().timeIntervalSince(started)
    }

    // MARK: ExportElementConsumer

    public func consume(_ tree: ElementTree) throws {
        elementsSinceCheck += 1
        if elementsSinceCheck >= 4096 {
            elementsSinceCheck = 0
            if shouldStop() { throw ConversionError.interrupted }
            if let onProgress, Date().timeIntervalSince(lastProgress) >= 0.5 {
                lastProgress = Date()
                onProgress(Progress(metrics: report.metrics, xmlBytes: parsedBytes, seconds: Date().timeIntervalSince(started)))
            }
        }
        switch mapper.map(tree) {
        case .metric:
            let metric = mapper.metric
            guard typeFilter.accepts(metric.type, filter), filter.acceptsDate(metric.startDate) else {
                report.filteredOut += 1
                return
            }
            report.metrics += 1
            try sink.write(metric)
            observer?.metric(metric)
        case .invalid(let reason):
            report.invalid[reason.rawValue, default: 0] += 1
            if report.firstInvalidLine[reason.rawValue] == nil { report.firstInvalidLine[reason.rawValue] = Int(tree.nodes[0].line) }
            observer?.invalid(tree, reason)
        case .notAMetric:
            if tree.name(tree.root) == .exportDate, let value = tree.value(.value) { report.exportDate = value.string }
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
