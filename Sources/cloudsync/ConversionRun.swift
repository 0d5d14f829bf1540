import CloudSyncExport
import CloudSyncHealthAutoExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncInputs
import Foundation

/// Refuses `-` when standard input is a terminal: nobody types an export, and a run waiting for
/// Ctrl-D looks like a hang.
func checkStandardInput(_ input: String, command: String) throws {
    guard input == "-", isatty(STDIN_FILENO) == 1 else { return }
    throw usageError("standard input is a terminal: pipe an export in (cloudsync \(command) - < export.zip) or name the file",
                     command: command)
}

/// Runs export.xml's metrics into `sink` with progress, the summary line and exit codes; shared by
/// `convert` and `inspect`. When the run stops early, `partial` gets what was learnt before the stop,
/// and the message says what the output holds (from the sink: JSON Lines keep every complete line,
/// CloudCare batches are written only at the end).
@discardableResult
func runConversion(input: String, filter: MetricFilter, sink: any MetricSink, quiet: Bool,
                   observer: (any ConversionObserver)? = nil,
                   partial: ((ConversionReport, ConversionError) -> Void)? = nil) throws -> ConversionReport {
    let converter = ExportConverter(input: input, filter: filter)
    converter.observer = observer
    let progress = ProgressLine()
    do {
        let report = try ReaderRunner.run(converter, into: ReaderSinks(metrics: sink, records: CountingRecordSink()),
                                          control: progress.control())
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
    let converter = ArchiveConverter(input: input, filter: filter, kinds: kinds)
    converter.observer = observer
    let progress = ProgressLine()
    do {
        let report = try ReaderRunner.run(converter, into: ReaderSinks(metrics: metrics, records: records), control: progress.control())
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

/// Runs Health Auto Export's files into the sinks with the summary and exit codes: `convert` of the
/// phone's JSON. A document that cannot be read (66) or is refused (65) stops the run, named with the
/// JSON path of its first problem. With `kind`, only records of that kind reach `records` (a file's
/// routes never land under the ECG header), and a file without any is said to have none.
func runDocuments(_ files: [String], filter: MetricFilter, metrics: any MetricSink, records: any RecordSink, quiet: Bool,
                  kind: (any RecordKind.Type)? = nil) throws {
    guard !files.isEmpty else {
        printError("no .json file in the folder")
        throw ExitStatus.noInput
    }
    let progress = ProgressLine()
    let oneKind = kind.map { OneKindSink(kindNamed: $0.name, to: records) }
    let (sinks, filtered) = Filtering.sinks(filter, ReaderSinks(metrics: metrics, records: oneKind ?? records))
    let source = HealthAutoExportFiles(files)
    let started = Date()
    do {
        let reports = try ReaderRunner.run(source, into: sinks, control: progress.control())
        progress.clear()
        let seconds = String(format: " in %.1f s", Date().timeIntervalSince(started))
        if let kind, let oneKind {
            if oneKind.count.records == 0 {
                let held = reports.reduce(into: [String: Int]()) { held, report in held.merge(report.records.mapValues(\.records)) { $0 + $1 } }
                    .filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                printError("\(source.name) holds no \(kind.noun.plural)" + (held.isEmpty ? "" : " (it holds \(held.joined(separator: ", ")))"))
            } else if !quiet {
                printError(kind.describe(oneKind.count) + " from \(source.name)" + seconds)
            }
            return
        }
        let written = reports.reduce(0) { $0 + $1.samples } - filtered.filteredOut
        let notKept = reports.flatMap(\.notKept).reduce(into: [String: Int]()) { $0[$1.key, default: 0] += $1.value.count }
        if !quiet || !notKept.isEmpty {
            var line = "\(counted(written, "metric")) from \(source.name)" + seconds
            if filtered.filteredOut > 0 { line += "; \(filtered.filteredOut) filtered out" }
            if !notKept.isEmpty { line += "; not kept: " + notKept.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
            printError(line)
        }
    } catch let error as HealthAutoExportError {
        progress.clear()
        printError(error.description)
        throw error.kind == .unreadable ? ExitStatus.noInput : ExitStatus.dataError
    } catch let error as ConversionError {
        progress.clear()
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
