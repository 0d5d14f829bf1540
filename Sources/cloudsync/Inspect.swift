import ArgumentParser
import CloudSyncExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncInputs
import Foundation

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Describe an export: version, locale, counts per element and type, date range, sources, problems.",
        usage: """
            cloudsync inspect INPUT [--json]
            """,
        discussion: """
            Streams the whole archive (flat memory, about the speed of convert): export.xml, the workout \
            routes and the ECGs, and prints a summary on \
            standard output; --json prints it as one JSON object. A damaged export is described up to \
            the damage (marked as such), then the error goes to stderr.

            Example:
              cloudsync inspect export.zip --json | jq .metricsByType

            \(ExitStatus.help([ExitStatus.success, ExitStatus.badArguments, ExitStatus.damagedInput,
                               ExitStatus.unreadableInput, ExitStatus.interruptedRun]))
            """
    )

    @Argument(help: "export.zip, export.xml, - for standard input, or Health Auto Export's JSON (a file or a folder).")
    var input: String

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func run() throws {
        try checkStandardInput(input, command: "inspect")
        var files = SameFileGuard(command: "inspect")
        files.input(input)
        try files.standardOutput()
        if case .healthAutoExport(let files) = NamedInput(input), !files.isEmpty {
            try inspectHealthAutoExport(files)
            return
        }
        let inspector = ExportInspector()
        let archive = try runArchive(input: input, filter: .all, metrics: inspector, records: CountingRecordSink(),
                                     kinds: RecordKinds.all, quiet: true, observer: inspector) { partial, error in
            // Damage inside an export: describe what came before it. (Other errors leave nothing to describe.)
            switch error {
            case .malformedXML, .damagedZip: break
            default: return
            }
            var report = inspector.report(partial.conversion)
            report.add(partial)
            report.damage = error.description
            // The damage is the error to report; a failed write of the description says so itself.
            try? write(report)
        }
        var report = inspector.report(archive.conversion)
        report.add(archive)
        try write(report)
    }

    private func write(_ report: InspectReport) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            try StandardOutput.write(try encoder.encode(report) + Data("\n".utf8))
        } else {
            try StandardOutput.write(report.text + "\n")
        }
    }
}
