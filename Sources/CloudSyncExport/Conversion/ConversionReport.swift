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
        if controlCharactersReplaced > 0 { line += "; \(counted(controlCharactersReplaced, "forbidden control character")) replaced by spaces" }
        if attributeNamesRepaired > 0 { line += "; \(counted(attributeNamesRepaired, "space")) inside attribute names read as part of the name (an iOS 8 export)" }
        return line
    }
}

import CloudSyncArchive
import CloudSyncModel
import Foundation
