import ArgumentParser
import CloudSyncCore
import Foundation

/// `--format`, `--output`, `--batch-size` and `--force`, shared by `convert` and `export`: the one
/// place where the output format is chosen and its sink made.
struct OutputOptions: ParsableArguments {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonl, cloudcare
    }

    @Option(help: "jsonl (one metric per line) or cloudcare (HealthDataExport envelopes).")
    var format: Format = .jsonl

    @Option(name: .shortAndLong,
            help: "jsonl: a file. cloudcare: an empty or new folder for batch-000001.json, … (default: standard output).")
    var output: String?

    @Option(help: "cloudcare: metrics per envelope.")
    var batchSize = 1000

    @Flag(help: "cloudcare: replace the batch files that an earlier run left in the --output folder.")
    var force = false

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
    }

    /// The sink for the chosen format; `identity` is asked only for CloudCare batches.
    func makeSink(identity: () throws -> CloudCareIdentity) throws -> any MetricSink {
        switch format {
        case .jsonl:
            return JSONLinesSink(output: try output.map(OutputFile.create) ?? .standardOutput())
        case .cloudcare:
            let destination: CloudCareBatchWriter.Destination = output.map { .directory($0, replacing: force) } ?? .standardOutput
            return try CloudCareBatchWriter(identity: try identity(), batchSize: batchSize, destination: destination)
        }
    }
}
