public import CloudSyncModel
/// What `cloudsync inspect` prints (as text, or as JSON with `--json`).
public struct InspectReport: Sendable, Codable {
    public struct DTD: Sendable, Codable {
        public var present: Bool
        public var broken: Bool
        public var defects: [String]
    }

    public var input: String
    public var entry: String?
    public var exportVersion: Int?
    public var locale: String?
    public var exportDate: String?
    /// Samples dated after `exportDate`: kept (see `SamplesAfterExport`).
    public var samplesAfterExport = SamplesAfterExport()
    public var xmlBytes: Int64
    public var elements: [String: Int]
    public var metrics: Int
    public var metricsByType: [String: Int]
    public var firstStart: String?
    public var lastEnd: String?
    public var sources: [String: Int]
    public var devices: [String: Int]
    public var unrecognisedUnits: [String: Int]
    public var invalidRecords: [String: Int]
    public var invalidByType: [String: Int]
    public var dtd: DTD
    public var controlCharactersReplaced: Int
    public var attributeNamesRepaired = 0
    public var me: [String: String]?
    /// The archive's files by what they are: a kind's name (`routes`, `ecg`, …), `export`, `cda`, `other`.
    public var files: [String: Int] = [:]
    /// Why the export could not be read to its end (then everything above covers what came before).
    public var damage: String?
    /// The records of each kind read from the archive (routes and their points, ECGs and their
    /// samples, beat series, correlations, clinical records, …), by `RecordKind.name`.
    public var records: [String: RecordCount] = [:]
    /// The same in words, in the kinds' order ("2 routes (45 points)"), and what the kinds noted.
    public var recordsRead: [String] = []
    public var notes: [String] = []
    /// Entries of no kind cloudsync knows, and entries that could not be read (skipped).
    public var unrecognisedEntries: [String] = []
    public var damagedEntries: [EntryDamage] = []

    /// Adds what the whole-archive pass found.
    public mutating func add(_ archive: ArchiveConverter.Report) {
        records = archive.records
        recordsRead = archive.kinds.filter { archive.count($0).records > 0 }.compactMap { archive.described[$0] }
        notes = archive.notes
        files = archive.files
        unrecognisedEntries = archive.unrecognised
        damagedEntries = archive.damaged
    }

    /// A readable multi-line summary.
    public var text: String {
        var lines: [String] = []
        func section(_ title: String, _ counts: [String: Int]) {
            guard !counts.isEmpty else { return }
            lines.append("\(title):")
            for (key, count) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                lines.append("  \(String(count).leftPadded(10))  \(key)")
            }
        }
        lines.append("input:          \(input)" + (entry.map { " (\($0))" } ?? ""))
        if let damage { lines.append("DAMAGED:        \(damage); what follows covers what came before it") }
        lines.append("export version: \(exportVersion.map(String.init) ?? "unknown")")
        lines.append("locale:         \(locale ?? "unknown")")
        lines.append("exported:       \(exportDate ?? "unknown")")
        lines.append("XML size:       \(xmlBytes) bytes")
        lines.append("metrics:        \(metrics)")
        lines.append("date range:     \(firstStart ?? "-") … \(lastEnd ?? "-")")
        if let note = samplesAfterExport.note { lines.append("AFTER EXPORT:   \(note)") }
        let dtdState = !dtd.present ? "none" : dtd.broken ? "broken (\(dtd.defects.joined(separator: "; "))), ignored" : "sound, ignored"
        lines.append("DTD:            \(dtdState)")
        if controlCharactersReplaced > 0 { lines.append("forbidden control characters replaced: \(controlCharactersReplaced)") }
        if attributeNamesRepaired > 0 { lines.append("spaces inside attribute names (iOS 8): \(attributeNamesRepaired)") }
        section("elements", elements)
        section("metrics by type", metricsByType)
        section("sources", sources)
        section("devices", devices)
        section("unrecognised units (kept as written)", unrecognisedUnits)
        section("invalid records (skipped)", invalidRecords)
        section("invalid records by type", invalidByType)
        section("files in the archive", files)
        if !recordsRead.isEmpty {
            lines.append("read from the archive:")
            for line in recordsRead { lines.append("  \(line)") }
            for note in notes { lines.append("  \(note)") }
        }
        if !unrecognisedEntries.isEmpty {
            lines.append("entries not recognised (\(unrecognisedEntries.count)):")
            for entry in unrecognisedEntries.prefix(20) { lines.append("  \(entry)") }
            if unrecognisedEntries.count > 20 { lines.append("  … and \(unrecognisedEntries.count - 20) more") }
        }
        if !damagedEntries.isEmpty {
            lines.append("damaged entries, skipped (\(damagedEntries.count)):")
            for damage in damagedEntries { lines.append("  \(damage.entry): \(damage.problem)") }
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// Right-aligned in `width` columns (for the text tables of `inspect`, `status`, `aggregate`).
    public func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
