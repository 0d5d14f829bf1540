import ArgumentParser
import Foundation

/// The server token: `$CLOUDSYNC_TOKEN` or `--token-file FILE`, never a command-line value (which
/// every user of the machine could read in the process list).
struct TokenOptions: ParsableArguments {
    @Option(help: "A file holding the token (default: $CLOUDSYNC_TOKEN).")
    var tokenFile: String?

    /// A token file that cannot be read (66) or is empty (64) is caught here, before anything runs,
    /// and said in a sentence: the file is the problem, not the command line, so no usage follows.
    func validate() throws { _ = try token() }

    func token() throws -> String? {
        if let tokenFile {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                printError("cannot read the token file \(tokenFile): \(String(cString: strerror(errno)))")
                throw ExitStatus.noInput
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else {
                printError("the token file \(tokenFile) is empty: put the token in it, on one line")
                throw ExitStatus.usage
            }
            return token
        }
        let environment = ProcessInfo.processInfo.environment["CLOUDSYNC_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines)
        return environment?.isEmpty == false ? environment : nil
    }
}
