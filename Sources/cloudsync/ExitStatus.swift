import ArgumentParser
import CloudSyncCore

/// Exit codes a script can rely on (sysexits.h values).
enum ExitStatus {
    static let usage = ExitCode(64)          // bad arguments
    static let dataError = ExitCode(65)      // damaged input, not an export
    static let noInput = ExitCode(66)        // input cannot be opened or read
    static let ioError = ExitCode(74)        // output cannot be written
    static let interrupted = ExitCode(130)   // SIGINT / SIGTERM

    static let helpText = """
        Exit status: 0 success (invalid records are skipped, counted and reported on stderr); \
        64 bad arguments; 65 damaged input or not an Apple Health export; 66 input cannot be read; \
        74 output cannot be written; 130 interrupted.
        """

    static func code(for error: ConversionError) -> ExitCode {
        switch error {
        case .unreadable: return noInput
        case .notAnExport, .malformedXML, .damagedZip: return dataError
        case .output: return ioError
        case .interrupted: return interrupted
        }
    }
}
