public import CloudSyncExport
public import CloudSyncModel
public import CloudSyncStore

/// ECGs: the CSV files of `electrocardiograms/`, and Health Auto Export's `ecg` array (the same
/// recordings). Kept one row per recording, the voltages as little-endian float64 words; the key is
/// the file (`ecg:<time>` for the app's), and a recording whose time the store already has is the
/// same recording, from the other source: not kept twice.
extension ECGKind: ArchiveRecordKind {
    public static func makeReader() -> any KindReader<ECGKind> { ECGFiles() }

    public static let tableVersions = ["""
        CREATE TABLE IF NOT EXISTS ecg (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, recorded_at INTEGER NOT NULL, classification TEXT, symptoms TEXT,
            sample_rate REAL, lead TEXT, unit TEXT, device TEXT, software_version TEXT, file TEXT, sample_count INTEGER NOT NULL,
            samples BLOB NOT NULL, import_id INTEGER NOT NULL REFERENCES import_run(id));
        """, """
        ALTER TABLE ecg ADD COLUMN average_heart_rate REAL;
        CREATE INDEX IF NOT EXISTS ecg_recorded ON ecg(recorded_at);
        """]

    public static func insert(_ ecg: ECGRecording, into rows: KindRows) throws -> Bool {
        // One recording a moment, whatever its file is named.
        let recorded = try rows.statement("SELECT 1 FROM ecg WHERE recorded_at = ?")
        try recorded.bind(1, ecg.recordedAt)
        let known = try recorded.step()
        recorded.reset()
        if known { return false }
        let insert = try rows.statement("""
            INSERT INTO ecg(key, recorded_at, classification, symptoms, sample_rate, lead, unit, device,
                            software_version, file, sample_count, samples, import_id, average_heart_rate)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) ON CONFLICT DO NOTHING
            """)
        try insert.bind(1, ecg.key)
        try insert.bind(2, ecg.recordedAt)
        try insert.bind(3, ecg.classification)
        try insert.bind(4, ecg.symptoms)
        try insert.bind(5, ecg.sampleRateHz)
        try insert.bind(6, ecg.lead)
        try insert.bind(7, ecg.unit)
        try insert.bind(8, ecg.device)
        try insert.bind(9, ecg.softwareVersion)
        try insert.bind(10, ecg.file)
        try insert.bind(11, Int64(ecg.samples.count))
        try StoredWords.encoded(count: ecg.samples.count, word: { ecg.samples[$0].bitPattern }) { try insert.bind(12, blob: $0) }
        try insert.bind(13, rows.runID)
        try insert.bind(14, ecg.averageHeartRate)
        try insert.step()
        return rows.database.changes > 0
    }

    public static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (ECGRecording) throws -> Void) throws {
        let select = try rows.statement("""
            SELECT recorded_at, classification, symptoms, sample_rate, lead, unit, device, software_version, file, samples, average_heart_rate
            FROM ecg ORDER BY id
            """)
        while try select.step() {
            guard filter.acceptsDate(select.int64(0)) else { continue }
            try body(ECGRecording(recordedAt: select.int64(0), classification: select.text(1), symptoms: select.text(2),
                                  sampleRateHz: select.optionalDouble(3), lead: select.text(4), unit: select.text(5),
                                  device: select.text(6), softwareVersion: select.text(7), file: select.text(8),
                                  averageHeartRate: select.optionalDouble(10), samples: StoredWords.decoded(select.blob(9)).map { Double(bitPattern: $0) }))
        }
    }

    public static func count(in rows: KindRows) throws -> RecordCount {
        let count = try rows.statement("SELECT count(*), coalesce(sum(sample_count), 0) FROM ecg")
        _ = try count.step()
        return RecordCount(records: Int(count.int64(0)), parts: Int(count.int64(1)))
    }
}

/// One run's reading of ECGs: each CSV file on its own.
final class ECGFiles: KindReader {
    typealias Kind = ECGKind
    var files: ArchiveFiles? { ArchiveFiles(folder: "electrocardiograms/", suffix: ".csv") }
    func fileReader() -> any EntryReader<ECGRecording> { ECGReader() }

    func spill(_ ecg: ECGRecording, into writer: inout SpillWriter) {
        writer.put(ecg.recordedAt)
        for text in [ecg.classification, ecg.symptoms, ecg.lead, ecg.unit, ecg.device, ecg.softwareVersion, ecg.file] { writer.put(text) }
        writer.put(ecg.sampleRateHz)
        writer.put(ecg.samples.count)
        for sample in ecg.samples { writer.put(sample) }
    }

    func unspill(from reader: inout SpillReader) -> ECGRecording {
        let recordedAt = reader.int64()
        let texts = (0..<7).map { _ in reader.string() }
        let rate = reader.double()
        let samples = (0..<reader.int()).map { _ in reader.double() ?? .nan }
        return ECGRecording(recordedAt: recordedAt, classification: texts[0], symptoms: texts[1], sampleRateHz: rate, lead: texts[2],
                            unit: texts[3], device: texts[4], softwareVersion: texts[5], file: texts[6], samples: samples)
    }
}
