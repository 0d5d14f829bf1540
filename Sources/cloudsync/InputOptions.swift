import ArgumentParser
import CloudSyncCore
import Foundation

/// The input and the filters shared by `convert`, `inspect` and (later) `import`.
struct FilterOptions: ParsableArguments {
    @Option(name: .long, parsing: .upToNextOption,
            help: "Keep only these types: identifiers (HKQuantityTypeIdentifierHeartRate) or short names (heartRate, sleepAnalysis, workout), comma- or space-separated.")
    var types: [String] = []

    @Option(help: "Keep metrics starting at or after this date (2024-01-01, 2024-01-01T08:00:00Z or 2024-01-01 08:00:00 +0100).")
    var since: String?

    @Option(help: "Keep metrics starting before this date (same forms as --since).")
    var until: String?

    func makeFilter() throws -> MetricFilter {
        let names = types.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return MetricFilter(types: names.isEmpty ? nil : names,
                            since: try since.map { try Self.parseDate($0, option: "--since") },
                            until: try until.map { try Self.parseDate($0, option: "--until") })
    }

    static func parseDate(_ text: String, option: String) throws -> Int64 {
        var copy = text
        let seconds = copy.withUTF8 { bytes in
            bytes.count == 10 ? ExportDateParser.dayStartSeconds(bytes) : ExportDateParser.epochSeconds(bytes)
        }
        guard let seconds else {
            throw ValidationError("\(option) '\(text)' is not a date: use 2024-01-01 or 2024-01-01T08:00:00Z")
        }
        return seconds
    }
}

/// Progress on stderr, only when stderr is a terminal.
struct ProgressLine {
    let enabled = isatty(STDERR_FILENO) == 1

    func show(_ progress: ExportConverter.Progress) {
        guard enabled else { return }
        let rate = progress.seconds > 0 ? Double(progress.metrics) / progress.seconds : 0
        FileHandle.standardError.write(String(format: "\r%12d metrics  %12d elements  %9.0f metrics/s ", progress.metrics, progress.elements, rate).data(using: .utf8)!)
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!)
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write("cloudsync: \(message)\n".data(using: .utf8)!)
}
