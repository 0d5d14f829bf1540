import CloudSyncExport
import CloudSyncKinds
import CloudSyncModel
import Foundation

/// Refuses `-` when standard input is a terminal: nobody types an export, and a run waiting for
/// Ctrl-D looks like a hang.
func checkStandardInput(_ input: String, command: String) throws {
    guard input == "-", isatty(STDIN_FILENO) == 1 else { return }
    throw usageError("standard input is a terminal: pipe an export in (cloudsync \(command) - < export.zip) or name the file",
                     command: command)
}

/// Runs a conversion with progress, the summary line and exit codes; shared by `convert` and
/// `inspect`. When the run stops early, `partial` gets what was learnt before the stop, and the
/// message says what the output holds (from the sink: JSON Lines keep every complete line,
/// CloudCare batches are written only at the end).
@discardableResult
func runConversion(input: String, filter: MetricFilter, sink: any MetricSink, quiet: Bool,
                   observer: (any ConversionObserver)? = nil,
                   partial: ((ConversionReport, ConversionError) -> Void)? = nil) throws -> ConversionReport {
    let converter = ExportConverter(input: input, filter: filter, sink: sink)
    let progress = prepare(converter, observer: observer)
    do {
        let report = try converter.run()
        progress.clear()
        if !quiet || report.invalidCount > 0 { printError(String(report.summary.dropFirst("cloudsync: ".count))) }
        return report
    } catch let error as ConversionError {
        progress.clear()
        let report = converter.currentReport
        partial?(report, error)
        // After a failed write, nothing can be said of what the output holds.
        var written = sink.abandonedOutput(metrics: report.metrics)
        if case .output = error { written = nil }
        if case .interrupted = error {
            printError("interrupted" + (written.map { ": \($0)" } ?? ""))
        } else {
            printError(error.description)
            if let written { printError(written) }
        }
        throw ExitStatus.code(for: error)
    }
}

/// Runs a whole-archive conversion (records of other kinds; `inspect` too) with progress, the summary
/// and exit codes. Damaged entries are reported and skipped; the run still succeeds.
@discardableResult
func runArchive(input: String, filter: MetricFilter, metrics: any MetricSink, records: any RecordSink, kinds: [any ArchiveKind.Type],
                quiet: Bool, observer: (any ConversionObserver)? = nil,
                partial: ((ArchiveConverter.Report, ConversionError) -> Void)? = nil) throws -> ArchiveConverter.Report {
    let converter = ArchiveConverter(input: input, filter: filter, metrics: metrics, records: records, kinds: kinds)
    let progress = prepare(converter, observer: observer)
    do {
        let report = try converter.run()
        progress.clear()
        for damage in report.damaged { printError("\(report.conversion.input) (\(damage.entry)): skipped: \(damage.problem)") }
        if !quiet || !report.damaged.isEmpty || !report.notes.isEmpty { printError(archiveSummary(report)) }
        return report
    } catch let error as ConversionError {
        progress.clear()
        partial?(converter.currentReport, error)
        printError(error.description)
        throw ExitStatus.code(for: error)
    }
}

/// "2 routes (45,678 points) from export.zip in 1.2 s; 1 damaged entry skipped".
func archiveSummary(_ report: ArchiveConverter.Report) -> String {
    let parts = report.kinds.compactMap { report.described[$0] } + report.notes
    var line = parts.joined(separator: "; ") + " from \(report.conversion.input)"
    line += String(format: " in %.1f s", report.conversion.seconds)
    if !report.damaged.isEmpty { line += "; \(counted(report.damaged.count, "damaged entry", "damaged entries")) skipped" }
    return line
}

/// The kinds of record besides metrics, for a command's help: `--kind` takes their names.
let recordKindsHelp = "Kinds of record besides metrics (--kind): " + RecordKinds.all.map { "\($0.name) (\($0.noun.plural))" }
    .joined(separator: ", ") + "; each as JSON Lines or CSV, routes also as GeoJSON."

/// What the runners set on either converter: the observer, progress on the terminal, and the stop
/// signals.
protocol ObservedConversion: AnyObject {
    var observer: (any ConversionObserver)? { get set }
    var onProgress: ((ExportConverter.Progress) -> Void)? { get set }
    var shouldStop: @Sendable () -> Bool { get set }
}

extension ExportConverter: ObservedConversion {}
extension ArchiveConverter: ObservedConversion {}

private func prepare(_ converter: some ObservedConversion, observer: (any ConversionObserver)?) -> ProgressLine {
    let progress = ProgressLine()
    converter.observer = observer
    converter.onProgress = progress.show
    converter.shouldStop = StopSignal.installed()
    return progress
}
