import ArgumentParser
import CloudSyncCore
import CloudSyncStore

/// Exit codes a script can rely on (sysexits.h values).
enum ExitStatus {
    static let usage = ExitCode(64)          // bad arguments
    static let dataError = ExitCode(65)      // damaged input, not an export
    static let noInput = ExitCode(66)        // input cannot be opened or read
    static let cannotCreate = ExitCode(73)   // the store cannot be created or written (read-only)
    static let ioError = ExitCode(74)        // output cannot be written, disk full
    static let storeBusy = ExitCode(75)      // the store is locked by another cloudsync (try again later)
    static let software = ExitCode(70)       // the store is damaged or of a newer schema
    static let unavailable = ExitCode(69)    // the server kept failing (retries exhausted)
    static let noPermission = ExitCode(77)   // the server refused the token
    static let interrupted = ExitCode(130)   // SIGINT / SIGTERM

    static let helpText = """
        Exit status: 0 success (invalid records are skipped, counted and reported on stderr); \
        64 bad arguments; 65 damaged input or not an Apple Health export; 66 input cannot be read; \
        70 the store is damaged or newer than this cloudsync; 73 the store cannot be created or written; \
        74 output cannot be written or the disk is full; 75 the store is in use by another cloudsync process; \
        69 the server kept failing after every retry; 77 the server refused the token; 130 interrupted.
        """

    static func code(for error: ConversionError) -> ExitCode {
        switch error {
        case .unreadable: return noInput
        case .notAnExport, .malformedXML, .damagedZip: return dataError
        case .output: return ioError
        case .interrupted: return interrupted
        }
    }

    static func code(for error: StoreError) -> ExitCode {
        switch error {
        case .locked: return storeBusy
        case .readOnly, .cannotOpen: return cannotCreate
        case .newerSchema, .notAStore: return software
        case .sqlite(let sqlite): return sqlite.isDiskFull ? ioError : sqlite.isBusy ? storeBusy : sqlite.isReadOnly ? cannotCreate : software
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
        default:
            printError("\(error)")
            return ExitCode.failure
        }
    }
}
