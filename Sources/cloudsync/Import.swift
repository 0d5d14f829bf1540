import ArgumentParser
import CloudSyncExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncInputs
import CloudSyncStore
import Foundation

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an export into the staging store: incremental, idempotent, crash-safe.",
        usage: """
            cloudsync import INPUT [--store PATH]
            cloudsync import FILE.json|FOLDER [--store PATH]
                     [--types T,…] [--since DATE] [--until DATE] [--quiet]
            """,
        discussion: """
            Importing the same export twice adds nothing; importing next month's export adds only what is new. \
            Same inputs, filters and bad-input rules as convert. A damaged input keeps what came before the \
            damage, records the run as failed with the reason, and exits non-zero. An interrupted import keeps \
            what it committed; run it again to finish. An export's import into a new store writes it beside \
            its path: the store appears there when the import ends (a killed import leaves no store).

            Health Auto Export's JSON (the iOS app's files: HealthAutoExport-….json, or a folder of them) goes \
            into the same store, each file in one transaction: all of it or none of it. Pushed samples \
            before the export's ExportDate are kept but not counted (see the README, "Keep it current \
            from your phone").

            Example:
              cloudsync import export.zip && cloudsync status

            \(ExitStatus.help([ExitStatus.successSkipping, ExitStatus.badArguments, ExitStatus.damagedInputOrNotAStore,
                               ExitStatus.unreadableInput, ExitStatus.damagedStore, ExitStatus.unwritableStore,
                               ExitStatus.unwritableOutput, ExitStatus.busyStore, ExitStatus.interruptedRun]))
            """
    )

    @Argument(help: "export.zip, export.xml, - for standard input, or Health Auto Export's JSON (a file, or a folder of them).")
    var input: String

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var filters: FilterOptions

    @Flag(name: .shortAndLong, help: "No summary on stderr unless records were skipped.")
    var quiet = false

    func run() throws {
        try checkStandardInput(input, command: "import")
        let filter = try filters.makeFilter()
        // An input that cannot be read is reported before the store is touched: no store is
        // created and no failed run recorded for a typo in a path.
        if input != "-", access(input, R_OK) != 0 {
            printError(ConversionError.unreadable(input, String(cString: strerror(errno))).description)
            throw ExitStatus.noInput
        }
        // Health Auto Export's JSON (a file, or a folder of them): the same store, the same door.
        if case .healthAutoExport(let files) = NamedInput(input) {
            try importHealthAutoExport(files)
            return
        }
        if let stored = FileIdentity(path: storeOptions.path), [FileIdentity(path: input), input == "-" ? FileIdentity(descriptor: STDIN_FILENO) : nil].contains(stored) {
            throw usageError("the input is the store \(storeOptions.path) itself: give the export (export.zip or export.xml)", command: "import")
        }
        let progress = ProgressLine()
        do {
            let result = try importExport(filter: filter, progress: progress)
            progress.clear()
            let (conversion, stored) = (result.conversion, result.stored)
            if !quiet || conversion.invalidCount > 0 || conversion.samplesAfterExport.count > 0 {
                for damage in result.archive.damaged { printError("\(conversion.input) (\(damage.entry)): skipped: \(damage.problem)") }
                var line = "imported \(input == "-" ? "standard input" : input) into \(storeOptions.path): \(stored.new) new"
                if stored.repeats > 0 {
                    line += " (\(counted(stored.repeats, "repeat")) among them: samples alike but for their creation date, kept and counted once)"
                }
                line += ", \(stored.already) already there"
                if stored.writtenTwice > 0 { line += ", \(stored.writtenTwice) written twice in the export (stored once)" }
                for kind in RecordKinds.all {
                    guard let records = stored.records[kind.name], records.new + records.already > 0 else { continue }
                    line += "; \(counted(records.new, kind.noun.singular, kind.noun.plural)) new (\(records.already) already there)"
                }
                for note in result.archive.notes { line += "; \(note)" }
                if conversion.invalidCount > 0 {
                    line += "; skipped \(counted(conversion.invalidCount, "invalid record")): "
                        + conversion.invalid.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                }
                if conversion.filteredOut > 0 { line += "; \(conversion.filteredOut) filtered out" }
                if let note = conversion.samplesAfterExport.note { line += "; \(note)" }
                line += String(format: " (%.1f s)", conversion.seconds)
                printError(line)
            }
        } catch {
            progress.clear()
            throw Self.report(error)
        }
    }

    /// Imports the export into the store: a new store's file as a bulk load (`NewStoreLoad`), made
    /// beside its path and linked there when the import ends, whichever way it ends (what it
    /// committed is kept, as in a store that was there); any other store in place. Standard input
    /// is imported in place: it cannot be read again should another process make the store meanwhile.
    private func importExport(filter: MetricFilter, progress: ProgressLine) throws -> ExportImportResult {
        if input != "-", case .file(let path) = storeOptions.address, let load = NewStoreLoad.begin(at: path, configuration: .saying) {
            // The store is released with the closure: what it committed goes in place, however it ended.
            let imported = Result { try load.open().importExport(input, filter: filter, control: progress.control()) }
            let linked = Result { try load.linkIntoPlace() }
            switch (imported, linked) {
            case (_, .success(true)):
                return try imported.get()
            case (.success, .success(false)):
                progress.clear()
                printError("\(path): another process made a store there while this import ran: the export is imported into it")
            case (.failure(let error), .success(false)):
                throw nothingKept(error, "\(path): another process made a store there while this import ran; nothing of this import was kept: run it again", progress)
            case (.failure(let error), .failure), (.success, .failure(let error)):
                throw nothingKept(error, "\(path): the new store could not be put in place; nothing of this import was kept", progress)
            }
        }
        let store = try storeOptions.open(.write)
        defer { store.checkpoint() }
        return try store.importExport(input, filter: filter, control: progress.control())
    }

    /// An import into a new store that failed, or whose store could not be linked at its path: said
    /// already, with the error.
    private struct NothingKept: Error { let code: ExitCode }

    private func nothingKept(_ error: any Error, _ sentence: String, _ progress: ProgressLine) -> NothingKept {
        progress.clear()
        let code = ExitStatus.report(error)
        printError(sentence)
        return NothingKept(code: code)
    }

    /// The error, then what became of the run and of the store, in words that match what happened.
    static func report(_ error: any Error) -> ExitCode {
        if let said = error as? NothingKept { return said.code }
        if case ConversionError.interrupted = error {
            printError("interrupted: the import run is recorded as interrupted; what it committed is kept; run the same import again to finish")
            return ExitStatus.interrupted
        }
        let code = ExitStatus.report(error)
        switch error {
        case ConversionError.malformedXML, ConversionError.damagedZip:
            printError("the import run is recorded as failed; the metrics before the damage are kept")
        case ConversionError.notAnExport, ConversionError.unreadable:
            printError("the import run is recorded as failed; nothing was imported")
        default:
            printError("the import run is recorded as failed; what it committed before is kept")
        }
        return code
    }
}
