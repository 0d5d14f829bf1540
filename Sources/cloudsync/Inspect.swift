import ArgumentParser
import CloudSyncCore
import Foundation

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe an export: version, locale, counts per element and type, date range, sources, problems.",
        discussion: """
            Streams the whole export (flat memory, about the speed of convert) and prints a summary on \
            standard output; --json prints it as one JSON object.

            Example:
              cloudsync inspect export.zip --json | jq .metricsByType

            \(ExitStatus.helpText)
            """
    )

    @Argument(help: "export.zip, export.xml, or - for standard input.")
    var input: String

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func run() throws {
        let inspector = ExportInspector()
        let conversion = try runConversion(input: input, filter: .all, sink: inspector, quiet: true, observer: inspector)
        let report = inspector.report(conversion)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            FileHandle.standardOutput.write(try encoder.encode(report))
            FileHandle.standardOutput.write("\n".data(using: .utf8)!)
        } else {
            print(report.text)
        }
    }
}
