import ArgumentParser
import Foundation

/// The server token: `$CLOUDSYNC_TOKEN` or `--token-file FILE`, never a command-line value (which
/// every user of the machine could read in the process list).
struct TokenOptions: ParsableArguments {
    @Option(help: "A file holding the token (default: $CLOUDSYNC_TOKEN).")
    var tokenFile: String?

    /// A token file that cannot be read or is empty is a mistake in the command line: caught here,
    /// with the command's usage, before anything runs.
    func validate() throws { _ = try token() }

    func token() throws -> String? {
        if let tokenFile {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw ValidationError("cannot read the token file \(tokenFile)")
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw ValidationError("the token file \(tokenFile) is empty") }
            return token
        }
        let environment = ProcessInfo.processInfo.environment["CLOUDSYNC_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines)
        return environment?.isEmpty == false ? environment : nil
    }
}
