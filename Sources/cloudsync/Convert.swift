import ArgumentParser
import CloudSyncModel
import CloudSyncInputs
import Foundation

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert an export to HealthMetric JSONL, CSV or CloudCare batches; or its other records.",
        usage: """
            cloudsync convert INPUT
                     [--kind metrics|KIND]
                     [--format jsonl|csv|cloudcare|geojson] [--output PATH] [--force]
                     [--batch-size N] [--user-id UUID] [--device-id UUID]
                     [--types T,…] [--since DATE] [--until DATE] [--quiet]
            """,
        discussion: """
            INPUT is an export.zip, an export.xml, or - for standard input (zip or XML). Records that cannot \
            be valid metrics are skipped and counted on stderr; the run still succeeds. INPUT may also be \
            Health Auto Export's JSON (HealthAutoExport-….json, or a folder of them): its metrics and workouts \
            in the same formats, its workout routes with --kind routes.

            \(recordKindsHelp)

            Examples:
              cloudsync convert export.zip > metrics.jsonl
              cloudsync convert export.zip --types heartRate --since 2024-01-01
              cloudsync convert export.zip --format cloudcare --output batches/
              cloudsync convert export.zip --kind routes --format geojson > routes.json
              cloudsync convert export.zip --kind ecg > ecg.jsonl
              cloudsync convert export.zip --kind clinical > clinical.jsonl
              cloudsync convert HealthAutoExport-2024-11-02.json --format csv > phone.csv

            \(ExitStatus.help([ExitStatus.successSkipping, ExitStatus.badArguments, ExitStatus.damagedInput,
                               ExitStatus.unreadableInput, ExitStatus.cannotCreateFolder, ExitStatus.unwritableOutput,
                               ExitStatus.interruptedRun]))
            """
    )

    @Argument(help: "export.zip, export.xml, - for standard input, or Health Auto Export's JSON (a file, or a folder of them).")
    var input: String

    @OptionGroup var outputs: OutputOptions

    @Option(help: "cloudcare: the userId (a UUID; default: a new one).")
    var userId: String?

    @Option(help: "cloudcare: the deviceId (a UUID; default: a new one).")
    var deviceId: String?

    @OptionGroup var filters: FilterOptions

    @Flag(name: .shortAndLong, help: "No summary on stderr unless records were skipped.")
    var quiet = false

    func validate() throws {
        for (name, value) in [("--user-id", userId), ("--device-id", deviceId)] {
            if let value, UUID(uuidString: value) == nil { throw ValidationError("\(name) '\(value)' is not a UUID") }
        }
    }

    func run() throws {
        try checkStandardInput(input, command: "convert")
        var files = SameFileGuard(command: "convert")
        files.input(input)
        try outputs.check(files)
        let filter = try filters.makeFilter()
        let documents: [String]?
        if case .healthAutoExport(let files) = NamedInput(input) { documents = files } else { documents = nil }
        if let kind = outputs.recordKind {
            let records: any RecordSink
            do { records = try outputs.makeRecordSink(kind) } catch { throw ExitStatus.report(error) }
            if let documents {
                try runDocuments(documents, filter: filter, metrics: DiscardingSink(), records: records, quiet: quiet, kind: kind)
            } else {
                try runArchive(input: input, filter: filter, metrics: DiscardingSink(), records: records, kinds: [kind], quiet: quiet)
            }
            return
        }
        let sink: any MetricSink
        do {
            sink = try outputs.makeSink {
                CloudCareIdentity(userId: userId ?? UUID().uuidString, deviceId: deviceId ?? UUID().uuidString)
            }
        } catch {
            throw ExitStatus.report(error)
        }
        if let documents {
            try runDocuments(documents, filter: filter, metrics: sink, records: CountingRecordSink(), quiet: quiet)
        } else {
            try runConversion(input: input, filter: filter, sink: sink, quiet: quiet)
        }
    }
}
