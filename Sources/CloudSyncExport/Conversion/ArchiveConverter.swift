import CloudSyncArchive
public import CloudSyncModel

/// The export archive as a reader of records: export.xml's metrics through `ExportConverter` (the
/// fast path, unchanged), and the records of the kinds asked for, each read by its kind
/// (`ArchiveKind`): from export.xml's elements, from the archive's files, or both, linked.
///
/// Order: the files of the kinds read are decoded beside export.xml and kept in a spill, then linked
/// and written once export.xml has been read. From a seekable zip they are decoded on their own
/// thread (`EntryDecodingThread`), in the directory's order; from a pipe, in archive order as they
/// pass (`DecodedEntries`). A damaged file is reported and skipped.
public final class ArchiveConverter: RecordReader {
    /// What a whole-archive run did.
    public struct Report: Sendable {
        public var conversion: ConversionReport
        /// Records written, per kind (`RecordKind.name`).
        public var records: [String: RecordCount] = [:]
        /// What the kinds add to the summary ("3 beats skipped: …"), and the kinds read, in order.
        public var notes: [String] = []
        public var kinds: [String] = []
        /// Each kind's count in words ("2 routes (45 points)"), by kind.
        public var described: [String: String] = [:]
        /// Files that could not be read, with why; they were skipped.
        public var damaged: [EntryDamage] = []
        /// The archive's files by what they are: a kind's name, `export`, `cda` (export_cda.xml),
        /// or `other`.
        public var files: [String: Int] = [:]
        /// Files of no known kind.
        public var unrecognised: [String] = []

        public func count(_ kind: String) -> RecordCount { records[kind] ?? RecordCount() }
    }

    private let input: ExportInput
    private let filter: MetricFilter
    private let kinds: [any ArchiveKind.Type]
    private let converter: ExportConverter
    private var runs: [KindRun] = []
    private var report: Report

    /// Called with each mapped metric and each element that is not a metric (for `inspect`).
    public var observer: (any ConversionObserver)? {
        get { converter.observer }
        set { converter.observer = newValue }
    }

    /// - Parameters:
    ///   - kinds: the kinds to read besides metrics.
    public init(input: ExportInput, filter: MetricFilter = .all, kinds: [any ArchiveKind.Type]) {
        self.input = input
        self.filter = filter
        self.kinds = kinds
        converter = ExportConverter(input: input, filter: filter)
        report = Report(conversion: ConversionReport(input: input.name))
        report.kinds = kinds.map { $0.name }
    }

    public convenience init(input path: String, filter: MetricFilter = .all, kinds: [any ArchiveKind.Type]) {
        self.init(input: ExportInput(path: path), filter: filter, kinds: kinds)
    }

    /// What was read so far (also after an error).
    public var currentReport: Report {
        var current = report
        current.conversion = converter.currentReport
        for run in runs {
            current.records[run.name] = run.written
            current.described[run.name] = run.describe(run.written)
        }
        return current
    }

    // MARK: RecordReader

    public var name: String { report.conversion.input }

    /// export.xml's metrics into `sinks.metrics` (finished once export.xml is read, before the
    /// archive's other files), then the records of every kind asked for into `sinks.records`.
    public func read(into sinks: ReaderSinks, control: RunControl) throws -> Report {
        runs = kinds.map { KindRun($0, filter: filter, sink: sinks.records) }
        let reading = runs.filter { $0.files != nil }
        // A zip that cannot be read is reported by the conversion below, with its usual message.
        // Standard input redirected from a file (`< export.zip`) is that file: read it as the path.
        // A stream is read as it comes, like a pipe.
        let seekable = reading.isEmpty || input.descriptor != nil ? nil : (try? SeekableZip(path: ExportInputs.seekablePath(input.path))) ?? nil
        // The runs interested in each element name, at the name's raw value (`allCases` is in raw
        // value order): every element of export.xml is asked, and a dictionary's hashing was 40 M
        // of the mapping thread's 3,363 M instructions on the 100 MB import.
        let byElement = ElementName.allCases.map { name in runs.filter { $0.elements.contains(name) } }
        if byElement.contains(where: { !$0.isEmpty }) {
            converter.elementTrees = { tree in
                for run in byElement[Int(tree.name(tree.root).rawValue)] { try run.read(tree) }
            }
        }
        var decoding: EntryDecodingThread?
        var early: EarlyEntries?
        if let seekable {
            let entries = try DecodedEntries(runs: runs, early: true)
            early = entries.early
            decoding = EntryDecodingThread(zip: seekable, wanted: try wantedFiles(of: seekable.directory),
                                           entries: entries, shouldStop: control.shouldStop)
            // The routes decoded meanwhile are written on the mapping thread, between two elements.
            if let early { converter.betweenElements = { for entry in early.take() { try entry.writeUnlinked() } } }
            decoding?.start()
        } else if !reading.isEmpty {
            converter.streamed = try DecodedEntries(runs: runs)
        }
        do {
            report.conversion = try converter.read(into: sinks, control: control)
        } catch {
            _ = early?.close()
            decoding?.cancel()
            throw error
        }
        // export.xml is read: what is still on its way is linked as it is written, the rest spilled.
        do {
            for entry in early?.close() ?? [] { try entry.write() }
        } catch {
            decoding?.cancel()
            throw error
        }
        if let decoding { try decoding.finish() }
        if let entries = decoding?.entries ?? converter.streamed {
            for damage in entries.damages { damaged(damage) }
            try entries.spill.replay { index, spilled in try runs[index].replay(&spilled) }
        }
        for run in runs { try run.finish() }
        count(files: report.conversion)
        for run in runs {
            report.records[run.name] = run.written
            report.described[run.name] = run.describe(run.written)
            report.notes += run.notes
        }
        return report
    }

    /// The files of a seekable zip to decode beside export.xml, in the directory's order: each file
    /// of a kind being read, except those whose record the sink already holds (counted as read).
    private func wantedFiles(of zip: ZipDirectory) throws -> [ZipEntry] {
        try zip.entries.filter { entry in
            guard !entry.isDirectory, let run = runs.first(where: { $0.files?.matches(entry.path) == true }) else { return false }
            return try !run.skipsHeldFile(entry.path)
        }
    }

    /// A file that could not be read: reported, and told to its kind (a clinical record says its
    /// file was damaged).
    private func damaged(_ damage: EntryDamage) {
        report.damaged.append(damage)
        runs.first { $0.files?.matches(damage.entry) == true }?.damaged(damage)
    }

    private func count(files conversion: ConversionReport) {
        if conversion.entry != nil { report.files["export", default: 0] += 1 }
        for path in conversion.otherFiles {
            let lower = path.lowercased()
            let kind = runs.first { $0.files?.matches(path) == true }?.name
                ?? (lower.hasSuffix("export_cda.xml") ? "cda" : nil)
            if let kind {
                report.files[kind, default: 0] += 1
            } else if !lower.hasSuffix("/") {
                report.files["other", default: 0] += 1
                report.unrecognised.append(path)
            }
        }
    }

    static func reason(_ error: ConversionError) -> String {
        if case .damagedZip(_, _, let why) = error { return why }
        return error.description
    }
}
