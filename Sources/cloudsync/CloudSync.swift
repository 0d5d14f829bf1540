import ArgumentParser
import CloudSyncModel
import Foundation

@main
struct CloudSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudsync",
        abstract: "Turn an Apple Health export into clean, normalised HealthMetric data.",
        discussion: """
            Start with: cloudsync convert export.zip > metrics.jsonl

            Each command lists its exit codes in its help (cloudsync help COMMAND); \
            the README has the whole table.
            """,
        version: "0.1.0",
        subcommands: [Convert.self, Inspect.self, Import.self, Status.self, Export.self, Aggregate.self, Upload.self, Serve.self, Pair.self, Mcp.self, Report.self]
    )

    /// Catches two mistakes ArgumentParser lets through: no command at all (which would print the
    /// help and exit 0, so a script would not notice), and a misspelt command (which gets a bare
    /// "unexpected argument" with the root usage instead of the command meant).
    static func main() async {
        StopSignal.unblock()
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let first = arguments.first else {
            FileHandle.standardError.write(Data((helpMessage() + "\n").utf8))
            printError("no command given: see the list above")
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        if !first.hasPrefix("-") && !names.contains(first) {
            var message = "'\(first)' is not a cloudsync command"
            if let guess = names.min(by: { distance(first, $0) < distance(first, $1) }), distance(first, guess) <= max(2, first.count / 3) {
                message += "; did you mean '\(guess)'?"
            }
            printError(message + " (commands: \(names.dropLast().joined(separator: ", ")); see 'cloudsync --help')")
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    private static func distance(_ a: String, _ b: String) -> Int { EditDistance.between(a, b) }
}
