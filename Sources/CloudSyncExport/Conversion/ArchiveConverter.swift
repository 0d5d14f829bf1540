import CloudSyncArchive
import CloudSyncModel
import Foundation

/// Reads the whole export archive: export.xml's metrics through `ExportConverter` (today's fast
/// path, unchanged), and the other entries' records — routes (GPX, and the inline `Location`s of
/// older exports), ECGs and clinical records' FHIR resources — each through its reader, routes
/// linked to their workouts, resources joined to export.xml's `ClinicalRecord`s.
///
/// Order: a seekable zip is read in one pass over what it needs: export.xml first (the workouts),
/// then the wanted entries in the directory's order. A zip from a pipe is read in archive order;
/// entries that come before (or after) export.xml are decoded as they pass and kept in a spill,
/// then linked and written once export.xml has been read. A damaged entry is reported and skipped.
public final class ArchiveConverter {
    /// What a whole-archive run did.
    public struct Report: Sendable {
        public var conversion: ConversionReport
        public var routes = 0
        public var routePoints = 0
        public var ecgs = 0
        public var ecgSamples = 0
        /// HRV records' beat-to-beat series, their beats, and beats skipped (a time that does not parse).
        public var beatSeries = 0
        public var beats = 0
        public var beatsSkipped = 0
        /// Correlations written, and those without a member with a value (reported, skipped).
        public var correlations = 0
        public var correlationsWithoutMembers = 0
        /// Clinical records written, and those among them without their resource (file missing or damaged).
        public var clinicalRecords = 0
        public var clinicalRecordsWithoutResource = 0
        /// Entries that could not be read, with why; they were skipped.
        public var damaged: [EntryDamage] = []
        /// The archive's entries by kind (export.xml counted once).
        public var entriesByKind: [EntryKind: Int] = [:]
        /// Entries of no known kind.
        public var unrecognised: [String] = []
    }

    private let input: String
    private let filter: MetricFilter
    private let records: any RecordSink
    private let kinds: Set<EntryKind>
    private let converter: ExportConverter
    private let index = WorkoutIndex()
    private let clinical = ClinicalIndex()
    private var report: Report
    /// Also read the beat-to-beat series of export.xml's HRV records (`convert --kind beats`).
    public var readsBeats = false
    /// Also read export.xml's correlations (`convert --kind correlations`).
    public var readsCorrelations = false

    /// - Parameters:
    ///   - metrics: where export.xml's metrics go (a counting sink when only records are wanted).
    ///   - records: where routes and ECGs go.
    ///   - kinds: the entry kinds to read besides export.xml (`.route`, `.ecg`).
    public init(input: String, filter: MetricFilter = .all, metrics: any MetricSink, records: any RecordSink, kinds: Set<EntryKind>) {
        self.input = input
        self.filter = filter
        self.records = records
        self.kinds = kinds
        converter = ExportConverter(input: input, filter: filter, sink: metrics)
        report = Report(conversion: ConversionReport(input: input == "-" ? "standard input" : input))
    }

    public var observer: (any ConversionObserver)? {
        get { converter.observer }
        set { converter.observer = newValue }
    }
    public var onProgress: ((ExportConverter.Progress) -> Void)? {
        get { converter.onProgress }
        set { converter.onProgress = newValue }
    }
    public var shouldStop: @Sendable () -> Bool {
        get { converter.shouldStop }
        set { converter.shouldStop = newValue }
    }

    /// What was read so far (also after an error).
    public var currentReport: Report {
        var current = report
        current.conversion = converter.currentReport
        return current
    }

