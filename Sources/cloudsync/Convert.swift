import ArgumentParser
import CloudSyncCore
import Foundation

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert an export to HealthMetric JSONL or CloudCare JSON batches.",
        discussion: """
            INPUT is an export.zip, an export.xml, or - for standard input (zip or XML). \
            Records that cannot be valid metrics are skipped and counted on stderr; the run still succeeds.

            Examples:
              cloudsync convert export.zip > metrics.jsonl
              cloudsync convert export.zip --types heartRate --since 2024-01-01 | jq .value
              cloudsync convert export.zip --format cloudcare --output batches/

            \(ExitStatus.helpText)
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonl, cloudcare
    }

    @Argument(help: "export.zip, export.xml, or - for standard input.")
    var input: String

    @Option(help: "jsonl (one metric per line) or cloudcare (HealthDataExport envelopes).")
    var format: Format = .jsonl

    @Option(name: .shortAndLong, help: "jsonl: a file. cloudcare: a directory for batch-000001.json, … (default: standard output).")
    var output: String?

    @Option(help: "cloudcare: metrics per envelope.")
    var batchSize = 1000

    @Option(help: "cloudcare: the userId (a UUID; default: a new one).")
    var userId: String?

    @Option(help: "cloudcare: the deviceId (a UUID; default: a new one).")
    var deviceId: String?

    @OptionGroup var filters: FilterOptions

    @Flag(name: .shortAndLong, help: "No summary on stderr.")
    var quiet = false

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
        for (name, value) in [("--user-id", userId), ("--device-id", deviceId)] {
            if let value, UUID(uuidString: value) == nil { throw ValidationError("\(name) '\(value)' is not a UUID") }
        }
    }

    func run() throws {
        let filter = try filters.makeFilter()
        let sink: any MetricSink
        do {
            switch format {
            case .jsonl:
                sink = JSONLinesSink(output: try output.map(OutputFile.create) ?? .standardOutput())
            case .cloudcare:
                let identity = CloudCareIdentity(userId: userId ?? UUID().uuidString, deviceId: deviceId ?? UUID().uuidString)
                let destination: CloudCareBatchWriter.Destination = output.map { .directory($0) } ?? .standardOutput
                sink = try CloudCareBatchWriter(identity: identity, batchSize: batchSize, destination: destination)
            }
        } catch let error as ConversionError {
            printError(error.description)
            throw ExitStatus.code(for: error)
        }
        try runConversion(input: input, filter: filter, sink: sink, quiet: quiet)
    }
}

/// Runs a conversion with progress, the summary line and exit codes; shared by the commands.
@discardableResult
func runConversion(input: String, filter: MetricFilter, sink: any MetricSink, quiet: Bool,
                   observer: (any ConversionObserver)? = nil) throws -> ConversionReport {
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
        printError(error.description)
        printError("stopped after \(report.metrics) metrics (all written)")
        throw ExitStatus.code(for: error)
    }
}
