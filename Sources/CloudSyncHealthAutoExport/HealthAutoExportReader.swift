public import CloudSyncModel
import Foundation

/// Health Auto Export's JSON as a reader of records (`RecordReader`'s second reader beside the
/// export archive): `{"data": {"metrics": [...], "workouts": [...], ...}}` (export version 1 or 2;
/// also inside a top-level array, as re-serialised files have it) read into the same sinks the
/// export's records go to. Metrics become `MappedMetric`s, workouts the export's workout metric and
/// their routes `Route`s and series `SampleSeries`; medications, State of Mind and ECGs their
/// record kinds; symptoms, cycle tracking and heart-rate notifications the category samples
/// export.xml writes for them (docs/mapping.md). An array the app does not document is checked,
/// counted and reported by name.
///
/// The whole document is checked as it is read: a syntax error or a wrong shape stops it with the
/// JSON path of the first problem (`HealthAutoExportError`); a caller that must keep nothing of a
/// refused document (a push) writes into one transaction and rolls it back.
public final class HealthAutoExportReader: RecordReader {
    public struct Options: Sendable {
        /// The push's `automation-aggregation` header: the bucket of date-only points. Without it,
        /// the dates tell (`Aggregation.inferred`).
        public var aggregation: Aggregation?
        public init(aggregation: Aggregation? = nil) { self.aggregation = aggregation }
    }

    private let document: HealthAutoExportDocument
    private let options: Options
    public let name: String

    public init(document: HealthAutoExportDocument, options: Options = Options()) {
        self.document = document
        self.options = options
        name = document.name
    }

    /// Reads the document into the sinks: metrics (and workouts) to `sinks.metrics`, finished at the
    /// end; routes to `sinks.records`. On a problem it throws before finishing anything: what to do
    /// with what the sinks hold is the caller's decision (the store rolls the document back). A
    /// document has no facts of an export to tell.
    public func read(into sinks: ReaderSinks, control: RunControl) throws -> HealthAutoExportReport {
        let started = DispatchTime.now().uptimeNanoseconds
        var report = HealthAutoExportReport(input: name)
        let arena = TextArena(), names = NamePool()
        let emitter = MetricEmitter(sink: sinks.metrics, arena: arena)
        do {
            try document.withBytes { bytes in
            var cursor = JSONCursor(bytes: bytes, input: name, arena: arena)
            if try cursor.peekKind() == .array {
                try cursor.array { cursor, _ in
                    try readEnvelope(&cursor, emitter: emitter, names: names, arena: arena, records: sinks.records, report: &report)
                }
            } else {
                try readEnvelope(&cursor, emitter: emitter, names: names, arena: arena, records: sinks.records, report: &report)
            }
            try cursor.expectEnd()
            }
            if control.shouldStop() { throw ConversionError.interrupted }
        } catch {
            try? sinks.metrics.abandon()
            throw error
        }
        try sinks.metrics.finish()
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return report
    }

    /// `{"data": {...}}`: each array to its reader. A workout's series are handed over after the whole
    /// envelope, so that a store has the document's own metrics when it decides whether a series
    /// repeats them (`SampleSeriesKind`).
    private func readEnvelope(_ cursor: inout JSONCursor, emitter: MetricEmitter, names: NamePool, arena: TextArena,
                              records: any RecordSink, report: inout HealthAutoExportReport) throws {
        var sawData = false
        var series: [SampleSeries] = []
        let samples = CategorySamples(emitter: emitter, arena: arena)
        func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
            try records.write(record, as: kind)
            report.records[Kind.name, default: RecordCount()].add(record, of: Kind.self)
        }
        /// Each item of the array, counted; the arena is the item's.
        func items(_ cursor: inout JSONCursor, _ array: String, _ item: (inout JSONCursor) throws -> Void) throws {
            if try cursor.null() { return }
            try cursor.array { cursor, _ in
                arena.reset()
                report.items[array, default: 0] += 1
                try item(&cursor)
            }
        }
        try cursor.object { cursor, key in
            guard key.equals("data") else {
                try cursor.skipValue()
                return
            }
            sawData = true
            try cursor.object { cursor, key in
                let array = key.string
                let before = emitter.written
                switch array {
                case "metrics":
                    let reader = MetricArrayReader(emitter: emitter, names: names, arena: arena, aggregation: options.aggregation)
                    try cursor.array { cursor, _ in try reader.read(&cursor, report: &report) }
                    return
                case "workouts":
                    let reader = WorkoutReader(emitter: emitter, arena: arena, names: names)
                    try cursor.array { cursor, _ in try reader.read(&cursor, report: &report, routes: records, series: &series) }
                    return
                case "medications":
                    try items(&cursor, array) { try write(MedicationsReader.read(&$0), as: MedicationKind.self) }
                case "stateOfMind":
                    try items(&cursor, array) { try write(StateOfMindReader.read(&$0), as: StateOfMindKind.self) }
                case "ecg":
                    try items(&cursor, array) { try write(ECGItemReader.read(&$0), as: ECGKind.self) }
                case "symptoms":
                    let reader = SymptomsReader(samples: samples)
                    try items(&cursor, array) { try reader.read(&$0, report: &report) }
                case "cycleTracking":
                    let reader = CycleTrackingReader(samples: samples, emitter: emitter, arena: arena)
                    try items(&cursor, array) { try reader.read(&$0, report: &report) }
                case "heartRateNotifications":
                    let reader = HeartRateNotificationsReader(samples: samples)
                    try items(&cursor, array) { try reader.read(&$0, series: &series) }
                default:
                    var count = 0
                    if try cursor.peekKind() == .array {
                        try cursor.array { cursor, _ in count += 1; try cursor.skipValue() }
                    } else {
                        try cursor.skipValue()
                        count = 1
                    }
                    if count > 0 { report.notKept(array, count, "not an array Health Auto Export documents") }
                    return
                }
                report.arraySamples += emitter.written - before
            }
        }
        guard sawData else { throw cursor.shape("no \"data\" object: Health Auto Export writes {\"data\": {\"metrics\": [...]}}") }
        for one in series { try write(one, as: SampleSeriesKind.self) }
    }
}
