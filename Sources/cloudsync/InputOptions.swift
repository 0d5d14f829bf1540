import ArgumentParser
import CloudSyncExport
import CloudSyncModel
import Foundation

/// `--types`, `--since`, `--until`, shared by the commands that read metrics. Every mistake is
/// caught in `validate()` (so the message comes with the command's own usage), never turned into a
/// run that silently keeps nothing.
struct FilterOptions: ParsableArguments {
    @Option(name: .long,
            help: ArgumentHelp("Keep only these types: short names (heartRate, stepCount, sleepAnalysis, workout) or identifiers (HKQuantityTypeIdentifierHeartRate), separated by commas or spaces; the option can be repeated.",
                               valueName: "types"))
    var types: [String] = []

    @Option(help: "Keep metrics starting at or after this date: 2024-01-01 (UTC midnight), 2024-01-01T08:00:00Z or 2024-01-01 08:00:00 +0100.")
    var since: String?

    @Option(help: "Keep metrics starting before this date (same forms as --since).")
    var until: String?

    /// The names given to `--types`, split on commas and spaces.
    var typeNames: [String] {
        types.flatMap { $0.split(whereSeparator: { $0 == "," || $0.isWhitespace }) }.map(String.init)
    }

    func validate() throws {
        for name in typeNames {
            let short = MetricFilter.shortName(name)
            guard !KnownTypes.isKnown(short) else { continue }
            let suggestions = KnownTypes.closest(to: short)
            let looksLikeIdentifier = name.hasPrefix("HK") && name.contains("TypeIdentifier")
            if looksLikeIdentifier && !suggestions.contains(where: { $0.lowercased() == short.lowercased() }) {
                // An identifier Apple added after this release: keep it, but say so.
                printError("warning: --types \(name) is not a type this cloudsync knows; it is kept as given")
                continue
            }
            var message = "--types: '\(name)' is not a type"
            if !suggestions.isEmpty { message += "; did you mean \(suggestions.joined(separator: ", "))?" }
            message += " (names are case-sensitive: heartRate, stepCount, sleepAnalysis, workout)"
            throw ValidationError(message)
        }
        let start = try since.map { try Self.parseDate($0, option: "--since") }
        let end = try until.map { try Self.parseDate($0, option: "--until") }
        if let start, let end, start >= end {
            throw ValidationError("--since (\(since!)) is not before --until (\(until!)): no metric could match")
        }
    }

    func makeFilter() throws -> MetricFilter {
        let names = typeNames
        return MetricFilter(types: names.isEmpty ? nil : names,
                            since: try since.map { try Self.parseDate($0, option: "--since") },
                            until: try until.map { try Self.parseDate($0, option: "--until") })
    }

    static let dateForms = "2024-01-01 (UTC midnight), 2024-01-01T08:00:00Z or 2024-01-01 08:00:00 +0100"

    static func parseDate(_ text: String, option: String) throws -> Int64 {
        var copy = text
        let seconds = copy.withUTF8 { bytes in
            bytes.count == 10 ? ExportDateParser.dayStartSeconds(bytes) : ExportDateParser.epochSeconds(bytes)
        }
        var day = String(text.prefix(10))
        if text.count > 10 && !hasZone(text), day.withUTF8({ ExportDateParser.dayStartSeconds($0) }) != nil {
            throw ValidationError("\(option) '\(text)' has no time zone: add Z for UTC or an offset (2024-01-01T08:00:00+01:00, 2024-01-01 08:00:00 +0100)")
        }
        guard let seconds else {
            throw ValidationError("\(option) '\(text)' is not a date: use \(dateForms)")
        }
        return seconds
    }

    /// True when a date-time ends with `Z` or carries a `+hh`/`-hh` offset after the time.
    private static func hasZone(_ text: String) -> Bool {
        let time = text.dropFirst(11)
        return text.hasSuffix("Z") || text.hasSuffix("z") || time.contains("+") || time.contains("-")
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("cloudsync: \(message)\n".utf8))
}
