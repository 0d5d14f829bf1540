import ArgumentParser
import CloudSyncMCP
import CloudSyncStore
import Foundation

struct Mcp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Answer an assistant's questions about the store: an MCP server over standard input and output.",
        usage: """
            cloudsync mcp [--store PATH]
            """,
        discussion: """
            Speaks the Model Context Protocol on stdin/stdout (logs and errors go to stderr). The store is \
            opened read-only: an import may run meanwhile, and the answers include what it committed. \
            Tools: overview, series, compare_periods, sleep, workouts, workout_route, ecg, records, sql \
            (see docs/mcp.md).

            Register it with Claude Code:
              claude mcp add cloudsync -- cloudsync mcp

            \(ExitStatus.help([ExitStatus.success, ExitStatus.badArguments, ExitStatus.notAStore, ExitStatus.missingStore, ExitStatus.damagedStore]))
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        // Opened once the usual way first: a missing or damaged store is said plainly, and a store of
        // an older schema is brought up to date as every reading command does.
        _ = try storeOptions.open(.read)
        do {
            try await HealthServer.run(store: storeOptions.address, version: CloudSync.configuration.version)
        } catch {
            throw ExitStatus.report(error)
        }
    }
}
