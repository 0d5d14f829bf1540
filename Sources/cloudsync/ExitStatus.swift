import ArgumentParser
import CloudSyncExport
import CloudSyncModel
import CloudSyncStore

/// Exit codes a script can rely on (sysexits.h values). Each command's help lists only the codes
/// that command can return (`ExitStatus.help(_:)`), and the README's table lists them all.
enum ExitStatus {
    static let usage = ExitCode(64)          // bad arguments
    static let dataError = ExitCode(65)      // damaged input, not an export
    static let noInput = ExitCode(66)        // input (or the store) cannot be opened or read
    static let unavailable = ExitCode(69)    // the server kept failing; serve cannot listen or reach PostgreSQL
    static let software = ExitCode(70)       // the store is damaged or of a newer schema
    static let cannotCreate = ExitCode(73)   // the store or an output folder cannot be created or written
    static let ioError = ExitCode(74)        // output cannot be written, disk full
    static let storeBusy = ExitCode(75)      // another upload to the target runs, or the write lock stayed taken past the wait (try again later)
    static let noPermission = ExitCode(77)   // the server refused the token; PostgreSQL refused serve's role
    static let interrupted = ExitCode(130)   // SIGINT / SIGTERM

    /// One line of a command's exit-status list.
    struct Meaning {
        let code: Int32
        let text: String
    }

    static let success = Meaning(code: 0, text: "success")
    static let successSkipping = Meaning(code: 0, text: "success; records that cannot be metrics are skipped, counted, reported")
    static let badArguments = Meaning(code: 64, text: "bad arguments")
    static let damagedInput = Meaning(code: 65, text: "damaged input or not an Apple Health export")
    static let unreadableInput = Meaning(code: 66, text: "the input cannot be opened or read")
    static let missingStore = Meaning(code: 66, text: "no store at the path, or the file is empty (nothing is created)")
    static let notAStore = Meaning(code: 65, text: "the --store file is not a cloudsync store (left as it is)")
    static let damagedInputOrNotAStore = Meaning(code: 65, text: "damaged input, not an export, or --store is not a store")
    static let serverFailing = Meaning(code: 69, text: "the server kept failing after every retry")
    static let cannotListenOrReach = Meaning(code: 69, text: "cannot listen (port in use, not a local address) or reach PostgreSQL")
    static let damagedStore = Meaning(code: 70, text: "the store is damaged, or of another schema (older: --upgrade)")
    static let unwritableStore = Meaning(code: 73, text: "the store cannot be created or written")
    static let unwritableDatabase = Meaning(code: 73, text: "the database cannot be created or written, does not exist, or is newer")
    static let cannotCreateFolder = Meaning(code: 73, text: "the --output folder cannot be made, or is not empty (see --force)")
    static let unwritableOutput = Meaning(code: 74, text: "the output cannot be written, or the disk is full")
    static let busyStore = Meaning(code: 75, text: "the store or the upload target is busy with another cloudsync: try again")
    static let refusedToken = Meaning(code: 77, text: "the server refused the token or the device (401/403; pair first)")
    static let refusedRole = Meaning(code: 77, text: "PostgreSQL refused the role: it does not exist, or its password")
    static let interruptedRun = Meaning(code: 130, text: "interrupted (Ctrl-C, SIGINT or SIGTERM)")

    /// The exit-status paragraph of a command's help: one code per line, so that no line wraps.
    static func help(_ meanings: [Meaning]) -> String {
        "Exit status:\n" + meanings.map { "  \(String($0.code).leftPadded(3))  \($0.text)" }.joined(separator: "\n")
    }

    static func code(for error: ConversionError) -> ExitCode {
        switch error {
        case .unreadable: return noInput
        case .notAnExport, .malformedXML, .damagedZip: return dataError
        case .output: return ioError
        case .outputFolder: return cannotCreate
        case .interrupted: return interrupted
        }
    }

    static func code(for error: StoreError) -> ExitCode {
        switch error {
        case .uploading: return storeBusy
        case .missing, .empty, .folder: return noInput
        case .notAStore: return dataError
        case .readOnly, .cannotOpen: return cannotCreate
        case .newerSchema, .unstorable: return software
        case .olderSchema: return software
        case .sqlite(let sqlite): return sqlite.isDiskFull ? ioError : sqlite.isBusy ? storeBusy : sqlite.isReadOnly ? cannotCreate : software
        case .postgres(let postgres):
            return postgres.isDiskFull ? ioError : postgres.isConnectionFailure ? unavailable : postgres.sqlState == "42501" ? noPermission : software
        }
    }

    /// Prints any error of a store command and gives its exit code.
    static func report(_ error: any Error) -> ExitCode {
        switch error {
        case let error as ConversionError:
            printError(error.description)
            return code(for: error)
        case let error as StoreError:
            printError(error.description)
            return code(for: error)
        case let error as SQLiteError:
            printError(error.description)
            return code(for: StoreError.sqlite(error))
        case let error as ExitCode:
            return error
        default:
            printError("\(error)")
            return software
        }
    }
}

/// A usage mistake found after parsing (in `run()`): the message, a pointer to the command's help,
/// and exit status 64. Thrown as an `ExitCode` so that ArgumentParser does not print the root
/// command's usage, which says nothing about the command that was typed.
func usageError(_ message: String, command: String) -> ExitCode {
    printError(message)
    printError("see 'cloudsync \(command) --help'")
    return ExitStatus.usage
}
