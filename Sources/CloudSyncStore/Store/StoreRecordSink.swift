import CloudSyncExport
import CloudSyncModel

/// Writes routes, ECGs, beat series, correlations and clinical records into the store (the `RecordSink` of `cloudsync import`), idempotently by
/// their key. Inside a transaction already open (the metrics' one, for inline routes) it only
/// inserts; otherwise it opens its own and commits every `commitEvery` records, so that a killed
/// import keeps what it committed, a route always with all its points.
final class StoreRecordSink: RecordSink {
    private let database: SQLiteDatabase
    private let runID: Int64
    private let insertRoute, insertPoint, insertECG, insertBeats, insertCorrelation, insertClinical: SQLiteStatement
    private let commitEvery: Int
    private var ownsTransaction = false
    private var sinceCommit = 0
    private(set) var newRoutes = 0
    private(set) var duplicateRoutes = 0
    private(set) var newECGs = 0
    private(set) var duplicateECGs = 0
    private(set) var newBeatSeries = 0
    private(set) var newCorrelations = 0
    private(set) var newClinicalRecords = 0
    private var line = ByteBuffer(capacity: 1024)

    init(database: SQLiteDatabase, runID: Int64, commitEvery: Int = 200) throws {
        self.database = database
        self.runID = runID
        self.commitEvery = commitEvery
        insertRoute = try database.prepare("""
            INSERT OR IGNORE INTO route(key, file, workout_type, workout_start, workout_end, point_count, import_id)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        insertPoint = try database.prepare("""
            INSERT INTO route_point(route_id, seq, time, latitude, longitude, elevation, speed, course,
                                    horizontal_accuracy, vertical_accuracy) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertECG = try database.prepare("""
            INSERT OR IGNORE INTO ecg(key, recorded_at, classification, symptoms, sample_rate, lead, unit, device,
                                      software_version, file, sample_count, samples, import_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertBeats = try database.prepare("""
            INSERT OR IGNORE INTO beat_series(key, type, start_date, end_date, source_app, value, beat_count, beats, import_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertCorrelation = try database.prepare("""
            INSERT OR IGNORE INTO correlation(key, type, start_date, end_date, source_app, line, import_id) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        insertClinical = try database.prepare("""
            INSERT OR IGNORE INTO clinical_record(key, type, received_date, file, has_resource, line, import_id) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
    }

    func write(_ clinical: ClinicalResource) throws {
        try beginIfNeeded()
        line.removeAll()
        RecordJSON.appendLine(clinical, to: &line)
        try insertClinical.bind(1, clinical.key)
        try insertClinical.bind(2, clinical.type)
        if let received = clinical.receivedDate { try insertClinical.bind(3, received) } else { try insertClinical.bindNull(3) }
        try insertClinical.bind(4, clinical.file)
        try insertClinical.bind(5, Int64(clinical.resource == nil ? 0 : 1))
        try line.withBytes { try insertClinical.bind(6, bytes: $0.slice(0..<($0.count - 1))) }   // without its newline
        try insertClinical.bind(7, runID)
        try insertClinical.step()
        insertClinical.reset()
        if database.changes > 0 { newClinicalRecords += 1 }
        try commitIfDue()
    }

    func write(_ series: BeatSeries) throws {
        try beginIfNeeded()
        try insertBeats.bind(1, "\(series.type)|\(series.startDate)|\(series.endDate)|\(series.sourceApp)")
        try insertBeats.bind(2, series.type)
        try insertBeats.bind(3, series.startDate)
        try insertBeats.bind(4, series.endDate)
        try insertBeats.bind(5, series.sourceApp)
        try insertBeats.bind(6, series.value)
        try insertBeats.bind(7, Int64(series.beats.count))
        let pairs = series.beats.flatMap { [UInt64(bitPattern: $0.time).littleEndian, UInt64($0.bpm).littleEndian] }
        try pairs.withUnsafeBytes { try insertBeats.bind(8, blob: $0) }
        try insertBeats.bind(9, runID)
        try insertBeats.step()
        insertBeats.reset()
        if database.changes > 0 { newBeatSeries += 1 }
        try commitIfDue()
    }

    func write(_ correlation: CorrelationRecord) throws {
        try beginIfNeeded()
        line.removeAll()
        RecordJSON.appendLine(correlation, to: &line)
        let text = line.withBytes { String(decoding: $0.prefix($0.count - 1), as: UTF8.self) }   // without its newline
        let members = correlation.members.map { "\($0.type)=\($0.value)\($0.unit)" }.joined(separator: ",")
        try insertCorrelation.bind(1, "\(correlation.type)|\(correlation.startDate)|\(correlation.endDate)|\(correlation.sourceApp)|\(members)")
        try insertCorrelation.bind(2, correlation.type)
        try insertCorrelation.bind(3, correlation.startDate)
        try insertCorrelation.bind(4, correlation.endDate)
        try insertCorrelation.bind(5, correlation.sourceApp)
        try insertCorrelation.bind(6, text)
        try insertCorrelation.bind(7, runID)
        try insertCorrelation.step()
        insertCorrelation.reset()
        if database.changes > 0 { newCorrelations += 1 }
        try commitIfDue()
    }

    func write(_ route: Route) throws {
        try beginIfNeeded()
        try insertRoute.bind(1, route.key)
        try insertRoute.bind(2, route.file)
        try insertRoute.bind(3, route.workoutType)
        if let start = route.workoutStart { try insertRoute.bind(4, start) } else { try insertRoute.bindNull(4) }
        if let end = route.workoutEnd { try insertRoute.bind(5, end) } else { try insertRoute.bindNull(5) }
        try insertRoute.bind(6, Int64(route.points.count))
        try insertRoute.bind(7, runID)
        try insertRoute.step()
        insertRoute.reset()
        guard database.changes > 0 else { duplicateRoutes += 1; return }
        let routeID = database.lastInsertRowID
        for (seq, point) in route.points.enumerated() {
            try insertPoint.bind(1, routeID)
            try insertPoint.bind(2, Int64(seq))
            if let time = point.time { try insertPoint.bind(3, time) } else { try insertPoint.bindNull(3) }
            try insertPoint.bind(4, point.latitude)
            try insertPoint.bind(5, point.longitude)
            try insertPoint.bind(6, point.elevation)
            try insertPoint.bind(7, point.speed)
            try insertPoint.bind(8, point.course)
            try insertPoint.bind(9, point.horizontalAccuracy)
            try insertPoint.bind(10, point.verticalAccuracy)
            try insertPoint.step()
            insertPoint.reset()
        }
        newRoutes += 1
        try commitIfDue()
    }

    func write(_ ecg: ECGRecording) throws {
        try beginIfNeeded()
        try insertECG.bind(1, ecg.key)
        try insertECG.bind(2, ecg.recordedAt)
        try insertECG.bind(3, ecg.classification)
        try insertECG.bind(4, ecg.symptoms)
        try insertECG.bind(5, ecg.sampleRateHz)
        try insertECG.bind(6, ecg.lead)
        try insertECG.bind(7, ecg.unit)
        try insertECG.bind(8, ecg.device)
        try insertECG.bind(9, ecg.softwareVersion)
        try insertECG.bind(10, ecg.file)
        try insertECG.bind(11, Int64(ecg.samples.count))
        try ECGSamples.encoded(ecg.samples) { try insertECG.bind(12, blob: $0) }
        try insertECG.bind(13, runID)
        try insertECG.step()
        insertECG.reset()
        if database.changes > 0 { newECGs += 1 } else { duplicateECGs += 1 }
        try commitIfDue()
    }

    func finish() throws {
        if ownsTransaction { try commit() }
    }

    /// Stopped early: keep what was written.
    func abandon() throws { try finish() }

    private func beginIfNeeded() throws {
        guard !database.isInTransaction else { return }
        try database.execute("BEGIN IMMEDIATE")
        ownsTransaction = true
    }

    private func commitIfDue() throws {
        sinceCommit += 1
        if ownsTransaction && sinceCommit >= commitEvery { try commit() }
    }

    private func commit() throws {
        try database.prepare("UPDATE import_run SET new_routes = ?, new_ecgs = ? WHERE id = ?")
            .run([.int(Int64(newRoutes)), .int(Int64(newECGs)), .int(runID)])
        try database.execute("COMMIT")
        ownsTransaction = false
        sinceCommit = 0
    }
}

/// ECG voltages as stored: little-endian float64, exactly the values read.
enum ECGSamples {
    static func encoded<R>(_ samples: [Double], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let bits = samples.map { $0.bitPattern.littleEndian }
        return try bits.withUnsafeBytes(body)
    }

    static func decoded(_ bytes: UnsafeRawBufferPointer) -> [Double] {
        words(bytes).map { Double(bitPattern: $0) }
    }

    /// A blob of little-endian 64-bit words (ECG samples, beat pairs).
    static func words(_ bytes: UnsafeRawBufferPointer) -> [UInt64] {
        (0..<bytes.count / 8).map { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
    }
}