    @discardableResult
    public func run() throws -> Report {
        // A zip that cannot be read is reported by the conversion below, with its usual message.
        // Standard input redirected from a file (`< export.zip`) is that file: read it as the path.
        let seekable = kinds.isEmpty ? nil : (try? SeekableZip(path: ExportSources.seekablePath(input))) ?? nil
        let clinicalRecords = kinds.contains(.clinicalRecord)
        if kinds.contains(.route) || readsBeats || readsCorrelations || clinicalRecords {
            let routes = kinds.contains(.route), beats = readsBeats, correlations = readsCorrelations
            converter.elementTrees = { [unowned self] tree in
                switch tree.name(tree.root) {
                case .workout where routes:
                    guard case .workout(let workout) = ExportElement(tree) else { return }
                    for route in index.add(workout) { try write(.route(route)) }
                case .record where beats:
                    // Cheap first: only a record with a beat list becomes a typed element.
                    guard tree.nodes.count > 1, tree.nodes.contains(where: { $0.name == .heartRateVariabilityMetadataList }),
                          let (series, skipped) = BeatTimes.series(tree) else { return }
                    report.beatsSkipped += skipped
                    guard filter.acceptsDate(series.startDate) else { return }
                    report.beatSeries += 1
                    report.beats += series.beats.count
                    try records.write(series)
                case .correlation where correlations:
                    guard case .correlation(let element) = ExportElement(tree) else { return }
                    guard let correlation = CorrelationMembers.record(element) else {
                        report.correlationsWithoutMembers += 1
                        return
                    }
                    guard filter.acceptsDate(correlation.startDate) else { return }
                    report.correlations += 1
                    try records.write(correlation)
                case .clinicalRecord where clinicalRecords:
                    guard case .clinicalRecord(let element) = ExportElement(tree) else { return }
                    clinical.add(element)
                default:
                    return
                }
            }
        }
        if seekable == nil && !kinds.isEmpty { converter.streamed = try StreamedEntries(wanted: kinds) }
        report.conversion = try converter.run()
        if let streamed = converter.streamed {
            report.damaged += streamed.damages
            try streamed.spill.replay { try write($0) }
        } else if let seekable {
            try readEntries(of: seekable.directory)
        }
        if clinicalRecords { try writeUnlinkedClinicalRecords() }
        count(entries: report.conversion)
        try records.finish()
        return report
    }

    /// The second part of a seekable zip: each wanted entry, read through its own byte range.
    private func readEntries(of zip: ZipDirectory) throws {
        let inflater = Inflater()
        for entry in zip.entries where !entry.isDirectory {
            if shouldStop() { throw ConversionError.interrupted }
            guard let decoder = EntryDecoder(path: entry.path, wanted: kinds) else { continue }
            do {
                try zip.readChecked(entry, with: inflater) { decoder.consume($0) }
            } catch let error as ConversionError {
                decoder.fail(Self.reason(error))
            }
            switch decoder.finish() {
            case .success(let record): try write(record)
            case .failure(let damage): report.damaged.append(damage)
            }
        }
    }

    /// Links a route to its workout, applies the date filter, counts and writes.
    private func write(_ record: EntryRecord) throws {
        switch record {
        case .route(var route):
            if route.workoutType == nil { index.link(&route) }
            if let start = route.points.first?.time ?? route.workoutStart, !filter.acceptsDate(start) { return }
            report.routes += 1
            report.routePoints += route.points.count
            try records.write(route)
        case .ecg(let ecg):
            guard filter.acceptsDate(ecg.recordedAt) else { return }
            report.ecgs += 1
            report.ecgSamples += ecg.samples.count
            try records.write(ecg)
        case .clinical(let resource):
            for record in clinical.link(resource) { try write(record) }
        }
    }

    /// The clinical records whose file was missing or damaged: listed with the problem.
    private func writeUnlinkedClinicalRecords() throws {
        for damage in report.damaged where EntryKind.of(damage.entry) == .clinicalRecord {
            clinical.damaged(path: damage.entry, problem: damage.problem)
        }
        for record in clinical.unlinked() { try write(record) }
    }

    private func write(_ record: ClinicalResource) throws {
        if let received = record.receivedDate, !filter.acceptsDate(received) { return }
        report.clinicalRecords += 1
        if record.resource == nil { report.clinicalRecordsWithoutResource += 1 }
        try records.write(record)
    }

    private func count(entries conversion: ConversionReport) {
        if conversion.entry != nil { report.entriesByKind[.export] = 1 }
        for path in conversion.otherFiles {
            let kind = EntryKind.of(path)
            report.entriesByKind[kind, default: 0] += 1
            if kind == .unknown { report.unrecognised.append(path) }
        }
    }

    private static func reason(_ error: ConversionError) -> String {
        if case .damagedZip(_, _, let why) = error { return why }
        return error.description
    }
}
