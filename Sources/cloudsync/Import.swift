import ArgumentParser
import CloudSyncCore
import CloudSyncStore
import Foundation

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import an export into the staging store: incremental, idempotent, crash-safe.",
        discussion: """
            Importing the same export twice adds nothing; importing next month's export adds only what is new. \
            Same inputs, filters and bad-input rules as convert. A damaged input keeps what came before the \
            damage, records the run as failed with the reason, and exits non-zero.

            Example:
              cloudsync import export.zip && cloudsync status

            \(ExitStatus.helpText)
            """
    )

    @Argument(help: "export.zip, export.xml, or - for standard input.")
    var input: String

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var filters: FilterOptions

    @Flag(name: .shortAndLong, help: "No summary on stderr.")
    var quiet = false

    func run() throws {
        let filter = try filters.makeFilter()
        let store = try storeOptions.open(.write)
        let progress = ProgressLine()
        StopSignal.install()
        do {
            let result = try store.importExport(input, filter: filter) { converter in
                converter.onProgress = progress.show
                converter.shouldStop = { StopSignal.received }
            }
            progress.clear()
            let conversion = result.conversion
            if !quiet || conversion.invalidCount > 0 {
                var line = "imported \(input == "-" ? "standard input" : input) into \(store.path): \(result.newCount) new, \(result.duplicateCount) already there"
                if conversion.invalidCount > 0 {
                    line += "; skipped \(conversion.invalidCount) invalid records: "
                        + conversion.invalid.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                }
                if conversion.filteredOut > 0 { line += "; \(conversion.filteredOut) filtered out" }
                line += String(format: " (%.1f s)", conversion.seconds)
                printError(line)
            }
        } catch {
            progress.clear()
            let code = ExitStatus.report(error)
            printError("the import run is recorded as failed; metrics before the damage are kept")
            throw code
        }
    }
}
