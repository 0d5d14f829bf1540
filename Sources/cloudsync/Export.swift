import ArgumentParser
import CloudSyncKinds
import CloudSyncModel
import CloudSyncStore
import Foundation

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the store's metrics (JSONL, CSV, CloudCare batches) or its other records.",
        usage: """
            cloudsync export [--store PATH]
                     [--kind metrics|KIND]
                     [--format jsonl|csv|cloudcare|geojson] [--output PATH] [--force]
                     [--batch-size N] [--pending] [--count-repeats]
                     [--types T,…] [--since DATE] [--until DATE] [--quiet]
            """,
        discussion: """
            The metrics are those status and aggregate count: each sample once; with --count-repeats, also \
            the samples alike but for their creation date (as convert writes them). Rows kept but superseded \
            (pushed by the phone where the export is the truth) are never exported.

            \(recordKindsHelp)

            Examples:
              cloudsync export > metrics.jsonl
              cloudsync export --format cloudcare --pending --output batches/
              cloudsync export --kind routes --format geojson > routes.json

            \(ExitStatus.help([ExitStatus.success, ExitStatus.badArguments, ExitStatus.notAStore, ExitStatus.missingStore,
                               ExitStatus.damagedStore, ExitStatus.cannotCreateFolder, ExitStatus.unwritableOutput]))
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var outputs: OutputOptions

    @Flag(help: "Only what status calls pending: what an upload to CloudCare would send now (its types, each sample once, not acknowledged by the CloudCare server last sent to).")
    var pending = false

    @Flag(help: "Also the repeats: samples alike but for their creation date (status --count-repeats counts the same).")
    var countRepeats = false

    @OptionGroup var filters: FilterOptions

    @Flag(name: .shortAndLong, help: "No summary on stderr.")
    var quiet = false

    /// The stored records of `kind`, in the chosen format.
    private func export<Kind: ArchiveRecordKind>(_ kind: Kind.Type, from store: StagingStore, filter: MetricFilter) throws -> Int {
        try ExportQuery(store).records(Kind.self, filter: filter, to: try outputs.makeRecordSink(Kind.self))
    }

    func run() throws {
        let filter = try filters.makeFilter()
        var files = SameFileGuard(command: "export")
        files.store(storeOptions.path)
        try outputs.check(files)
        let store = try storeOptions.open(.read)
        do {
            if let kind = outputs.recordKind {
                let count = try export(kind, from: store, filter: filter)
                if !quiet { printError("exported \(counted(count, kind.noun.singular, kind.noun.plural)) from \(store.path)") }
                return
            }
            let sink = try outputs.makeSink { try store.identity() }
            let count = try ExportQuery(store).metrics(filter: filter, countRepeats: countRepeats, pendingOnly: pending, to: sink)
            if !quiet {
                var line = "exported \(counted(count, "metric")) from \(store.path)"
                if pending { line += " (pending: what an upload to CloudCare would send)" }
                if let output = outputs.output { line += " to \(output)" }
                printError(line)
            }
        } catch {
            throw ExitStatus.report(error)
        }
    }
}
