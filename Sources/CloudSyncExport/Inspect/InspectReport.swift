import CloudSyncArchive
import CloudSyncModel
/// What `cloudsync inspect` prints (as text, or as JSON with `--json`).
public struct InspectReport: Sendable, Codable {
    public struct DTD: Sendable, Codable {
        public var present: Bool
        public var broken: Bool
        public var defects: [String]
    }

    /// The zip's other files, by kind.
    public struct OtherFiles: Sendable, Codable {
        public var workoutRoutes: [String] = []
        public var electrocardiograms: [String] = []
        public var clinicalRecords: [String] = []
        public var cda: [String] = []
        public var other: [String] = []

        init(_ paths: [String]) {
            for path in paths {
                let lower = path.lowercased()
                if lower.contains("workout-routes/") { workoutRoutes.append(path) }
                else if lower.contains("electrocardiograms/") { electrocardiograms.append(path) }
                else if lower.contains("clinical-records/") { clinicalRecords.append(path) }
                else if lower.hasSuffix("export_cda.xml") { cda.append(path) }
                else { other.append(path) }
            }
        }
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
    public var otherFiles: OtherFiles
    /// Why the export could not be read to its end (then everything above covers what came before).
    public var damage: String?
    /// The archive's other entries, read: routes and their points, ECGs and their samples.
    public var routes = 0
    public var routePoints = 0
    public var ecgs = 0
    public var ecgSamples = 0
    /// What export.xml holds besides metrics: HRV beat series (and their beats), correlations.
    public var beatSeries = 0
    public var beats = 0
    public var correlations = 0
    /// Clinical records, and those without their FHIR resource (file missing or damaged).
    public var clinicalRecords = 0
    public var clinicalRecordsWithoutResource = 0
    /// Entries of no kind cloudsync knows, and entries that could not be read (skipped).
    public var unrecognisedEntries: [String] = []
    public var damagedEntries: [EntryDamage] = []

    /// Adds what the whole-archive pass found.
    public mutating func add(_ archive: ArchiveConverter.Report) {
        routes = archive.routes
        routePoints = archive.routePoints
        ecgs = archive.ecgs
        ecgSamples = archive.ecgSamples
        beatSeries = archive.beatSeries
        beats = archive.beats
        correlations = archive.correlations
        clinicalRecords = archive.clinicalRecords
        clinicalRecordsWithoutResource = archive.clinicalRecordsWithoutResource
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
        let files = ["workout routes": otherFiles.workoutRoutes.count, "electrocardiograms": otherFiles.electrocardiograms.count,
                     "clinical records": otherFiles.clinicalRecords.count, "export_cda.xml": otherFiles.cda.count,
                     "other": otherFiles.other.count].filter { $0.value > 0 }
        section("other files in the zip", files)
        if routes + ecgs + beatSeries + correlations + clinicalRecords > 0 {
            lines.append("read from the archive:")
            if beatSeries > 0 { lines.append("  \(String(beatSeries).leftPadded(10))  HRV beat series (\(counted(beats, "beat")))") }
            if correlations > 0 { lines.append("  \(String(correlations).leftPadded(10))  \(correlations == 1 ? "correlation" : "correlations")") }
            if routes > 0 { lines.append("  \(String(routes).leftPadded(10))  \(routes == 1 ? "workout route" : "workout routes") (\(counted(routePoints, "point")))") }
            if ecgs > 0 { lines.append("  \(String(ecgs).leftPadded(10))  \(ecgs == 1 ? "ECG" : "ECGs") (\(counted(ecgSamples, "sample")))") }
            if clinicalRecords > 0 {
                let missing = clinicalRecordsWithoutResource > 0 ? ", \(clinicalRecordsWithoutResource) without their resource" : ""
                lines.append("  \(String(clinicalRecords).leftPadded(10))  \(clinicalRecords == 1 ? "clinical record" : "clinical records")\(missing)")
            }
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
