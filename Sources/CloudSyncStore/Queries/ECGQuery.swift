import CloudSyncModel

/// A stored ECG recording: its classification and, when asked for one recording, its voltages.
public struct ECGSummary: Sendable, Codable, Equatable {
    public var recordedAt: String
    public var classification: String?
    public var symptoms: String?
    public var sampleRateHz: Double?
    public var sampleCount: Int
    public var lead: String?
    public var unit: String?
    public var device: String?
    /// One recording only: the voltages, thinned evenly to the requested count, and the rate they then have.
    public var samples: [Double]?
    public var samplesRateHz: Double?
}

/// The stored ECG recordings.
public struct ECGQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

    /// The recordings made in [since, until), oldest first; with `maxSamples`, each with its
    /// voltages thinned to that count, else without them.
    public func ecgs(since: Int64? = nil, until: Int64? = nil, maxSamples: Int? = nil) throws -> [ECGSummary] {
        try storeErrors {
            let rows = try database.prepare("""
                SELECT recorded_at, classification, symptoms, sample_rate, sample_count, lead, unit, device\(maxSamples == nil ? "" : ", samples")
                FROM ecg WHERE recorded_at >= ? AND recorded_at < ? ORDER BY recorded_at, id
                """)
            try rows.bind([.int(since ?? .min), .int(until ?? .max)])
            var result: [ECGSummary] = []
            while try rows.step() { result.append(Self.summary(rows, maxSamples: maxSamples)) }
            return result
        }
    }

    /// The recording made at `recordedAt` (to the second), its voltages thinned to `maxSamples`.
    public func ecg(recordedAt: Int64, maxSamples: Int) throws -> ECGSummary? {
        try storeErrors {
            let rows = try database.prepare("""
                SELECT recorded_at, classification, symptoms, sample_rate, sample_count, lead, unit, device, samples
                FROM ecg WHERE recorded_at = ? ORDER BY id LIMIT 1
                """)
            try rows.bind([.int(recordedAt)])
            guard try rows.step() else { return nil }
            return Self.summary(rows, maxSamples: maxSamples)
        }
    }

    /// A row of the columns above; with `maxSamples`, the voltages (column 8) thinned to that count.
    private static func summary(_ rows: any StoreStatement, maxSamples: Int?) -> ECGSummary {
        var recording = ECGSummary(recordedAt: UTCDateFormatter.string(rows.int64(0)), classification: rows.text(1), symptoms: rows.text(2),
                                   sampleRateHz: rows.optionalDouble(3), sampleCount: Int(rows.int64(4)), lead: rows.text(5),
                                   unit: rows.text(6), device: rows.text(7))
        if let maxSamples {
            let samples = StoredWords.decoded(rows.blob(8)).map { Double(bitPattern: $0) }
            let thinned = thinnedEvenly(samples, to: maxSamples)
            recording.samples = thinned
            recording.samplesRateHz = recording.sampleRateHz.map { $0 * Double(thinned.count) / Double(Swift.max(samples.count, 1)) }
        }
        return recording
    }
}
