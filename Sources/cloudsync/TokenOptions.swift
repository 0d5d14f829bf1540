import ArgumentParser
import Foundation

/// The server token: `$CLOUDSYNC_TOKEN` or `--token-file FILE`, never a command-line value (which
/// every user of the machine could read in the process list).
struct TokenOptions: ParsableArguments {
    @Option(help: "A file holding the token (default: $CLOUDSYNC_TOKEN).")
    var tokenFile: String?

    /// A token file that cannot be read or is empty is a mistake in what the command was given:
    /// caught here, before anything runs, said in a sentence that names the file and the command's
    /// help (64), without the whole usage, which says nothing of the file.
    func validate() throws { _ = try token() }

    func token() throws -> String? {
        if let tokenFile {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw usageError("cannot read the token file \(tokenFile): \(String(cString: strerror(errno)))", command: Self.command)
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else {
                throw usageError("the token file \(tokenFile) is empty: put the token in it, on one line", command: Self.command)
            }
            return token
        }
        let environment = ProcessInfo.processInfo.environment["CLOUDSYNC_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines)
        return environment?.isEmpty == false ? environment : nil
    }

    /// The command these options are of (`upload`, `pair`, `serve`): its first word.
    static var command: String { CommandLine.arguments.dropFirst().first { !$0.hasPrefix("-") } ?? "cloudsync" }
}
