import ArgumentParser
import CloudSyncKinds
import CloudSyncModel
import Foundation

/// `--kind`, `--format`, `--output`, `--batch-size` and `--force`, shared by `convert` and `export`:
/// the one place where the kind of record and the output format are chosen and the sink made.
struct OutputOptions: ParsableArguments {
    enum Format: String, CaseInsensitiveArgument, CaseIterable {
        case jsonl, csv, cloudcare, geojson
    }

    @Option(help: ArgumentHelp("metrics (HealthMetric, the default), or another kind of record: \(RecordKinds.names.joined(separator: ", ")) (see --help's discussion).",
                               valueName: "kind"))
    var kind = "metrics"

    @Option(help: "jsonl (one record per line), csv (RFC 4180 with a header: every kind), cloudcare (metrics: HealthDataExport envelopes) or geojson (routes: one FeatureCollection).")
    var format: Format = .jsonl

    @Option(name: .shortAndLong,
            help: "jsonl, geojson, csv: a file (csv of metrics: a folder, one file per type, when the path ends with / or is a folder); - is standard output. cloudcare: an empty or new folder for batch-000001.json, … (default: standard output).")
    var output: String?

    @Option(help: "cloudcare: metrics per envelope.")
    var batchSize = 1000

    @Flag(help: "cloudcare, csv into a folder: replace the files that an earlier run left in the --output folder.")
    var force = false

    /// The kind of record asked for; nil for metrics.
    var recordKind: (any ArchiveRecordKind.Type)? { RecordKinds.named(kind.lowercased()) }

    func validate() throws {
        guard kind.lowercased() == "metrics" || recordKind != nil else {
            let names = ["metrics"] + RecordKinds.names
            // A name begun (`vision`, `clin`) is meant; else the nearest by spelling.
            let begun = kind.count >= 3 ? names.filter { $0.hasPrefix(kind.lowercased()) } : []
            let guess = begun.count == 1 ? begun.first : names.min { EditDistance.between(kind, $0) < EditDistance.between(kind, $1) }
                .flatMap { EditDistance.between(kind, $0) <= max(2, kind.count / 3) ? $0 : nil }
            throw ValidationError("--kind '\(kind)' is not a kind" + (guess.map { "; did you mean \($0)?" } ?? "")
                                  + " (\(names.joined(separator: ", ")))")
        }
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
        if format == .cloudcare && batchSize > CloudCareContract.maximumBatchSize {
            throw ValidationError("--batch-size \(batchSize): the CloudCare contract takes at most \(CloudCareContract.maximumBatchSize) metrics per envelope")
        }
        if format == .cloudcare && kind != "metrics" { throw ValidationError("--format cloudcare is for --kind metrics") }
        if format == .geojson && kind != RouteKind.name { throw ValidationError("--format geojson is for --kind routes") }
    }

    /// The metrics sink for the chosen format; `identity` is asked only for CloudCare batches.
    func makeSink(identity: () throws -> CloudCareIdentity) throws -> any MetricSink {
        switch format {
        case .jsonl, .geojson:
            return JSONLinesSink(output: try outputFile())
        case .csv:
            if let output, Self.isFolder(output) { return try MetricCSVFolderSink(folder: output, replacing: force) }
            return MetricCSVSink(output: try outputFile())
        case .cloudcare:
            let destination: CloudCareBatchWriter.Destination = output.map { .directory($0, replacing: force) } ?? .standardOutput
            return try CloudCareBatchWriter(identity: try identity(), batchSize: batchSize, destination: destination)
        }
    }

    /// The sink of the records of `kind` for the chosen format.
    func makeRecordSink(_ kind: any ArchiveRecordKind.Type) throws -> any RecordSink {
        let file = try outputFile()
        switch format {
        case .geojson: return GeoJSONSink(output: file)
        case .csv: return RecordCSVSink(output: file, columns: kind.csvColumns)
        case .jsonl, .cloudcare: return RecordLinesSink(output: file)
        }
    }

    /// Refuses an `--output` (or standard output) that is one of `files` (an input, the store).
    func check(_ files: SameFileGuard) throws {
        guard let output, output != "-" else { return try files.standardOutput() }
        if format == .cloudcare {
            try files.folder(output, option: "--output", isOurs: OutputFolder.isBatchFile)
        } else if format == .csv && recordKind == nil && Self.isFolder(output) {
            try files.folder(output, option: "--output", isOurs: { $0.hasSuffix(".csv") })
        } else {
            try files.output(output, option: "--output")
        }
    }

    /// `--output` names a folder when it ends with `/` or is one already.
    static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return path.hasSuffix("/") || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    func outputFile() throws -> OutputFile {
        guard let output, output != "-" else { return .standardOutput() }
        return try OutputFile.create(output)
    }
}
