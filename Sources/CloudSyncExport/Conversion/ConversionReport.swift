/// What a conversion did: written, filtered and skipped counts, and facts of the export.
public struct ConversionReport: Sendable, Codable {
    public var input: String
    /// The zip entry that held the export, for zip inputs.
    public var entry: String?
    public var otherFiles: [String] = []
    public var metrics = 0
    public var filteredOut = 0
    /// Skipped records by reason, with the line of the first one.
    public var invalid: [String: Int] = [:]
    public var firstInvalidLine: [String: Int] = [:]
    public var locale: String?
    public var exportDate: String?
    /// `<Me>`'s characteristics, by attribute name.
    public var profile: [String: String]?
    /// Samples that start after the export was made (a clock set wrong, an app's typo): kept, and
    /// said, with the first one's line and the range of their dates.
    public var samplesAfterExport = SamplesAfterExport()
    public var exportVersion: Int?
    public var dtdDefects: [String] = []
    public var hadDoctype = false
    public var controlCharactersReplaced = 0
    /// Attribute names with spaces (iOS 8 metadata keys) that were repaired.
    public var attributeNamesRepaired = 0
    public var xmlBytes: Int64 = 0
    /// Elements seen, nested ones included, by name.
    public var elementCounts: [String: Int] = [:]
    public var seconds = 0.0

    public var invalidCount: Int { invalid.values.reduce(0, +) }

    /// What the export says of itself, for the sinks that keep it (the store).
    public var facts: InputFacts {
        InputFacts(exportDate: exportDate, exportVersion: exportVersion, locale: locale, profile: profile)
    }

    /// One line for stderr at the end of a run.
    public var summary: String {
        var line = "cloudsync: \(counted(metrics, "metric")) from \(input)"
        if let entry { line += " (\(entry))" }
        line += String(format: " in %.1f s", seconds)
        if filteredOut > 0 { line += "; \(filteredOut) filtered out" }
        if invalidCount > 0 {
            let reasons = invalid.sorted { $0.key < $1.key }
                .map { "\($0.value) \($0.key) (first at line \(firstInvalidLine[$0.key] ?? 0))" }
            line += "; skipped \(counted(invalidCount, "invalid record")): " + reasons.joined(separator: ", ")
        }
        if let note = samplesAfterExport.note { line += "; \(note)" }
        if controlCharactersReplaced > 0 { line += "; \(counted(controlCharactersReplaced, "forbidden control character")) replaced by spaces" }
        if attributeNamesRepaired > 0 { line += "; \(counted(attributeNamesRepaired, "space")) inside attribute names read as part of the name (an iOS 8 export)" }
        return line
    }
}

/// The samples dated after the export's `ExportDate`.
public struct SamplesAfterExport: Sendable, Codable, Equatable {
    public var count = 0
    public var firstLine: Int?
    /// The earliest and latest start among them, seconds since 1970 UTC.
    public var earliest: Int64?
    public var latest: Int64?

    public init() {}

    mutating func add(start: Int64, line: Int) {
        count += 1
        if firstLine == nil { firstLine = line }
        earliest = Swift.min(earliest ?? start, start)
        latest = Swift.max(latest ?? start, start)
    }

    /// "2 samples dated after the export (2030-03-03 … 2030-04-18, first at line 1234), kept".
    public var note: String? {
        guard count > 0, let earliest, let latest else { return nil }
        let range = earliest == latest ? String(UTCDateFormatter.string(earliest).prefix(10))
            : "\(UTCDateFormatter.string(earliest).prefix(10)) … \(UTCDateFormatter.string(latest).prefix(10))"
        return "\(counted(count, "sample")) dated after the export (\(range), first at line \(firstLine ?? 0)), kept"
    }
}

public import CloudSyncModel
import Foundation
