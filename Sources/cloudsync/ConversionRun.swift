import CloudSyncCore
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
    converter.observer = observer
    let progress = ProgressLine()
    converter.onProgress = progress.show
    converter.shouldStop = { StopSignal.received }
    StopSignal.install()
    do {
        let report = try converter.run()
        progress.clear()
        if !quiet || report.invalidCount > 0 { printError(String(report.summary.dropFirst("cloudsync: ".count))) }
        return report
    } catch let error as ConversionError {
        progress.clear()
        let report = converter.currentReport
        partial?(report, error)
        let written = sink.abandonedOutput(metrics: report.metrics)
        if case .interrupted = error {
            printError("interrupted" + (written.map { ": \($0)" } ?? ""))
        } else {
            printError(error.description)
            if let written { printError(written) }
        }
        throw ExitStatus.code(for: error)
    }
}
