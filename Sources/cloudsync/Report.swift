import ArgumentParser
import CloudSyncReport
import CloudSyncStore
import CloudSyncModel
import Foundation

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write one self-contained HTML page of charts, tables, routes and ECGs from the store.",
        usage: """
            cloudsync report [--store PATH] [--since DATE] [--until DATE]
                     [--tz ZONE] [--output report.html]
            """,
        discussion: """
            The page opens offline in any browser: inline CSS and SVG, no script, nothing fetched from the \
            network. Sections (each only when the store has the data): overview, activity (daily steps with \
            iPhone and Watch merged, a 7-day average and a calendar; active energy and exercise against their \
            goals), heart, sleep, body, workouts with their routes, ECGs. Each chart has the numbers behind it \
            in a table. See docs/report.md.

            Example:
              cloudsync report --tz Europe/Paris --since 2024-01-01 --output 2024.html

            \(ExitStatus.help([ExitStatus.success, ExitStatus.badArguments, ExitStatus.notAStore, ExitStatus.missingStore, ExitStatus.damagedStore,
                               ExitStatus.unwritableOutput]))
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Samples starting at or after this date: 2024-01-01 (midnight in --tz), 2024-01-01T08:00:00Z or 2024-01-01 08:00:00 +0100.")
    var since: String?

    @Option(help: "Samples starting before this date (same forms as --since).")
    var until: String?

    @Option(help: "Time zone of the days, nights and months, an IANA name like Europe/Paris (default UTC).")
    var tz: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the page (- for standard output).", valueName: "file"))
    var output = "report.html"

    func validate() throws {
        _ = try ZoneName.resolve(tz)
        let start = try bound(since, option: "--since"), end = try bound(until, option: "--until")
        if let start, let end, start >= end { throw ValidationError("--since (\(since!)) is not before --until (\(until!))") }
    }

    func run() throws {
        var files = SameFileGuard(command: "report")
        files.store(storeOptions.path)
        if output == "-" { try files.standardOutput() } else { try files.output(output, option: "--output") }
        let store = try storeOptions.open(.read)
        let html: String
        do {
            html = try HealthReport.html(store: store, since: try bound(since, option: "--since"), until: try bound(until, option: "--until"),
                                         zone: try ZoneName.resolve(tz))
        } catch {
            throw ExitStatus.report(error)
        }
        do {
            let file = output == "-" ? OutputFile.standardOutput() : try OutputFile.create(output)
            file.buffer.append(html)
            try file.finish()
        } catch {
            printError("\(error)")
            throw ExitStatus.ioError
        }
        printError("report: \(output == "-" ? "standard output" : output) (\(html.utf8.count / 1024) KB)")
    }

    /// A `--since`/`--until` instant; a day alone (`2024-01-01`) is that day's midnight in --tz.
    private func bound(_ text: String?, option: String) throws -> Int64? {
        try text.map { try FilterOptions.parseDate($0, option: option, zone: try ZoneName.resolve(tz)) }
    }
}
