import ArgumentParser
import CloudSyncCore
import CloudSyncStore
import Foundation

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the store's metrics as JSONL or CloudCare batches, in startDate order.",
        discussion: """
            Example:
              cloudsync export --format cloudcare --pending --output batches/

            \(ExitStatus.helpText)
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "jsonl (one metric per line) or cloudcare (HealthDataExport envelopes).")
    var format: Convert.Format = .jsonl

    @Option(name: .shortAndLong, help: "jsonl: a file. cloudcare: a directory for batch-000001.json, … (default: standard output).")
    var output: String?

    @Option(help: "cloudcare: metrics per envelope.")
    var batchSize = 1000

    @Flag(help: "Only metrics no CloudCare server has acknowledged yet.")
    var pending = false

    @OptionGroup var filters: FilterOptions

    func validate() throws {
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        let filter = try filters.makeFilter()
        let store = try storeOptions.open(.read)
        do {
            let sink: any MetricSink
            switch format {
            case .jsonl:
                sink = JSONLinesSink(output: try output.map(OutputFile.create) ?? .standardOutput())
            case .cloudcare:
                sink = try CloudCareBatchWriter(identity: try store.identity(), batchSize: batchSize,
                                                destination: output.map { .directory($0) } ?? .standardOutput)
            }
            try store.export(filter: filter, pendingOnly: pending, to: sink)
        } catch {
            throw ExitStatus.report(error)
        }
    }
}
